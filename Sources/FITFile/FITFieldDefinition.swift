/// One field of a definition message: its field number in the profile, its size in bytes, its base type.
///
/// FIT protocol, "Field Definition": 3 bytes. A size that is a multiple of the base type's size is an array.
public struct FITFieldDefinition: Hashable, Sendable {
    public var number: UInt8
    public var size: UInt8
    public var baseType: FITBaseType

    public init(number: UInt8, size: UInt8, baseType: FITBaseType) {
        self.number = number
        self.size = size
        self.baseType = baseType
    }
}

/// One developer field of a definition message: its number, size, and the developer data index whose
/// `field_description` message says what it holds.
///
/// FIT protocol, "Developer Field Definition": 3 bytes (field number, size, developer data index).
public struct FITDeveloperFieldDefinition: Hashable, Sendable {
    public var number: UInt8
    public var size: UInt8
    public var developerDataIndex: UInt8

    public init(number: UInt8, size: UInt8, developerDataIndex: UInt8) {
        self.number = number
        self.size = size
        self.developerDataIndex = developerDataIndex
    }
}
