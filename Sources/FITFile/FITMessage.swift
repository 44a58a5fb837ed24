/// One decoded data message: its global message number, its fields' stored values in definition order, and its
/// developer fields.
///
/// Values are as stored; `FITProfile` gives each known field's name, scale, offset and units, and
/// ``value(_:)`` applies them (FIT protocol: value = stored / scale − offset).
public struct FITMessage: Hashable, Sendable {
    public var globalMessageNumber: UInt16
    public var localType: UInt8
    public var fields: [FITField]
    public var developerFields: [FITDeveloperField]
    /// The timestamp a compressed-timestamp header gave this message (FIT time, s since 1989-12-31 UTC).
    public var compressedTimestamp: UInt32?
    /// The byte offset of this message's record header in the file.
    public var offset: Int

    public init(
        globalMessageNumber: UInt16, localType: UInt8 = 0, fields: [FITField],
        developerFields: [FITDeveloperField] = [], compressedTimestamp: UInt32? = nil, offset: Int = 0
    ) {
        self.globalMessageNumber = globalMessageNumber
        self.localType = localType
        self.fields = fields
        self.developerFields = developerFields
        self.compressedTimestamp = compressedTimestamp
        self.offset = offset
    }

    /// The stored value of field `number`, nil when the message has no such field or its value is invalid.
    public subscript(number: UInt8) -> FITValue? {
        for field in fields where field.number == number {
            return field.value == .invalid ? nil : field.value
        }
        return nil
    }

    /// Field `number` as a number with the profile's scale and offset applied (nil if absent, invalid, not a
    /// number, or an array).
    public func value(_ number: UInt8) -> Double? {
        guard let raw = self[number]?.number else { return nil }
        guard let profile = FITProfile.field(number, inMessage: globalMessageNumber) else { return raw }
        return raw / profile.scale - profile.offset
    }

    /// Each element of field `number`, scaled (invalid elements are nil).
    public func values(_ number: UInt8) -> [Double?] {
        guard let raw = self[number] else { return [] }
        let profile = FITProfile.field(number, inMessage: globalMessageNumber)
        return raw.elements.map { element in
            guard let number = element.number else { return nil }
            guard let profile else { return number }
            return number / profile.scale - profile.offset
        }
    }

    /// The message's time: its `timestamp` field (253) or the time its compressed header gave.
    public var timestamp: UInt32? {
        if case let .unsigned(value)? = self[253] { return UInt32(truncatingIfNeeded: value) }
        return compressedTimestamp
    }

    /// A string field, nil when absent or invalid.
    public func string(_ number: UInt8) -> String? {
        if case let .string(text)? = self[number] { return text }
        return nil
    }
}

/// A field of a data message: its number, base type and stored value.
public struct FITField: Hashable, Sendable {
    public var number: UInt8
    public var baseType: FITBaseType
    public var value: FITValue

    public init(number: UInt8, baseType: FITBaseType, value: FITValue) {
        self.number = number
        self.baseType = baseType
        self.value = value
    }
}

/// A developer field of a data message. Its value is decoded with the base type its `field_description` gave;
/// without a description it is kept as bytes (never an error).
public struct FITDeveloperField: Hashable, Sendable {
    public var developerDataIndex: UInt8
    public var number: UInt8
    public var value: FITValue
    /// The `field_description` that defined this field, when the file had one before the message.
    public var description: FITFieldDescription?

    public init(developerDataIndex: UInt8, number: UInt8, value: FITValue, description: FITFieldDescription? = nil) {
        self.developerDataIndex = developerDataIndex
        self.number = number
        self.value = value
        self.description = description
    }
}

/// What a `field_description` message (206) says about one developer field.
public struct FITFieldDescription: Hashable, Sendable {
    public var developerDataIndex: UInt8
    public var fieldDefinitionNumber: UInt8
    public var baseType: FITBaseType
    public var name: String?
    public var units: String?
    public var scale: Double?
    public var offset: Double?

    /// Reads a `field_description` message; nil without its index, number and base type.
    public init?(_ message: FITMessage) {
        guard message.globalMessageNumber == FITMessageNumber.fieldDescription,
            let index = message[0]?.unsigned, let number = message[1]?.unsigned, let type = message[2]?.unsigned
        else { return nil }
        developerDataIndex = UInt8(truncatingIfNeeded: index)
        fieldDefinitionNumber = UInt8(truncatingIfNeeded: number)
        baseType = FITBaseType(rawValue: UInt8(truncatingIfNeeded: type))
        name = message.string(3)
        units = message.string(8)
        scale = message[6]?.number
        offset = message[7]?.number
    }
}
