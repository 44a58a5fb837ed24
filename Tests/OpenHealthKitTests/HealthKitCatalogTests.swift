import Foundation
import Testing

@testable import OpenHealthKit

/// HealthKit's whole type catalogue (issue 38): the list read from the SDK headers
/// (`Fixtures/HealthKitCatalog.txt`, by `scripts/healthkit-catalog/extract.py`) against the compiled code, and the
/// store taking every type: quantity samples aggregated by their style, category samples checked against their
/// value enumeration, the required metadata keys.
@Suite(.timeLimit(.minutes(1))) struct HealthKitCatalogTests {
    struct Entry {
        var kind, raw, swift, style, unit, storage, values, availability: String
    }

    static func entries() throws -> [Entry] {
        let url = SymbolGraph.root.appendingPathComponent("Tests/OpenHealthKitTests/Fixtures/HealthKitCatalog.txt")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == 8 else { return nil }
            return Entry(
                kind: cells[0], raw: cells[1], swift: cells[2], style: cells[3], unit: cells[4], storage: cells[5],
                values: cells[6], availability: cells[7])
        }
    }

    static let identifierTypes = [
        "quantity": "HKQuantityTypeIdentifier", "category": "HKCategoryTypeIdentifier",
        "characteristic": "HKCharacteristicTypeIdentifier", "correlation": "HKCorrelationTypeIdentifier",
        "document": "HKDocumentTypeIdentifier", "scoredAssessment": "HKScoredAssessmentTypeIdentifier",
        "clinical": "HKClinicalTypeIdentifier",
    ]

    /// The raw values of an enumeration's line (`none=5!` is a deprecated case, `asleep=>asleepUnspecified` an alias).
    static func cases(_ values: String) -> [(name: String, value: Int)] {
        values.split(separator: ",").compactMap { item in
            guard !item.contains("=>") else { return nil }
            let parts = item.split(separator: "=")
            return (String(parts[0]), Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "!")))!)
        }
    }

    @Test func theListHoldsTheWholeCatalogue() throws {
        let entries = try Self.entries()
        let counts = Dictionary(grouping: entries, by: \.kind).mapValues(\.count)
        // HKTypeIdentifiers.h of the 18.1 SDK: 120 quantity, 69 category (one deprecated), 6 characteristic,
        // 2 correlation, 1 document and 2 scored-assessment identifiers, and 5 declared as plain strings;
        // HKClinicalType.h: 9 clinical identifiers; HKCategoryValues.h and HKMetadataEnums.h: 18 + 16 enumerations.
        #expect(
            counts == [
                "quantity": 120, "category": 69, "characteristic": 6, "correlation": 2, "document": 1,
                "scoredAssessment": 2, "clinical": 9, "constant": 5, "enum": 34,
            ])
        #expect(Set(entries.map(\.raw)).count == entries.count, "an identifier is listed twice")
    }

    @Test func everyListedSymbolIsDeclaredWithApplesSpelling() async throws {
        let graph = try await SymbolGraph.load()
        var missing: [String] = []
        for entry in try Self.entries() {
            if entry.kind == "enum" {
                if graph.symbols(at: entry.raw).isEmpty { missing.append(entry.raw) }
                for item in entry.values.split(separator: ",") {
                    let name = item.split(separator: "=").first.map(String.init) ?? ""
                    if graph.symbols(at: "\(entry.raw).\(name)").isEmpty { missing.append("\(entry.raw).\(name)") }
                }
            } else if entry.kind == "constant" {
                if graph.symbols(at: entry.swift).isEmpty { missing.append(entry.swift) }
            } else if let type = Self.identifierTypes[entry.kind], graph.symbols(at: "\(type).\(entry.swift)").isEmpty {
                missing.append("\(type).\(entry.swift)")
            }
        }
        #expect(missing.isEmpty, "not declared: \(missing)")
    }

    @Test func everyQuantityTypeHasItsRawValueStyleAndUnit() throws {
        for entry in try Self.entries() where entry.kind == "quantity" {
            let identifier = HKQuantityTypeIdentifier(rawValue: entry.raw)
            let type = try #require(HKObjectType.quantityType(forIdentifier: identifier), "\(entry.raw)")
            #expect(type.identifier == entry.raw)
            #expect("\(type.aggregationStyle)" == entry.style, "\(entry.raw)")
            #expect(type.is(compatibleWith: HKUnit(from: entry.unit)), "\(entry.raw) in \(entry.unit)")
            #expect(type.storageUnit == HKUnit(from: entry.storage), "\(entry.raw)")
            #expect(type.storageUnit.isCompatible(withUnit: HKUnit(from: entry.unit)), "\(entry.raw)")
        }
    }

    @Test func everyCategoryTypeTakesTheValuesOfItsEnumeration() throws {
        let entries = try Self.entries()
        let enums = Dictionary(uniqueKeysWithValues: entries.filter { $0.kind == "enum" }.map { ($0.raw, $0.values) })
        for entry in entries where entry.kind == "category" {
            let type = try #require(HKObjectType.categoryType(forIdentifier: HKCategoryTypeIdentifier(entry.raw)))
            let values = try #require(enums[entry.values], "\(entry.raw) names \(entry.values)")
            #expect(type.validValues == Set(Self.cases(values).map(\.value)), "\(entry.raw)")
        }
    }

    @Test func spellingsAppleAppsUse() {
        // Apple's raw values, from HKTypeIdentifiers.h: the identifier's name is its string.
        #expect(HKQuantityTypeIdentifier.dietaryWater.rawValue == "HKQuantityTypeIdentifierDietaryWater")
        #expect(HKQuantityTypeIdentifier.dietaryFatTotal.rawValue == "HKQuantityTypeIdentifierDietaryFatTotal")
        #expect(
            HKQuantityTypeIdentifier.dietaryCarbohydrates.rawValue == "HKQuantityTypeIdentifierDietaryCarbohydrates")
        #expect(HKQuantityTypeIdentifier.dietaryProtein.rawValue == "HKQuantityTypeIdentifierDietaryProtein")
        #expect(HKQuantityTypeIdentifier.uvExposure.rawValue == "HKQuantityTypeIdentifierUVExposure")
        #expect(HKQuantityTypeIdentifier.vo2Max.rawValue == "HKQuantityTypeIdentifierVO2Max")
        #expect(HKCategoryTypeIdentifier.menstrualFlow.rawValue == "HKCategoryTypeIdentifierMenstrualFlow")
        #expect(HKCorrelationTypeIdentifier.bloodPressure.rawValue == "HKCorrelationTypeIdentifierBloodPressure")
        #expect(HKDocumentTypeIdentifier.CDA.rawValue == "HKDocumentTypeIdentifierCDA")
        #expect(HKScoredAssessmentTypeIdentifier.GAD7.rawValue == "HKScoredAssessmentTypeIdentifierGAD7")
        #expect(HKClinicalTypeIdentifier.labResultRecord.rawValue == "HKClinicalTypeIdentifierLabResultRecord")
        #expect(HKDataTypeIdentifierStateOfMind == "HKDataTypeIdentifierStateOfMind")
        // HKCategoryValues.h and HKMetadataEnums.h.
        #expect(HKCategoryValueVaginalBleeding.allCases.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(HKCategoryValueVaginalBleeding.none.rawValue == 5)
        #expect(HKCategoryValueSeverity.severe.rawValue == 4 && HKCategoryValuePresence.notPresent.rawValue == 1)
        #expect(HKBloodGlucoseMealTime.preprandial.rawValue == 1 && HKBloodGlucoseMealTime.postprandial.rawValue == 2)
        #expect(HKBodyTemperatureSensorLocation.forehead.rawValue == 11)
        #expect(HKDevicePlacementSide.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(HKInsulinDeliveryReason.bolus.rawValue == 2)
        #expect(HKVO2MaxTestType.predictionStepTest.rawValue == 4)
        // HealthKit's metadata validation's table of keys.
        #expect(HKMetadataKeyMenstrualCycleStart == "HKMenstrualCycleStart")
        #expect(HKMetadataKeyInsulinDeliveryReason == "HKInsulinDeliveryReason")
        #expect(HKMetadataKeyDevicePlacementSide == "HKMetadataKeyDevicePlacementSide")
        #expect(HKMetadataKeyHeartRateMotionContext == "HKMetadataKeyHeartRateMotionContext")
        #expect(HKMetadataKeyUserMotionContext == "HKMetadataKeyUserMotionContext")
        #expect(HKMetadataKeyWaterSalinity == "HKMetadataKeyWaterSalinity")
        #expect(
            HKMetadataKeyCyclingFunctionalThresholdPowerTestType == "HKCyclingCyclingFunctionalThresholdPowerTestType")
        #expect(HKMetadataKeyHeartRateRecoveryTestType == "HKMetadataKeyHeartRateRecoveryTestType")
        #expect(HKMetadataKeyMaximumLightIntensity == "HKMetadataKeyMaximumLightIntensity")
    }

    @Test func unitsTheCatalogueNeedsParseAndConvert() {
        // Blood glucose: 5.5 mmol/L of glucose (180.15588 g/mol) is 99.09 mg/dL.
        let glucose = HKQuantity(unit: HKUnit(from: "mmol<180.15588>/L"), doubleValue: 5.5)
        #expect(abs(glucose.doubleValue(for: HKUnit(from: "mg/dL")) - 5.5 * 180.15588 / 10) < 1e-9)
        #expect(HKQuantityType(.bloodGlucose).is(compatibleWith: HKUnit(from: "mmol<180.15588>/L")))
        // Water: 1 fl oz (US) is 29.5735295625 mL.
        let water = HKQuantity(unit: HKUnit(from: "fl_oz_us"), doubleValue: 1)
        #expect(abs(water.doubleValue(for: HKUnit(from: "mL")) - 29.5735295625) < 1e-9)
        #expect(HKQuantityType(.insulinDelivery).is(compatibleWith: .internationalUnit()))
        #expect(HKQuantityType(.environmentalSoundReduction).is(compatibleWith: .decibelAWeightedSoundPressureLevel()))
        #expect(HKQuantityType(.bloodPressureSystolic).is(compatibleWith: .millimeterOfMercury()))
        #expect(!HKQuantityType(.dietaryWater).is(compatibleWith: .gram()))
        #expect(!HKQuantityType(.dietaryProtein).is(compatibleWith: .liter()))
    }

    // MARK: The store takes them all

    func store(_ types: [HKSampleType]) async throws -> HKHealthStore {
        let store = try await authorizedStore()
        try await store.requestAuthorization(toShare: Set(types), read: Set(types.map { $0 as HKObjectType }))
        return store
    }

    func statistics(
        _ store: HKHealthStore, _ type: HKQuantityType, _ options: HKStatisticsOptions
    ) async throws -> HKStatistics? {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(
                HKStatisticsQuery(quantityType: type, quantitySamplePredicate: nil, options: options) {
                    _, result, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: result)
                    }
                })
        }
    }

    @Test func anyQuantityTypeIsSavedQueriedAndAggregatedByItsStyle() async throws {
        let directory = try TemporaryDirectory()
        let water = HKQuantityType(.dietaryWater)
        let glucose = HKQuantityType(.bloodGlucose)
        let store = try await authorizedStore(databasePath: directory.file("catalogue.sqlite"))
        try await store.requestAuthorization(toShare: [water, glucose], read: [water, glucose])
        let mgdL = HKUnit(from: "mg/dL")
        try await store.save([
            HKQuantitySample(
                type: water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250), start: t0,
                end: t0 + 60),
            HKQuantitySample(
                type: water, quantity: HKQuantity(unit: .liter(), doubleValue: 0.5), start: t0 + 3600, end: t0 + 3660),
            HKQuantitySample(type: glucose, quantity: HKQuantity(unit: mgdL, doubleValue: 90), start: t0, end: t0),
            HKQuantitySample(
                type: glucose, quantity: HKQuantity(unit: HKUnit(from: "mmol<180.15588>/L"), doubleValue: 6),
                start: t0 + 60, end: t0 + 60),
        ])
        // Cumulative: the sum, 250 mL + 500 mL.
        let drunk = try #require(try await statistics(store, water, .cumulativeSum))
        #expect(abs(drunk.sumQuantity()!.doubleValue(for: .liter()) - 0.75) < 1e-9)
        // Discrete (arithmetic): 90 and 6 × 18.015588 = 108.093528 mg/dL.
        let levels = try #require(try await statistics(store, glucose, [.discreteAverage, .discreteMin, .discreteMax]))
        #expect(abs(levels.averageQuantity()!.doubleValue(for: mgdL) - (90 + 108.093528) / 2) < 1e-6)
        #expect(levels.minimumQuantity()!.doubleValue(for: mgdL) == 90)
        #expect(abs(levels.maximumQuantity()!.doubleValue(for: mgdL) - 108.093528) < 1e-6)
        let read = try await fetch(store, glucose, nil)
        #expect(read.count == 2 && read.allSatisfy { ($0 as? HKQuantitySample)?.quantityType == glucose })
    }

    @Test func aUnitIncompatibleWithTheTypeIsInvalidArgument() async throws {
        let store = try await store([HKQuantityType(.dietaryProtein)])
        let sample = HKQuantitySample(
            type: HKQuantityType(.dietaryProtein), quantity: HKQuantity(unit: .liter(), doubleValue: 1), start: t0,
            end: t0)
        let error = await #expect(throws: HKError.self) { try await store.save(sample) }
        #expect(error?.code == .errorInvalidArgument)
    }

    @Test func categorySamplesKeepTheirValuesAndRefuseOthers() async throws {
        let flow = HKCategoryType(.menstrualFlow)
        let headache = HKCategoryType(.headache)
        let store = try await store([flow, headache])
        let light = HKCategorySample(
            type: flow, value: HKCategoryValueVaginalBleeding.light.rawValue, start: t0, end: t0 + 86400,
            metadata: [HKMetadataKeyMenstrualCycleStart: true])
        let severe = HKCategorySample(
            type: headache, value: HKCategoryValueSeverity.severe.rawValue, start: t0, end: t0 + 3600)
        try await store.save([light, severe])
        let flows = try await fetch(store, flow, nil).compactMap { $0 as? HKCategorySample }
        #expect(flows.map(\.value) == [2])
        #expect(flows.first?.metadata?[HKMetadataKeyMenstrualCycleStart] as? Bool == true)
        #expect(try await fetch(store, headache, nil).compactMap { ($0 as? HKCategorySample)?.value } == [4])

        // 6 is no HKCategoryValueSeverity; 0 is no HKCategoryValueVaginalBleeding.
        for (type, value) in [(headache, 6), (flow, 0)] {
            let outside = HKCategorySample(
                type: type, value: value, start: t0, end: t0 + 60, metadata: [HKMetadataKeyMenstrualCycleStart: false])
            let error = await #expect(throws: HKError.self) { try await store.save(outside) }
            #expect(error?.code == .errorInvalidArgument)
            #expect(error?.localizedDescription.contains("\(value) is not a value of \(type.identifier)") == true)
        }
    }

    @Test func requiredMetadataIsRequiredWithApplesWording() async throws {
        let flow = HKCategoryType(.menstrualFlow)
        let insulin = HKQuantityType(.insulinDelivery)
        let store = try await store([flow, insulin])
        let bare = HKCategorySample(
            type: flow, value: HKCategoryValueVaginalBleeding.medium.rawValue, start: t0, end: t0)
        let error = await #expect(throws: HKError.self) { try await store.save(bare) }
        #expect(error?.code == .errorInvalidArgument)
        #expect(
            error?.localizedDescription
                == "Type HKCategoryTypeIdentifierMenstrualFlow is missing a required metadata key (required keys: HKMetadataKeyMenstrualCycleStart)"
        )
        let dose = HKQuantity(unit: .internationalUnit(), doubleValue: 4)
        let noReason = HKQuantitySample(type: insulin, quantity: dose, start: t0, end: t0)
        await #expect(throws: HKError.self) { try await store.save(noReason) }
        let bolus = HKQuantitySample(
            type: insulin, quantity: dose, start: t0, end: t0,
            metadata: [HKMetadataKeyInsulinDeliveryReason: HKInsulinDeliveryReason.bolus.rawValue])
        try await store.save(bolus)
        #expect(try await fetch(store, insulin, nil).count == 1)
    }
}

