import Foundation
import TestSupport
import Testing

/// The `workout` commands against a PostgreSQL store (the tests' own server), as a gym's recorder would use one: the
/// database owner's first open makes the schema, a person's replay records into it through the live journal, and
/// what it shows is what the same replay into a SQLite file shows; a recording killed mid-way is recovered from the
/// server's journal. The password appears in no output.
@Suite(
    .enabled(if: PostgresCluster.unavailableReason == nil, "\(PostgresCluster.unavailableReason ?? "")"),
    .postgresCluster, .blockingWaits, .timeLimit(.minutes(2)))
struct PostgresCommandTests {
    static let password = "cli-Secret-7"

    /// A fresh database made and opened by its owner, and the URL of a person who uses it.
    func personStore() async throws -> String {
        let cluster = try await PostgresCluster.shared()
        try await cluster.createRole("ohk_cli_owner", password: Self.password, options: "CREATEROLE")
        try await cluster.psql(
            """
            DO $$ BEGIN
              CREATE ROLE openhealthkit_person NOLOGIN;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END $$;
            """)
        try await cluster.createRole("ohk_cli_rider", password: Self.password, groups: ["openhealthkit_person"])
        let database = try await cluster.createDatabase(owner: "ohk_cli_owner")
        let owner = try Tool.run([
            "list", "--store", cluster.url(user: "ohk_cli_owner", password: Self.password, database: database),
        ])
        #expect(owner.status == 0 && owner.stdout.hasPrefix("No workouts in postgres://ohk_cli_owner@"), "\(owner)")
        #expect(!owner.transcript.contains(Self.password))
        return cluster.url(user: "ohk_cli_rider", password: Self.password, database: database)
    }

