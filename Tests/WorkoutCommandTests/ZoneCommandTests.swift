import Foundation
import Testing

/// `workout profile` and `workout zones`: the person's zones, set and shown.
@Suite(.timeLimit(.minutes(1))) struct ZoneCommandTests {
    @Test func profileAndZonesCommands() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("zones.sqlite")
        let empty = try Tool.run(["zones", "--store", path])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("Heart rate zones (system, count/min):\n  zone 1  below 136.8\n  zone 2  136.8 to 147.6"))
        #expect(empty.stdout.contains("Cycling power zones: none"))
        let profile = try Tool.run(["profile", "--store", path, "--resting-heart-rate", "60", "--maximum-heart-rate", "190", "--ftp", "300"])
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(profile.stdout.contains("resting heart rate   60 count/min"))
        #expect(profile.stdout.contains("FTP                  300 W"))
        let zones = try Tool.run(["zones", "--store", path])
        #expect(zones.stdout.contains("zone 1  below 138\n"))           // 60 + 60 % of 130
        #expect(zones.stdout.contains("zone 6  360 and above"))         // 120 % of 300 W
        let own = try Tool.run(["zones", "--store", path, "--type", "cycling-power", "--set", "150, 220,280"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout == "Cycling power zones (the person's own, W):\n  zone 1  below 150\n  zone 2  150 to 220\n  zone 3  220 to 280\n  zone 4  280 and above\n")
        let cleared = try Tool.run(["zones", "--store", path, "--type", "cycling-power", "--clear"])
        #expect(cleared.stdout.hasPrefix("Cycling power zones (system, W):\n  zone 1  below 165\n"))   // 55 % of 300 W
        for (arguments, message) in [
            (["zones", "--type", "cycling-power", "--set", "300,200"], "Zone boundaries must be strictly ascending; boundary 2 (200.0 W) is not above boundary 1 (300.0 W).\n"),
            (["zones", "--type", "speed"], "The zone type 'speed' is neither heart-rate nor cycling-power.\n"),
            (["profile", "--born", "1990-02-30"], "The date of birth must be a valid date (year, month, day) in the past.\n"),
        ] {
            let result = try Tool.run(arguments + ["--store", path])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "workout: " + message)
        }
    }
}
