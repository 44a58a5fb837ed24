// Apple's article "Data types":
// https://developer.apple.com/documentation/healthkit/data-types
//
// Its one listing. Changed for Linux: `import HealthKit` is `import OpenHealthKit`.
import OpenHealthKit
import Testing

@Suite struct DataTypesTests {
    @Test func typeObjectsFromTheirIdentifiers() {
        let bloodType = HKObjectType.characteristicType(forIdentifier: .bloodType)

        let caloriesConsumed = HKObjectType.quantityType(forIdentifier: .dietaryEnergyConsumed)

        let sleepAnalysis = HKObjectType.categoryType(forIdentifier: .sleepAnalysis)

        #expect(bloodType?.identifier == "HKCharacteristicTypeIdentifierBloodType")
        #expect(caloriesConsumed?.identifier == "HKQuantityTypeIdentifierDietaryEnergyConsumed")
        #expect(caloriesConsumed?.aggregationStyle == .cumulative)
        #expect(caloriesConsumed?.is(compatibleWith: .kilocalorie()) == true)
        #expect(sleepAnalysis == HKCategoryType(.sleepAnalysis))
    }
}
