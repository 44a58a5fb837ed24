import Foundation
import Testing

/// `workout profile` and `workout zones`: the person's zones, set and shown.
@Suite(.timeLimit(.minutes(1))) struct ZoneCommandTests {
    @Test func profileAndZonesCommands() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("zones.sqlite")
        // A new store: the system heart-rate zones from resting 72 and maximum 180 (72 + 0.6/0.7/0.8/0.9 × 108);
        // no power zones without an FTP.
        let empty = try Tool.run(["zones", "--store", path])
        #expect(empty.transcript == """
            Heart rate zones (system, bpm):
              zone 1  below 136.8
              zone 2  136.8 to 147.6
              zone 3  147.6 to 158.4
              zone 4  158.4 to 169.2
              zone 5  169.2 and above
            Cycling power zones: none (set an FTP with `workout profile --ftp WATTS`, or zones with --set).

            """)
        let profile = try Tool.run(["profile", "--store", path, "--resting-heart-rate", "60", "--maximum-heart-rate", "190", "--ftp", "300"])
        #expect(profile.transcript == """
            date of birth        not set
            resting heart rate   60 bpm
            maximum heart rate   190 bpm
            FTP                  300 W
            move goal            400 kcal (default)
            exercise goal        30 min (default)
            stand goal           12 hours (default)

            """)
        // Heart rate: 60 + 0.6/0.7/0.8/0.9 × 130 = 138/151/164/177; power: 55/75/90/105/120 % of 300 W.
        let zones = try Tool.run(["zones", "--store", path])
        let systemPower = """
            Cycling power zones (system, W):
              zone 1  below 165
              zone 2  165 to 225
              zone 3  225 to 270
              zone 4  270 to 315
              zone 5  315 to 360
              zone 6  360 and above

            """
        #expect(zones.transcript == """
            Heart rate zones (system, bpm):
              zone 1  below 138
              zone 2  138 to 151
              zone 3  151 to 164
              zone 4  164 to 177
              zone 5  177 and above

            """ + systemPower)
        let own = try Tool.run(["zones", "--store", path, "--type", "cycling-power", "--set", "150, 220,280"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout == "Cycling power zones (the person's own, W):\n  zone 1  below 150\n  zone 2  150 to 220\n  zone 3  220 to 280\n  zone 4  280 and above\n")
        let cleared = try Tool.run(["zones", "--store", path, "--type", "cycling-power", "--clear"])
        #expect(cleared.transcript == systemPower)
        for (arguments, message) in [
            (["zones", "--type", "cycling-power", "--set", "300,200"], "Zone boundaries must be strictly ascending; boundary 2 (200.0 W) is not above boundary 1 (300.0 W).\n"),
            (["zones", "--type", "speed"], "The zone type 'speed' is neither heart-rate nor cycling-power.\n"),
            (["profile", "--born", "1990-02-30"], "The date of birth must be a valid date (year, month, day) in the past.\n"),
        ] {
            let result = try Tool.run(arguments + ["--store", path])
            #expect(result.transcript == "--- stderr\nworkout: " + message + "--- exit 1\n", "\(arguments)")
        }
    }
}
