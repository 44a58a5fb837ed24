import FitnessSensors
import Foundation
import Synchronization
import Testing

@testable import OpenHealthKit

/// A sensor both paired with the store and attached to the data source (`workout record --sensor` naming a paired
/// strap) is connected once: the attached one stands for it, and the other paired sensors are connected as always.
@Suite(.timeLimit(.minutes(1))) struct PairedAndAttachedSensorTests {
    @Test func aPairedSensorThatIsAlsoAttachedIsConnectedOnce() async throws {
        let (store, _) = try await liveStore()
        let asked = Mutex<[String]>([])
        store.sensorConnector = SensorConnector(schemes: ["test"]) { paired in
            asked.withLock { $0.append(paired.identifier) }
            return ScriptedSensor(identifier: paired.identifier, name: paired.name, capabilities: paired.capabilities)
        }
        try await store.pairSensor(PairedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap))
        try await store.pairSensor(PairedSensor(identifier: "test:meter", name: "Meter", capabilities: .powerMeter))
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration(.cycling))
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration(.cycling))
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        source.attach(strap)
        builder.dataSource = source
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        #expect(asked.withLock { $0 } == ["test:meter"])
        #expect(source.sensors.map(\.identifier) == ["test:strap", "test:meter"])
        #expect(source.sensors.first === strap)
        session.end()
        try await builder.endCollection(at: t0 + 1)
    }
}
