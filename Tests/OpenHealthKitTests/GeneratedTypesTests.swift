import FitnessSensors
import Foundation
import Testing

@testable import OpenHealthKit

/// `HKLiveWorkoutDataSource.currentCollectedTypes` and `collectsGeneratedTypes` (issue 38): what the data source
/// collects now from the sensors it has, and whether it collects what it computes from other measures.
extension LiveWorkoutTests {
    @Test func currentCollectedTypesAreWhatTheSensorsGiveOfTypesToCollect() async throws {
        let rig = try await rig(.cycling)
        let types: [HKQuantityTypeIdentifier] = [
            .heartRate, .cyclingPower, .activeEnergyBurned, .cyclingCadence, .cyclingSpeed, .distanceCycling,
        ]
        // A strap and a power meter (power, cadence, speed, distance): not basal energy, which no sensor measures.
        #expect(rig.dataSource.typesToCollect.contains(HKQuantityType(.basalEnergyBurned)))
        #expect(rig.dataSource.currentCollectedTypes == Set(types.map { HKQuantityType($0) }))
        rig.dataSource.disableCollection(for: HKQuantityType(.cyclingCadence))
        #expect(!rig.dataSource.currentCollectedTypes.contains(HKQuantityType(.cyclingCadence)))
        rig.dataSource.collectsGeneratedTypes = false
        #expect(!rig.dataSource.collectsGeneratedTypes)
        #expect(!rig.dataSource.currentCollectedTypes.contains(HKQuantityType(.activeEnergyBurned)))
        #expect(rig.dataSource.currentCollectedTypes.contains(HKQuantityType(.cyclingPower)))
        // A data source with no sensor collects nothing yet.
        let bare = HKLiveWorkoutDataSource(healthStore: rig.store, workoutConfiguration: configuration(.running))
        #expect(bare.collectsGeneratedTypes && bare.currentCollectedTypes.isEmpty)
    }

    /// 200 W held from 1 s to 3 s is 400 J of work, counted as 0.4 kcal burned (`PowerEnergy`): collected while
    /// generated types are, and not at all once they are not; the power samples themselves stay.
    @Test func turningGeneratedTypesOffDropsEnergyFromPower() async throws {
        for generated in [true, false] {
            let rig = try await rig(.cycling)
            rig.dataSource.collectsGeneratedTypes = generated
            rig.session.startActivity(with: t0)
            try await rig.builder.beginCollection(at: t0)
            for second in 1 ... 3 { rig.tick(second, bpm: 120, watts: 200) }
            try await rig.builder.endCollection(at: t0 + 10)
            let workout = try #require(try await rig.builder.finishWorkout())
            let energy = workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()
            if generated {
                #expect(abs((energy?.doubleValue(for: .kilocalorie()) ?? 0) - 0.4) < 1e-9)
            } else {
                #expect(energy == nil)
                #expect(try await fetch(rig.store, HKQuantityType(.activeEnergyBurned), nil).isEmpty)
            }
            #expect(try await fetch(rig.store, HKQuantityType(.cyclingPower), nil).count == 3)
        }
    }
}
