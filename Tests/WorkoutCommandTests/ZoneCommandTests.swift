import Foundation
import Testing

/// `workout profile` and `workout zones`: the person's zones, set and shown.
@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct ZoneCommandTests {
    @Test func profileAndZonesCommands() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("zones.sqlite")
        // A new store: the system heart-rate zones from resting 72 and maximum 180 (72 + 0.6/0.7/0.8/0.9 × 108);
        // no power zones without an FTP.
        let empty = try Tool.run(["zones", "--store", path])
        #expect(
            empty.transcript == """
                Heart rate zones (system, bpm):
                  Z1  < 137     (below 136.8)
                  Z2  137–147   (136.8 to 147.6)
                  Z3  148–158   (147.6 to 158.4)
                  Z4  159–169   (158.4 to 169.2)
                  Z5  ≥ 170     (169.2 and above)
                Cycling power zones: none (set an FTP with `workout profile --ftp WATTS`, or zones with --set).

                """)
        let profile = try Tool.run([
            "profile", "--store", path, "--resting-heart-rate", "60", "--maximum-heart-rate", "190", "--ftp", "300",
        ])
        #expect(
            profile.transcript == """
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
              Z1  < 165     (below 165)
              Z2  165–224   (165 to 225)
              Z3  225–269   (225 to 270)
              Z4  270–314   (270 to 315)
              Z5  315–359   (315 to 360)
              Z6  ≥ 360     (360 and above)

            """
        #expect(
            zones.transcript == """
                Heart rate zones (system, bpm):
                  Z1  < 138     (below 138)
                  Z2  138–150   (138 to 151)
                  Z3  151–163   (151 to 164)
                  Z4  164–176   (164 to 177)
                  Z5  ≥ 177     (177 and above)

                """ + systemPower)
        let own = try Tool.run(["zones", "--store", path, "--type", "cycling-power", "--set", "150, 220,280"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(
            own.stdout == """
                Cycling power zones (the person's own, W):
                  Z1  < 150     (below 150)
                  Z2  150–219   (150 to 220)
                  Z3  220–279   (220 to 280)
                  Z4  ≥ 280     (280 and above)

                """)
        let cleared = try Tool.run(["zones", "--store", path, "--type", "cycling-power", "--clear"])
        #expect(cleared.transcript == systemPower)
        for (arguments, message) in [
            (
                ["zones", "--type", "cycling-power", "--set", "300,200"],
                "Zone boundaries must be strictly ascending; boundary 2 (200 W) is not above boundary 1 (300 W).\n"
            ),
            (["zones", "--type", "speed"], "The zone type 'speed' is neither heart-rate nor cycling-power.\n"),
            (
                ["profile", "--born", "1990-02-30"],
                "The date of birth must be a valid date (year, month, day) in the past.\n"
            ),
        ] {
            let result = try Tool.run(arguments + ["--store", path])
            #expect(result.transcript == "--- stderr\nworkout: " + message + "--- exit 1\n", "\(arguments)")
        }
    }
}
