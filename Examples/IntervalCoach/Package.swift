// swift-tools-version:6.0
// An app's workout logic, tested on Linux with OpenHealthKit's testing kit: a downstream package that depends on
// OpenHealthKit by path, as yours would by URL.
import PackageDescription

let package = Package(
    name: "IntervalCoach",
    platforms: [.macOS(.v15)],
    products: [.library(name: "IntervalCoach", targets: ["IntervalCoach"])],
    dependencies: [.package(name: "OpenHealthKit", path: "../..")],
    targets: [
        .target(name: "IntervalCoach", dependencies: [.product(name: "OpenHealthKit", package: "OpenHealthKit")]),
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
