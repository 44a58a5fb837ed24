// swift-tools-version:6.1
// An app's workout logic, tested on Linux with OpenHealthKit's testing kit: a downstream package that depends on
// OpenHealthKit by path, as yours would by URL. The app imports HealthKit on Apple's systems and OpenHealthKit
// elsewhere; its tests replay fixtures, so it turns OpenHealthKit's Bluetooth off (`traits: []`) and builds with
// Swift alone: no libbluetooth-dev, no libudev-dev, and neither library linked.
import PackageDescription

let package = Package(
    name: "IntervalCoach",
    platforms: [.macOS(.v15)],
    products: [.library(name: "IntervalCoach", targets: ["IntervalCoach"])],
    dependencies: [.package(name: "OpenHealthKit", path: "../..", traits: [])],
    targets: [
        // On Apple's systems the app uses HealthKit itself; OpenHealthKit is only linked where HealthKit does not exist.
        .target(
            name: "IntervalCoach",
            dependencies: [
                .product(name: "OpenHealthKit", package: "OpenHealthKit", condition: .when(platforms: [.linux]))
            ]
        ),
        .testTarget(
            name: "IntervalCoachTests",
            dependencies: [
                "IntervalCoach",
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "OpenHealthKitTesting", package: "OpenHealthKit"),
                .product(name: "FixtureSynthesis", package: "OpenHealthKit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
