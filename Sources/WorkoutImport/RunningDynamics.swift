import FITFile
import Foundation

/// A FIT record's running dynamics, in HealthKit's units: from the standard fields a watch with a chest strap or
/// pod writes (`step_length` 85, `vertical_oscillation` 39, `stance_time` 41), else from the developer fields a
/// Connect IQ data field such as Stryd's writes, found by their `field_description` names and units.
///
/// | figure | standard field | developer field names | unit here |
/// |---|---|---|---|
/// | stride length | step_length (mm) | "Stride Length", "Step Length" (m, or mm by its units) | m |
/// | vertical oscillation | vertical_oscillation (mm) | "Vertical Oscillation" (cm, or mm by its units) | cm |
/// | ground contact time | stance_time (ms) | "Ground Time", "Ground Contact Time", "Stance Time" (ms) | ms |
/// | running power | power (W), read by the caller | "Power" (W), when the record has no standard power | W |
///
/// HealthKit's running stride length is a step's length (one foot to the other), as FIT's step_length is.
/// Garmin FIT SDK Profile.xlsx (record); Stryd's Connect IQ field names as its files carry them.
struct RunningDynamics {
    var strideLength: Double?
    var verticalOscillation: Double?
    var groundContactTime: Double?
    var power: Double?

    init(_ record: FITMessage) {
        var developer: [String: (value: Double, units: String)] = [:]
        for field in record.developerFields {
            guard let description = field.description, let name = description.name, let raw = field.value.number
            else { continue }
            let value = raw / (description.scale ?? 1) - (description.offset ?? 0)
            developer[name.lowercased()] = (value, description.units?.lowercased() ?? "")
        }
        func named(_ names: String...) -> (value: Double, units: String)? {
            names.lazy.compactMap { developer[$0] }.first
        }
        strideLength =
            record.value(85).map { $0 / 1000 }
            ?? named("stride length", "step length").map { $0.units.hasPrefix("mm") ? $0.value / 1000 : $0.value }
        verticalOscillation =
            record.value(39).map { $0 / 10 }
            ?? named("vertical oscillation").map { $0.units.hasPrefix("mm") ? $0.value / 10 : $0.value }
        groundContactTime = record.value(41) ?? named("ground time", "ground contact time", "stance time")?.value
        power = named("power")?.value
        // Zero or less is no reading (a pod standing still writes 0).
        if let value = strideLength, !(value > 0 && value.isFinite) { strideLength = nil }
        if let value = verticalOscillation, !(value > 0 && value.isFinite) { verticalOscillation = nil }
        if let value = groundContactTime, !(value > 0 && value.isFinite) { groundContactTime = nil }
        if let value = power, !(value >= 0 && value.isFinite) { power = nil }
    }
}