extension HealthKitCatalogTests {
    /// COMPATIBILITY.md's catalogue section counts what the list holds.
    @Test func compatibilityCountsTheList() throws {
        let entries = try Self.entries()
        func count(_ kind: String) -> Int { entries.filter { $0.kind == kind }.count }
        let line =
            "Catalogue: \(count("quantity")) quantity, \(count("category")) category, \(count("characteristic")) "
            + "characteristic, \(count("correlation")) correlation, \(count("document")) document, "
            + "\(count("scoredAssessment")) scored-assessment and \(count("clinical")) clinical type identifiers, and "
            + "\(count("constant")) declared as plain strings; \(count("enum")) value enumerations."
        let text = try String(contentsOf: CompatibilityTableTests.tableURL, encoding: .utf8)
        #expect(text.contains(line), "COMPATIBILITY.md should say: \(line)")
    }
}

/// Correlations (blood pressure, food): built, checked, archived and saved (CorrelationTests reads them back).
extension HealthKitCatalogTests {
    func pressure(_ identifier: HKQuantityTypeIdentifier, _ mmHg: Double) -> HKQuantitySample {
        HKQuantitySample(
            type: HKQuantityType(identifier), quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: mmHg),
            start: t0, end: t0)
    }

    @Test func correlationsHoldTheirObjectsAndSaveThem() async throws {
        let bloodPressure = try #require(HKObjectType.correlationType(forIdentifier: .bloodPressure))
        #expect(bloodPressure == HKCorrelationType(.bloodPressure))
        #expect(
            HKObjectType.correlationType(forIdentifier: HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierNone"))
                == nil)
        let systolic = pressure(.bloodPressureSystolic, 120)
        let diastolic = pressure(.bloodPressureDiastolic, 80)
        let reading = HKCorrelation(type: bloodPressure, start: t0, end: t0, objects: [systolic, diastolic])
        #expect(reading.objects(for: HKQuantityType(.bloodPressureSystolic)) == [systolic])
        #expect(reading.correlationType == bloodPressure)
        let archived = try NSKeyedArchiver.archivedData(withRootObject: reading, requiringSecureCoding: true)
        let back = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: HKCorrelation.self, from: archived))
        #expect(back.uuid == reading.uuid && Set(back.objects.map(\.uuid)) == [systolic.uuid, diastolic.uuid])

        // As in HealthKit, saving a correlation needs the types it holds, not its own (which cannot be asked for).
        let types: [HKSampleType] = [HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic)]
        let store = try await store(types)
        try await store.save(reading)
        let saved = try await fetch(store, HKQuantityType(.bloodPressureSystolic), nil)
        #expect(saved.map(\.uuid) == [systolic.uuid])
        let values = try #require(
            try await statistics(store, HKQuantityType(.bloodPressureDiastolic), .discreteAverage))
        #expect(values.averageQuantity()?.doubleValue(for: .millimeterOfMercury()) == 80)
    }

    @Test func aCorrelationHoldingTheWrongObjectsIsInvalidArgument() async throws {
        let store = try await store([HKQuantityType(.heartRate)])
        let heartRate = HKQuantitySample(
            type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: HKUnit(from: "count/min"), doubleValue: 60),
            start: t0, end: t0)
        let wrong = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: t0, end: t0, objects: [heartRate])
        let error = await #expect(throws: HKError.self) { try await store.save(wrong) }
        #expect(error?.code == .errorInvalidArgument)
        #expect(
            error?.localizedDescription
                == "A HKCorrelationTypeIdentifierBloodPressure correlation cannot hold a HKQuantityTypeIdentifierHeartRate sample."
        )
        // A food holds dietary quantities only, and something.
        let pressureInFood = HKCorrelation(
            type: HKCorrelationType(.food), start: t0, end: t0, objects: [pressure(.bloodPressureSystolic, 120)])
        await #expect(throws: HKError.self) { try await store.save(pressureInFood) }
        let empty = HKCorrelation(type: HKCorrelationType(.food), start: t0, end: t0, objects: [])
        await #expect(throws: HKError.self) { try await store.save(empty) }
        #expect(try await fetch(store, HKQuantityType(.heartRate), nil).isEmpty)
    }
}
