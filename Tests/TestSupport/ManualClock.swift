import OpenHealthKitTesting

/// The project's own tests name the testing kit's clock as they always have.
public typealias ManualClock = TestClock
