import ArgumentParser
import Foundation
import OpenHealthKit

extension Workout {
    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share your PostgreSQL store, read-only, with another person (a coach), or list the shares.",
            discussion: """
                Nothing is shared by default. `workout share READER` lets the server's role READER read your \
                whole store; READER opens it with person=YOU in the store's URL, and can save or delete nothing \
                in it. `--stop` ends the share at once. Without READER it lists the shares you made and the ones \
                made with you. A SQLite store is one person's file: copy workouts into a shared server with \
                workout sync.

                Examples:
                  workout share coach --store postgres://alice@db.example/health
                  workout list --store 'postgres://coach@db.example/health?person=alice'
                """
        )

        @OptionGroup var options: StoreOptions
        @Argument(help: ArgumentHelp("The role to share with.", valueName: "READER")) var reader: String?
        @Flag(help: "End the share with READER.") var stop = false

        func validate() throws {
            if stop, reader == nil { throw ValidationError("--stop needs the READER whose share ends.") }
        }

        func run() async throws {
            try await reportingErrors {
                let store = try await options.open()
                let name = store.databasePath ?? options.store ?? ""
                guard let reader else {
                    print(Self.listing(try await store.storeShares(), storeName: name), terminator: "")
                    return
                }
                if stop {
                    let ended = try await store.stopSharingStore(withReader: reader)
                    print(
                        ended
                            ? "Stopped sharing your health store with \(reader)." : "It was not shared with \(reader).")
                } else {
                    try await store.shareStore(withReader: reader)
                    print("Shared your health store with \(reader), read-only: \(reader) opens it as")
                    print("  \(Self.readersURL(name, reader: reader))")
                }
            }
        }

        /// The shares, as the person reads them: made by them, then made with them.
        static func listing(_ shares: [StoreShare], storeName: String) -> String {
            let me = URLComponents(string: storeName)?.user
            let made = shares.filter { $0.owner == me }
            let withMe = shares.filter { $0.reader == me }
            var text =
                made.isEmpty ? "Your health store is shared with nobody.\n" : "Your health store is shared with:\n"
            for share in made { text += "  " + pad(share.reader, 20) + "since " + Format.date(share.date) + "\n" }
            if !withMe.isEmpty {
                text += "Shared with you (open with person=NAME in the store's URL):\n"
                for share in withMe { text += "  " + pad(share.owner, 20) + "since " + Format.date(share.date) + "\n" }
            }
            return text
        }

        /// The store's URL as `reader` names it to read this person's store (no password).
        static func readersURL(_ storeName: String, reader: String) -> String {
            guard var components = URLComponents(string: storeName), let owner = components.user else {
                return storeName
            }
            components.user = reader
            components.queryItems = [URLQueryItem(name: "person", value: owner)]
            return components.string ?? storeName
        }
    }
}
