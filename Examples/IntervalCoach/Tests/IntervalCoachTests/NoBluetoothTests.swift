import Foundation
import Testing

/// With OpenHealthKit's Bluetooth turned off (`traits: []` in Package.swift), nothing of BlueZ is linked: the tests'
/// own process has no Bluetooth, udev or systemd library mapped. CI also builds this package where the `-dev`
/// packages are not installed (`.ci/run`).
@Suite struct NoBluetoothTests {
    @Test func noBluetoothLibraryIsLoaded() throws {
        // procfs files have no size, so read to the end rather than by the size stat gives.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let libraries = Set(
            maps.split(separator: "\n").compactMap { line in
                line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
            }.filter { $0.hasPrefix("/") })
        #expect(
            libraries.contains { $0.contains("libswiftCore") },
            "the maps list this process's libraries")
        let bluetooth = libraries.filter {
            $0.contains("libbluetooth") || $0.contains("libudev") || $0.contains("libsystemd")
        }
        #expect(bluetooth.isEmpty, "linked: \(bluetooth.sorted())")
    }
}
