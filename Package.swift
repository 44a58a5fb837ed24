// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "OpenHealthKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenHealthKit", targets: ["OpenHealthKit"]),
        .library(name: "ByteCoding", targets: ["ByteCoding"]),
        .library(name: "FITFile", targets: ["FITFile"]),
        .library(name: "FitnessSensors", targets: ["FitnessSensors"]),
        .library(name: "BluetoothLE", targets: ["BluetoothLE"]),
        .library(name: "UnixSockets", targets: ["UnixSockets"]),
        .library(name: "BlueZTransport", targets: ["BlueZTransport"]),
        .library(name: "BlueZDBus", targets: ["BlueZDBus"]),
        .library(name: "OpenHealthKitTesting", targets: ["OpenHealthKitTesting"]),
        .library(name: "FixtureSynthesis", targets: ["FixtureSynthesis"]),
        .executable(name: "workout", targets: ["workout"]),
        .library(name: "OpenWorkoutKit", targets: ["OpenWorkoutKit"]),
    ],
    // `BlueZ` (on by default): the HealthKit API reaches paired Bluetooth sensors through BlueZ, so an app that only
    // changed `import HealthKit` to `import OpenHealthKit` records from its straps. It needs libbluetooth-dev and
    // libudev-dev to build. A package that only replays fixtures or uses the store turns it off
    // (`.package(url: …, from: …, traits: [])`) and builds with Swift alone. ARCHITECTURE.md says why a trait.
    traits: [
        .trait(
            name: "BlueZ",
            description: "Reach paired Bluetooth LE sensors through BlueZ (needs libbluetooth-dev, libudev-dev)."),
        .default(enabledTraits: ["BlueZ"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // `swift package generate-documentation`: the DocC catalogs of OpenHealthKit, OpenHealthKitTesting, BluetoothLE.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The live view served to a browser (`--serve`, issue 34): WorkoutWeb only, never OpenHealthKit.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The health store on PostgreSQL (issue 35): OpenHealthKit's second StoreBackend.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // Bounds-checked byte reading and writing and the decode error every codec throws. Foundation only.
        .target(name: "ByteCoding"),
        // The FIT file codec: headers, definitions, compressed timestamps, developer data, CRCs, the activity profile.
        .target(name: "FITFile", dependencies: ["ByteCoding"]),
        // Pure values and logic for fitness sensors: readings and GATT profile decoders. Foundation only.
        .target(name: "FitnessSensors", dependencies: ["ByteCoding"]),
        // Pure Bluetooth LE protocol: ATT PDUs, GATT client/server, HCI commands and events, advertising data.
        .target(name: "BluetoothLE", dependencies: ["ByteCoding"]),
        // BlueZ's libbluetooth (HCI device sockets, LE scan commands) and libudev, wrapped as GRDB wraps SQLite.
        .systemLibrary(name: "CBlueZ", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CUdev", providers: [.apt(["libudev-dev"])]),
        // libsystemd's sd-bus: the D-Bus client BlueZDBus speaks to bluetoothd with.
        .systemLibrary(name: "CSystemd", providers: [.apt(["libsystemd-dev"])]),
        // eventfd, which Swift's Glibc module does not show.
        .target(name: "CUnixSockets"),
        // Non-blocking sockets that can be awaited and woken, and AF_UNIX listeners and streams: what mirroring's byte
        // stream and the simulated peripherals run over. Glibc only: no Bluetooth.
        .target(
            name: "UnixSockets",
            dependencies: ["CUnixSockets", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Raw Bluetooth: L2CAP/HCI/management sockets, udev adapters, BLE sensors, simulated peripherals.
        .target(
            name: "BlueZTransport",
            dependencies: [
                "FitnessSensors", "BluetoothLE", "UnixSockets", "CBlueZ", "CUdev",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // bluetoothd's D-Bus API (sd-bus): discovery, Device1.Connect, AcquireNotify, pairing through an agent, as
        // Sensors; the default `ble:` path wherever bluetoothd runs (issue 24).
        .target(
            name: "BlueZDBus",
            dependencies: [
                "FitnessSensors", "BluetoothLE", "UnixSockets", "BlueZTransport", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Apple's HealthKit values and objects: units, types, samples, workouts, events, statistics, zones, errors, and
        // their archiving. Foundation only; `OpenHealthKit` re-exports it.
        .target(name: "HealthKitModel"),
        // The recording engine: the session state machine, the recording core and its one `apply`, the rule of each
        // figure (statistics, pauses, laps, holds, normalized power, cadence), zones, the series and journal codecs.
        // Pure and time-injected: no store, no Dispatch, no transport; `OpenHealthKit` re-exports it.
        .target(name: "WorkoutEngine", dependencies: ["HealthKitModel", "ByteCoding", "FitnessSensors"]),
        // The HealthKit-compatible public API and the SQLite store. Bluetooth only with the `BlueZ` trait.
        .target(
            name: "OpenHealthKit",
            dependencies: [
                "HealthKitModel", "WorkoutEngine", "ByteCoding", "FitnessSensors", "UnixSockets",
                .target(name: "BlueZTransport", condition: .when(traits: ["BlueZ"])),
                .target(name: "BlueZDBus", condition: .when(traits: ["BlueZ"])),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Workouts from files (FIT, TCX) saved through HKWorkoutBuilder, as an app would.
        .target(name: "WorkoutImport", dependencies: ["OpenHealthKit", "FITFile", "ByteCoding", "FitnessSensors"]),
        // Apple's WorkoutKit (issue 33): workout plans, `.workout` files byte for byte, the scheduler.
        .target(name: "OpenWorkoutKit", dependencies: ["OpenHealthKit", "ByteCoding"]),
        // Plan files to and from WorkoutKit's WorkoutPlan: Zwift .zwo, .erg/.mrc, FIT workouts.
        .target(name: "WorkoutPlanFiles", dependencies: ["OpenWorkoutKit", "OpenHealthKit", "FITFile", "ByteCoding"]),
        // Export to FIT, TCX and GPX (issue 17).
        .target(name: "WorkoutExport", dependencies: ["OpenHealthKit", "FITFile"]),
        // The `workout` tool: its commands in a library, run by the shipping executable on the machine's clocks and
        // by a test-only build of the tool on stepped time (Tests/SteppedWorkoutHelper, see CommandTime.swift).
        .target(
            name: "WorkoutCommands",
            dependencies: [
                "OpenHealthKit", "FitnessSensors", "BluetoothLE", "BlueZTransport", "BlueZDBus", "WorkoutImport",
                "WorkoutExport", "OpenWorkoutKit", "WorkoutPlanFiles", "WorkoutWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The live view in a browser (`--serve`): a page, its JSON and Server-Sent Events, control requests, the token.
        // Hummingbird stays here, linked by the tool, never by OpenHealthKit.
        .target(
            name: "WorkoutWeb",
            dependencies: [
                "OpenHealthKit", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "workout",
            dependencies: ["WorkoutCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "SteppedWorkoutHelper",
            dependencies: [
                "WorkoutCommands", "OpenHealthKit", "FitnessSensors", "OpenHealthKitTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/SteppedWorkoutHelper"
        ),
        // Reproducible physiological models that write the fixtures in fixtures/ (and the benchmark's).
        .target(name: "FixtureSynthesis", dependencies: ["FitnessSensors", "WorkoutEngine"]),
        .executableTarget(
            name: "FixtureGenerator",
            dependencies: ["FixtureSynthesis", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/FixtureGenerator"
        ),
        .executableTarget(
            name: "ReplayBenchmark",
            dependencies: [
                "OpenHealthKit", "FitnessSensors", "FixtureSynthesis",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Benchmarks/ReplayBenchmark"
        ),
        .executableTarget(
            name: "SeriesBenchmark",
            dependencies: [
                "OpenHealthKit", "FITFile",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/SeriesBenchmark"
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: [
                "OpenHealthKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/StoreBenchmark"
        ),
        .executableTarget(
            name: "PostgresBenchmark",
            dependencies: [
                "OpenHealthKit", "FitnessSensors", "WorkoutEngine", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/PostgresBenchmark"
        ),
        .executableTarget(
            name: "LiveBenchmark",
            dependencies: ["OpenHealthKit", "FitnessSensors"],
            path: "Benchmarks/LiveBenchmark"
        ),
        .executableTarget(
            name: "PlanRideBenchmark",
            dependencies: ["OpenHealthKit", "OpenHealthKitTesting", "OpenWorkoutKit", "FitnessSensors"],
            path: "Benchmarks/PlanRideBenchmark"
        ),
        // The live view in browsers, end to end with the release `workout` binary (build it first).
        .executableTarget(
            name: "LiveWebBenchmark",
            dependencies: ["BlueZTransport", "BluetoothLE", "FitnessSensors", "FixtureSynthesis", "UnixSockets"],
            path: "Benchmarks/LiveWebBenchmark"
        ),
        .executableTarget(
            name: "ZoneBenchmark",
            dependencies: ["OpenHealthKit"],
            path: "Benchmarks/ZoneBenchmark"
        ),
        .executableTarget(
            name: "FITBenchmark",
            dependencies: ["FITFile"],
            path: "Benchmarks/FITBenchmark"
        ),
        .executableTarget(
            name: "BLEBenchmark",
            dependencies: ["FitnessSensors", "BluetoothLE", "BlueZTransport"],
            path: "Benchmarks/BLEBenchmark"
        ),
        // From a sensor's notification to the builder's delegate, in the real-stack test's VM.
        .executableTarget(
            name: "BluetoothLatency",
            dependencies: ["OpenHealthKit", "FitnessSensors", "BlueZDBus"],
            path: "Benchmarks/BluetoothLatency"
        ),
        // A live workout that runs until killed, for the crash-safety test.
        .executableTarget(
            name: "SessionCrashHelper",
            dependencies: ["OpenHealthKit", "FitnessSensors", "OpenHealthKitTesting"],
            path: "Tests/SessionCrashHelper"
        ),
        // A companion store in its own process, for the mirroring test.
        .executableTarget(
            name: "MirrorCompanionHelper",
            dependencies: ["OpenHealthKit"],
            path: "Tests/MirrorCompanionHelper"
        ),
        .testTarget(
            name: "OpenHealthKitTests",
            dependencies: [
                "OpenHealthKit", "TestSupport", "OpenWorkoutKit",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        // Apple's HealthKit articles, their code compiled with only `import HealthKit` changed; one file per article.
        .testTarget(
            name: "AppleArticleTests", dependencies: ["OpenHealthKit", "OpenHealthKitTesting", "FitnessSensors"]),
        .testTarget(name: "FitnessSensorsTests", dependencies: ["ByteCoding", "FitnessSensors", "TestSupport"]),
        .testTarget(name: "ByteCodingTests", dependencies: ["ByteCoding"]),
        .testTarget(name: "FITFileTests", dependencies: ["ByteCoding", "FITFile", "TestSupport"], exclude: ["Oracle"]),
        .testTarget(
            name: "WorkoutImportTests",
            dependencies: ["WorkoutImport", "FITFile", "OpenHealthKit", "FitnessSensors", "TestSupport"]),
        .testTarget(
            name: "WorkoutExportTests",
            dependencies: [
                "WorkoutExport", "WorkoutImport", "FITFile", "OpenHealthKit",
                "OpenHealthKitTesting", "FitnessSensors", "TestSupport",
            ]),
        .testTarget(name: "ReplayTests", dependencies: ["OpenHealthKit", "FitnessSensors", "FixtureSynthesis"]),
        // What other packages' tests import: a test clock, stores for tests, delegate calls as async sequences,
        // stepped fixture replay, scripted-sensor conveniences.
        .target(name: "OpenHealthKitTesting", dependencies: ["OpenHealthKit", "FitnessSensors"]),
        // Test helpers shared by the project's own test targets (hex, a seeded generator, the kit's clock, the FIT
        // files the import tests make, the independent FIT and XML readers the export tests check against).
        .target(
            name: "TestSupport", dependencies: ["OpenHealthKitTesting", "FITFile", "TestRunReaper"],
            path: "Tests/TestSupport"),
        // Before main, forks the process that kills what a test process started once it is gone (a crash included),
        // so that a daemon holding its standard error cannot keep `swift test` waiting (TestRunReaper.c).
        .target(name: "TestRunReaper", path: "Tests/TestRunReaper"),
        .testTarget(
            name: "OpenHealthKitTestingTests",
            dependencies: ["OpenHealthKitTesting", "OpenHealthKit", "FitnessSensors", "FixtureSynthesis"]),
        .testTarget(name: "BluetoothLETests", dependencies: ["ByteCoding", "BluetoothLE", "TestSupport"]),
        // The `workout` tool: its views on a virtual clock, and the built tool run in child processes (whole transcripts).
        .testTarget(
            name: "WorkoutCommandTests",
            dependencies: [
                "workout", "SteppedWorkoutHelper", "WorkoutCommands", "OpenHealthKit", "FitnessSensors",
                "BlueZTransport", "FITFile", "TestSupport", "WorkoutWeb",
            ]
        ),
        .testTarget(
            name: "BlueZTransportTests",
            dependencies: [
                "BlueZTransport", "BluetoothLE", "FitnessSensors", "TestSupport", "OpenHealthKit",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            exclude: ["Fixtures"]
        ),
        // OpenWorkoutKit: .workout files against Apple's samples, the scheduler and plans in the store.
        .testTarget(
            name: "OpenWorkoutKitTests",
            dependencies: [
                "OpenWorkoutKit", "WorkoutPlanFiles", "OpenHealthKit", "OpenHealthKitTesting", "ByteCoding",
                "TestSupport",
            ],
            exclude: ["Fixtures"]
        ),
        // bluetoothd's D-Bus API over a private dbus-daemon, with python-dbusmock's bluez5 template and a GATT of ours.
        .testTarget(
            name: "BlueZDBusTests",
            dependencies: [
                "BlueZDBus", "BlueZTransport", "UnixSockets", "BluetoothLE", "FitnessSensors", "TestSupport",
                "OpenHealthKit",
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