    /// A workout's JSON without what differs between two recordings of the same fixture: UUIDs.
    func withoutIDs(_ json: String) -> String {
        json.replacingOccurrences(
            of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", with: "ID", options: .regularExpression)
    }

    @Test func aReplayIntoPostgreSQLShowsWhatTheSameReplayIntoSQLiteShows() async throws {
        let directory = try TemporaryDirectory()
        let store = try await personStore()
        let fixture = fixturesDirectory.appendingPathComponent("run-45min.jsonl").path
        let replayed = try Tool.run(["replay", fixture, "--instant", "--store", store])
        #expect(replayed.status == 0, "\(replayed.transcript)")
        #expect(!replayed.transcript.contains(Self.password))
        let sqlite = directory.file("same.sqlite")
        #expect(try Tool.run(["replay", fixture, "--instant", "--store", sqlite]).status == 0)
        let id = try #require(try Tool.run(["list", "--store", store]).stdout.split(separator: "\n").dropFirst().first)
        let sqliteID = try #require(
            try Tool.run(["list", "--store", sqlite]).stdout.split(separator: "\n").dropFirst().first)
        let onServer = try Tool.run(["show", String(id.prefix(8)), "--json", "--store", store])
        let inFile = try Tool.run(["show", String(sqliteID.prefix(8)), "--json", "--store", sqlite])
        #expect(onServer.status == 0 && onServer.stdout.contains("\"HeartRate\""), "\(onServer.transcript)")
        #expect(withoutIDs(onServer.stdout) == withoutIDs(inFile.stdout))
        // The time in zones is kept on the server too.
        let shown = try Tool.run(["show", String(id.prefix(8)), "--store", store])
        #expect(shown.stdout.contains("running         20:03    0:38     24:19    0:00     0:00"), "\(shown.stdout)")
        // And sync copies it from the server into a new file, and a file's workout onto the server, naming the
        // server without the password.
        let copy = directory.file("copy.sqlite")
        let down = try Tool.run(["sync", store, copy])
        #expect(down.status == 0, "\(down.transcript)")
        #expect(
            down.stdout.range(
                of: #"Copied 1 workout \([0-9]+ samples\) from postgres://ohk_cli_rider@[^ ]+ to .*copy\.sqlite\.\n$"#,
                options: .regularExpression) != nil, "\(down.transcript)")
        #expect(
            withoutIDs(try Tool.run(["show", String(id.prefix(8)), "--json", "--store", copy]).stdout)
                == withoutIDs(onServer.stdout))
        // (The file's replay, 2,701 samples, saved a few round trips per 64 of them.)
        let up = try Tool.run(["sync", sqlite, store])
        #expect(up.status == 0 && up.stdout.contains("Copied 1 workout (2701 samples)"), "\(up)")
        #expect(!(down.transcript + up.transcript).contains(Self.password))
        #expect(try Tool.run(["list", "--store", store]).stdout.split(separator: "\n").count == 3)
    }

    @Test func aRiderSharesTheirStoreWithACoachWhoReadsItAndChangesNothing() async throws {
        let store = try await personStore()
        let cluster = try await PostgresCluster.shared()
        try await cluster.createRole("ohk_cli_coach", password: Self.password, groups: ["openhealthkit_person"])
        let coachesOwn = store.replacingOccurrences(of: "ohk_cli_rider", with: "ohk_cli_coach")
        let coachReadingRider = coachesOwn + "&person=ohk_cli_rider"
        #expect(try Tool.run(["demo", "--store", store]).status == 0)
        // Nothing is shared by default
        let before = try Tool.run(["list", "--store", coachReadingRider])
        #expect(before.status == 1)
        #expect(
            before.stderr.contains("ohk_cli_rider has not shared their health store with ohk_cli_coach"),
            "\(before.transcript)")
        #expect(try Tool.run(["share", "--store", store]).stdout == "Your health store is shared with nobody.\n")
        // The rider shares, and is told how the coach opens it (without the password)
        let shared = try Tool.run(["share", "ohk_cli_coach", "--store", store])
        #expect(shared.status == 0, "\(shared.transcript)")
        #expect(
            shared.stdout.hasPrefix(
                "Shared your health store with ohk_cli_coach, read-only: ohk_cli_coach opens it as\n"))
        #expect(shared.stdout.contains("  postgres://ohk_cli_coach@127.0.0.1:"))
        #expect(shared.stdout.hasSuffix("?person=ohk_cli_rider\n"))
        let listing = try Tool.run(["share", "--store", store]).stdout
        #expect(listing.hasPrefix("Your health store is shared with:\n  ohk_cli_coach       since "), "\(listing)")
        let coaches = try Tool.run(["share", "--store", coachesOwn]).stdout
        #expect(coaches.contains("Shared with you (open with person=NAME in the store's URL):\n  ohk_cli_rider "))
        // The coach lists and shows the rider's workout as the rider does
        let riders = try Tool.run(["list", "--store", store])
        let read = try Tool.run(["list", "--store", coachReadingRider])
        #expect(
            read.status == 0
                && read.stdout.split(separator: "\n").dropFirst() == riders.stdout.split(separator: "\n").dropFirst(),
            "\(read.transcript)")
        let id = String(try #require(riders.stdout.split(separator: "\n").dropFirst().first).prefix(8))
        #expect(
            try Tool.run(["show", id, "--json", "--store", coachReadingRider]).stdout
                == (try Tool.run(["show", id, "--json", "--store", store]).stdout))
        // But deletes nothing, and the coach's own store is still empty
        let deleted = try Tool.run(["delete", id, "--store", coachReadingRider])
        #expect(deleted.status == 1)
        #expect(
            deleted.stderr
                == "workout: ohk_cli_rider's health store is shared with ohk_cli_coach to read; ohk_cli_coach cannot write to it.\n",
            "\(deleted.transcript)")
        #expect(try Tool.run(["list", "--store", store]).stdout == riders.stdout)
        #expect(try Tool.run(["list", "--store", coachesOwn]).stdout.hasPrefix("No workouts in "))
        // Until the rider stops sharing
        #expect(
            try Tool.run(["share", "--stop", "ohk_cli_coach", "--store", store]).stdout
                == "Stopped sharing your health store with ohk_cli_coach.\n")
        #expect(try Tool.run(["list", "--store", coachReadingRider]).status == 1)
        let all = [before, shared, read, deleted].map(\.transcript).joined()
        #expect(!all.contains(Self.password))
    }

    @Test func aRecordingKilledMidwayIsRecoveredFromTheServersJournal() async throws {
        let store = try await personStore()
        let fixture = fixturesDirectory.appendingPathComponent("run-45min.jsonl").path
        // A replay whose process is killed before it ends: its journal is all that is left of it.
        let process = Process()
        process.executableURL = Tool.url
        process.arguments = ["replay", fixture, "--speed", "120", "--store", store]
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed once it has printed two minutes of the run (a line a minute of it, half a second apart at this speed).
        let reader = output.fileHandleForReading
        var printed = ""
        let deadline = Date().addingTimeInterval(60)
        while !printed.contains("\n2:"), Date() < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(printed.contains("\n2:"), "\(printed)")
        let offered = try Tool.run(["recover", "--store", store])
        #expect(offered.stdout.contains("Interrupted running workout"), "\(offered.transcript)")
        let finished = try Tool.run(["recover", "--finish", "--store", store])
        #expect(finished.status == 0 && finished.stdout.contains("Saved as workout"), "\(finished.transcript)")
        let listed = try Tool.run(["list", "--store", store]).stdout.split(separator: "\n")
        #expect(listed.count == 2 && listed[1].contains("running"), "\(listed)")
        #expect(try Tool.run(["recover", "--store", store]).stdout.contains("Interrupted") == false)
    }
}
