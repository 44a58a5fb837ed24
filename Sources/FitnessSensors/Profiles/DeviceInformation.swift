import ByteCoding

/// Which Device Information string a characteristic carries.
///
/// Bluetooth DIS 1.1 §3.1–§3.6.
public enum DeviceInformationField: UInt16, Hashable, Sendable, CaseIterable {
    case manufacturerName = 0x2A29
    case modelNumber = 0x2A24
    case serialNumber = 0x2A25
    case hardwareRevision = 0x2A27
    case firmwareRevision = 0x2A26
    case softwareRevision = 0x2A28

    /// The characteristic's assigned number.
    public var characteristicUUID: UInt16 { rawValue }
}

/// One Device Information string characteristic (0x2A29, 0x2A24, 0x2A25, 0x2A27, 0x2A26, 0x2A28).
///
/// The value is a UTF-8 string with no length prefix and no terminator. Some devices pad the value
/// with NUL bytes (fixed-size firmware buffers), so trailing NULs are trimmed; NULs inside the
/// string are kept. Bytes that are not valid UTF-8 throw, naming the first bad byte.
///
/// Bluetooth DIS 1.1 §3; GATT Specification Supplement (utf8s format).
public struct DeviceInformationString: Hashable, Sendable {
    public var field: DeviceInformationField
    public var value: String

    public init(field: DeviceInformationField, value: String) {
        self.field = field
        self.value = value
    }

    /// Decodes a string characteristic value.
    ///
    /// - Throws: ``DecodeError`` at the offset of the first byte that is not valid UTF-8.
    public init(field: DeviceInformationField, bytes: [UInt8]) throws(DecodeError) {
        self.field = field
        self.value = try Self.decodeUTF8(bytes)
    }

    public func encode() -> [UInt8] { Array(value.utf8) }

    /// Decodes a GATT string value (Device Information's strings, Generic Access's Device Name): UTF-8 after
    /// trimming trailing NUL bytes.
    public static func decodeUTF8(_ bytes: [UInt8]) throws(DecodeError) -> String {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        let trimmed = bytes[..<end]
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = trimmed.makeIterator()
        var offset = 0
        var scalars = String.UnicodeScalarView()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .emptyInput:
                return String(scalars)
            case .error(let length):
                throw DecodeError("invalid UTF-8 sequence of \(length) byte\(length == 1 ? "" : "s")", at: offset)
            }
        }
    }
}

/// What a sensor's Device Information service says about it.
///
/// Fill it one characteristic at a time with ``apply(_:)`` or ``update(characteristic:bytes:)``
/// as the GATT client reads them; every field is optional because every characteristic of the
/// service is. The OpenHealthKit module maps this onto `HKDevice` (name, manufacturer, model,
/// hardwareVersion, firmwareVersion, softwareVersion).
///
/// Bluetooth DIS 1.1 §3.
public struct DeviceInformation: Hashable, Sendable {
    public var manufacturerName: String?
    public var modelNumber: String?
    public var serialNumber: String?
    public var hardwareRevision: String?
    public var firmwareRevision: String?
    public var softwareRevision: String?

    public init(
        manufacturerName: String? = nil,
        modelNumber: String? = nil,
        serialNumber: String? = nil,
        hardwareRevision: String? = nil,
        firmwareRevision: String? = nil,
        softwareRevision: String? = nil
    ) {
        self.manufacturerName = manufacturerName
        self.modelNumber = modelNumber
        self.serialNumber = serialNumber
        self.hardwareRevision = hardwareRevision
        self.firmwareRevision = firmwareRevision
        self.softwareRevision = softwareRevision
    }

    /// The value of one field.
    public subscript(field: DeviceInformationField) -> String? {
        get {
            switch field {
            case .manufacturerName: manufacturerName
            case .modelNumber: modelNumber
            case .serialNumber: serialNumber
            case .hardwareRevision: hardwareRevision
            case .firmwareRevision: firmwareRevision
            case .softwareRevision: softwareRevision
            }
        }
        set {
            switch field {
            case .manufacturerName: manufacturerName = newValue
            case .modelNumber: modelNumber = newValue
            case .serialNumber: serialNumber = newValue
            case .hardwareRevision: hardwareRevision = newValue
            case .firmwareRevision: firmwareRevision = newValue
            case .softwareRevision: softwareRevision = newValue
            }
        }
    }

    /// Records one decoded string.
    public mutating func apply(_ string: DeviceInformationString) {
        self[string.field] = string.value
    }

    /// Decodes and records the value of a Device Information string characteristic.
    ///
    /// - Returns: `false` (and changes nothing) when `characteristic` is not one of the six strings.
    /// - Throws: ``DecodeError`` when the bytes are not valid UTF-8.
    @discardableResult
    public mutating func update(characteristic: UInt16, bytes: [UInt8]) throws(DecodeError) -> Bool {
        guard let field = DeviceInformationField(rawValue: characteristic) else { return false }
        apply(try DeviceInformationString(field: field, bytes: bytes))
        return true
    }

    /// Each present field as the string characteristic a peripheral would serve, in
    /// ``DeviceInformationField/allCases`` order.
    public var strings: [DeviceInformationString] {
        DeviceInformationField.allCases.compactMap { field in
            self[field].map { DeviceInformationString(field: field, value: $0) }
        }
    }
}
