import FITFile

/// Writes FIT messages by the profile's field names, values in the field's units: each name is looked up in
/// ``FITProfile`` for its number, base type, scale and offset, and the stored value is
/// `(value + offset) × scale` rounded (FIT protocol, "Scale/Offset", inverted). A message whose set of fields
/// differs from the last one written with its local type gets a new definition first.
///
/// The export's wire layer over `FITFileBuilder`: the builder writes exactly the definitions it is given, this
/// chooses them from the profile, so every field carries the base type Garmin's profile gives it.
struct FITMessageWriter {
    /// A field's value, in the profile's units.
    enum Value {
        /// A number in the field's units (scale and offset applied here).
        case number(Double)
        /// A value as stored (an enum, a `date_time`, a count).
        case raw(UInt64)
        case string(String)
        /// An array of numbers in the field's units; nil elements are written invalid.
        case numbers([Double?])
    }

    private(set) var file = FITFileBuilder()
    private var current: [UInt8: FITMessageDefinition] = [:]
    private static let names: [UInt16: [String: FITFieldProfile]] = FITProfile.messages.mapValues { message in
        Dictionary(message.fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Writes one message with local type `localType`; fields whose value is nil are left out.
    mutating func write(_ message: UInt16, localType: UInt8, _ fields: KeyValuePairs<String, Value?>) {
        write(message, localType: localType, fields.map { ($0.key, $0.value) })
    }

    /// Writes one message with local type `localType`; fields whose value is nil are left out.
    mutating func write(_ message: UInt16, localType: UInt8, _ fields: [(String, Value?)]) {
        var definitions: [FITFieldDefinition] = []
        var values: [FITValue] = []
        for case let (name, value?) in fields {
            guard let profile = Self.names[message]?[name] else {
                // A programming error, never input.
                preconditionFailure("FIT profile has no field \(name) in message \(message)")
            }
            let (size, stored) = Self.encode(value, profile)
            guard size > 0 else { continue }
            definitions.append(
                FITFieldDefinition(number: profile.number, size: UInt8(size), baseType: profile.baseType))
            values.append(stored)
        }
        let definition = FITMessageDefinition(globalMessageNumber: message, fields: definitions)
        if current[localType] != definition {
            file.define(definition, localType: localType)
            current[localType] = definition
        }
        file.write(values, localType: localType)
    }

    /// The field's size in bytes and its stored value; a number out of the base type's range is written invalid.
    static func encode(_ value: Value, _ profile: FITFieldProfile) -> (Int, FITValue) {
        let type = profile.baseType
        switch value {
        case let .raw(raw):
            return (type.size, .unsigned(raw))
        case let .string(text):
            let bytes = min(text.utf8.count + 1, 255)
            return (bytes, .string(text))
        case let .number(number):
            return (type.size, stored(number, profile))
        case let .numbers(numbers):
            let count = min(numbers.count, 255 / type.size)
            return (count * type.size, .array(numbers.prefix(count).map { $0.map { stored($0, profile) } ?? .invalid }))
        }
    }

    /// `(value + offset) × scale`, rounded, checked against the base type's range (its invalid value excluded).
    static func stored(_ value: Double, _ profile: FITFieldProfile) -> FITValue {
        let scaled = ((value + profile.offset) * profile.scale).rounded()
        guard scaled.isFinite else { return .invalid }
        let bits = Double(profile.baseType.size * 8)
        switch profile.baseType.kind {
        case .signed:
            let limit = pow2(bits - 1)
            return scaled >= -limit && scaled < limit - 1 ? .signed(Int64(scaled)) : .invalid
        case .float:
            return .float(value * profile.scale + profile.offset * profile.scale)
        default:
            let zeroInvalid = [FITBaseType.uint8z, .uint16z, .uint32z].contains(profile.baseType)
            return scaled >= (zeroInvalid ? 1 : 0) && scaled < pow2(bits) - 1 ? .unsigned(UInt64(scaled)) : .invalid
        }
    }

    private static func pow2(_ bits: Double) -> Double { Double(sign: .plus, exponent: Int(bits), significand: 1) }
}
