public import Foundation
internal import RealmRuntime
import Synchronization

/// A 12-byte (probably) unique object identifier: Realm Swift's and BSON's `ObjectId`.
///
/// Like a UUID, an `ObjectId` identifies an object without a central generator. Its bytes are:
///
/// 1. a 4-byte big-endian timestamp: the creation time in seconds since the Unix epoch;
/// 2. a 5-byte random value, chosen once per process;
/// 3. a 3-byte big-endian counter, starting at a random value.
///
/// Ids compare byte by byte, so sorting by an `ObjectId` property usually sorts objects in creation
/// order (to the second, and in generation order within one process).
///
/// ```swift
/// class TodoItem: Object {
///     @Persisted(primaryKey: true) var _id = ObjectId.generate()
///     @Persisted var title = ""
/// }
/// ```
///
/// As in Realm Swift, `ObjectId()` is the all-zero id; ``generate()`` makes a new one.
public struct ObjectId: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Bytes 0–7, big-endian (so that comparing the integers compares the bytes).
    private var high: UInt64
    /// Bytes 8–11, big-endian.
    private var low: UInt32

    /// The 5 random bytes of every id this process generates.
    private static let processUnique = UInt64.random(in: 0...0xFF_FFFF_FFFF)
    /// The next counter value; only its low 24 bits are used.
    private static let counter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))

    // MARK: Creating ids

    /// Creates the zero-initialized id, `000000000000000000000000`.
    public init() {
        high = 0
        low = 0
    }

    /// Creates a new id from the current time, this process's random value and the next counter
    /// value. Safe to call from any thread.
    public static func generate() -> ObjectId {
        ObjectId(seconds: UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970.rounded(.down))),
                 unique: processUnique)
    }

    /// Parses an id from its 24-character hexadecimal form (either case).
    ///
    /// - Parameter string: 24 characters from `0-9`, `a-f`, `A-F`.
    /// - Throws: ``Realm/Error`` with code ``Realm/Error/Code/invalidInput`` if the string is not
    ///   24 hexadecimal characters.
    public init(string: String) throws {
        guard let bytes = ObjectId.parseHex(string) else {
            throw Realm.Error(.invalidInput, "Invalid ObjectId string '\(string)'")
        }
        self.init(bytes: bytes)
    }

    /// Creates an id from a 24-character hexadecimal static string, such as a literal in source.
    ///
    /// Traps if the string is not 24 hexadecimal characters; use ``init(string:)`` to handle
    /// invalid strings at run time.
    public init(_ string: StaticString) {
        let text = string.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        guard let bytes = ObjectId.parseHex(text) else {
            preconditionFailure("Invalid ObjectId string '\(text)'")
        }
        self.init(bytes: bytes)
    }

    /// Creates an id from its parts, as Realm does: the timestamp's whole seconds since 1970
    /// (truncated to 32 bits), the low 3 bytes of `machineId` and the low 2 bytes of `processId`
    /// (each in little-endian order), then the next value of the process-wide counter.
    ///
    /// - Parameters:
    ///   - timestamp: The creation time; only whole seconds are kept.
    ///   - machineId: A machine identifier; its low 24 bits are used.
    ///   - processId: A process identifier; its low 16 bits are used.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let machine = UInt64(truncatingIfNeeded: machineId)
        let process = UInt64(truncatingIfNeeded: processId)
        // Bytes 4...8 are machine[0], machine[1], machine[2], process[0], process[1].
        let unique = (machine & 0xFF) << 32 | (machine >> 8 & 0xFF) << 24 | (machine >> 16 & 0xFF) << 16
            | (process & 0xFF) << 8 | (process >> 8 & 0xFF)
        self.init(seconds: ObjectId.seconds(of: timestamp), unique: unique)
    }

    /// The id with the given 12 bytes.
    init<Bytes: Collection<UInt8>>(bytes: Bytes) {
        precondition(bytes.count == 12, "An ObjectId has 12 bytes, not \(bytes.count)")
        high = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes.dropFirst(8).reduce(0) { $0 << 8 | UInt32($1) }
    }

    private init(seconds: UInt32, unique: UInt64) {
        let count = ObjectId.counter.add(1, ordering: .relaxed).oldValue & 0xFF_FFFF
        high = UInt64(seconds) << 32 | (unique >> 8 & 0xFFFF_FFFF)
        low = UInt32(truncatingIfNeeded: unique & 0xFF) << 24 | count
    }

    private static func seconds(of date: Date) -> UInt32 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard let whole = Int64(exactly: seconds) else { return 0 }
        return UInt32(truncatingIfNeeded: whole)
    }

    private static func parseHex(_ string: String) -> [UInt8]? {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        for i in stride(from: 0, to: 24, by: 2) {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        return bytes
    }

    // MARK: Reading

    /// The 12 bytes, in order.
    var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * $0)) }
    }

    /// The id as 24 lowercase hexadecimal characters.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The creation time stored in the id, to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(high >> 32))
    }

    /// ``stringValue``.
    public var description: String { stringValue }

    // MARK: Comparing

    /// Whether the first id's bytes sort before the second's.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    // MARK: Codable

    /// Decodes an id from its 24-character hexadecimal string.
    ///
    /// - Throws: A `DecodingError` if the value is not a string, ``Realm/Error`` if the string is
    ///   not a valid id.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(string: container.decode(String.self))
    }

    /// Encodes the id as its 24-character hexadecimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

extension ObjectId: _PersistableNonOptional {
    /// The all-zero id.
    public static var _rlmDefaultValue: ObjectId { ObjectId() }
    /// Stored as its 12 bytes.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .objectId, isOptional: false) }
    /// Reads the 12 bytes.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> ObjectId {
        let (leaf, row) = object.managedLocation()
        let bytes = leaf.fixed(row, column)
        guard bytes.count == 12 else { return _rlmDefaultValue }
        return ObjectId(bytes: bytes)
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.fixed(bytes)) }
    /// From the stored form.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .fixed(let bytes) = stored.value, bytes.count == 12 else { return nil }
        return Self(bytes: bytes)
    }
}
