import Foundation
import Testing

@testable import BlueZTransport

/// bluetoothd's `[LE]` connection parameters read from sample `main.conf` files.
@Suite struct LEConnectionConfigurationTests {
    /// The `[LE]` part of BlueZ's shipped `src/main.conf`: every key commented out.
    static let shipped = """
        [General]
        #Name = BlueZ
        [LE]
        # LE default connection parameters.  These values are superseded by any
        # specific values provided via the Load Connection Parameters interface
        #MinConnectionInterval=
        #MaxConnectionInterval=
        #ConnectionLatency=
        #ConnectionSupervisionTimeout=
        #Autoconnecttimeout=
        """

    @Test func aMissingFileOrCommentedKeysAreTheKernelsDefaults() {
        for text in ["", Self.shipped] {
            let configuration = LEConnectionConfiguration(parsing: text)
            #expect(configuration.maximumInterval == nil && configuration.supervisionTimeout == nil)
            #expect(configuration.effectiveMaximumInterval == 0x0028, "50 ms")
            #expect(configuration.effectiveSupervisionTimeout == 0x002A, "420 ms")
            #expect(!configuration.acceptsStrapIntervals && !configuration.hasPhoneLikeSupervisionTimeout)
            #expect(configuration.problems.isEmpty)
        }
    }

    @Test func theLinesDoctorPrintsAreAccepted() {
        let configuration = LEConnectionConfiguration(
            parsing: Self.shipped + """

                MaxConnectionInterval=520
                ConnectionSupervisionTimeout = 500
                """)
        #expect(configuration.maximumInterval == 520 && configuration.supervisionTimeout == 500)
        #expect(configuration.acceptsStrapIntervals && configuration.hasPhoneLikeSupervisionTimeout)
        // 520 × 1.25 ms = 650 ms; 500 × 10 ms = 5 s.
        #expect(LEConnectionConfiguration.intervalMilliseconds(520) == "650 ms")
        #expect(LEConnectionConfiguration.timeoutMilliseconds(500) == "5 s")
        #expect(LEConnectionConfiguration.intervalMilliseconds(0x0018) == "30 ms")
        #expect(LEConnectionConfiguration.intervalMilliseconds(7) == "8.75 ms")
    }

    @Test func valuesAreReadAsStrtolReadsThemAndOnlyInTheLEGroup() {
        // strtol base 0: 0x208 = 520, 01000 (octal) = 512; the last of repeated keys counts; the
        // same key in another group is not the LE one.
        let configuration = LEConnectionConfiguration(
            parsing: """
                [BR]
                MaxConnectionInterval=9
                [LE]
                MaxConnectionInterval=100
                MaxConnectionInterval=0x208
                ConnectionSupervisionTimeout=01000
                [GATT]
                ConnectionSupervisionTimeout=10
                """)
        #expect(configuration.maximumInterval == 520)
        #expect(configuration.supervisionTimeout == 512)
    }

    @Test func badValuesAreIgnoredAsBluetoothdIgnoresThemAndSaidSo() {
        let configuration = LEConnectionConfiguration(
            parsing: """
                [LE]
                MaxConnectionInterval=650ms
                ConnectionSupervisionTimeout=5
                """)
        #expect(configuration.maximumInterval == nil && configuration.supervisionTimeout == nil)
        #expect(
            configuration.problems == [
                "MaxConnectionInterval=650ms is not an integer, so bluetoothd ignores it",
                "ConnectionSupervisionTimeout=5 is outside 10–3200, so bluetoothd ignores it",
            ])
        #expect(configuration.effectiveMaximumInterval == 0x0028)
        #expect(LEConnectionConfiguration(parsing: "[LE]\nMaxConnectionInterval=3201").problems.count == 1)
        #expect(LEConnectionConfiguration(parsing: "[LE]\nMaxConnectionInterval=").problems.count == 1)
    }

    @Test func theSnapshotReadsTheFileAtThePathGiven() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("main-\(UUID().uuidString).conf")
        try "[LE]\nMaxConnectionInterval=520\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let snapshot = SystemSnapshot.gather(
            storePath: "/dev/shm/none.sqlite", pairedIdentifiers: [],
            mainConfigurationPath: file.path)
        #expect(snapshot.leConnection.maximumInterval == 520)
        #expect(snapshot.mainConfigurationPath == file.path)
        let missing = SystemSnapshot.gather(
            storePath: "/dev/shm/none.sqlite", pairedIdentifiers: [],
            mainConfigurationPath: file.path + ".missing")
        #expect(missing.leConnection == LEConnectionConfiguration())
    }
}
