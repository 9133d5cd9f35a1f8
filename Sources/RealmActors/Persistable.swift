public import Foundation
internal import RealmRuntime

/// A type that can be the value of a `@Persisted` property.
///
/// RealmActors conforms the types Realm supports (`Bool`, the integer types, `Float`, `Double`,
/// `String`, `Data`, `Date`, `UUID`, and optionals of them); the underscored requirements are
/// its own plumbing and not meant to be implemented or called by user code.
public protocol _Persistable {
    /// The value a property of this type has when its declaration gives none.
    static var _rlmDefaultValue: Self { get }
    /// How the property is stored.
    static var _rlmType: _RealmPropertyType { get }
    /// Reads the property from a managed object.
    static func _rlmGet(_ object: ObjectBase, column: Int) -> Self
    /// The value in the form the storage layer stores.
    var _rlmValue: _RealmValue { get }
    /// Creates a value from its stored form; nil if the stored form does not fit this type.
    init?(_rlmValue: _RealmValue)
}

/// The stored shape of a property type. Opaque: RealmActors' plumbing for ``_Persistable``.
public struct _RealmPropertyType: Sendable {
    let kind: PropertyKind
    let isOptional: Bool
}

/// A value in its stored form. Opaque: RealmActors' plumbing for ``_Persistable``.
public struct _RealmValue: Sendable, Equatable {
    let value: ColumnValue
    init(_ value: ColumnValue) { self.value = value }
}

/// A persistable type that is not an optional: what `Optional` wraps.
public protocol _PersistableNonOptional: _Persistable {}

extension Optional: _Persistable where Wrapped: _PersistableNonOptional {
    /// Optional properties default to nil.
    public static var _rlmDefaultValue: Self { nil }
    /// The wrapped type's storage, nullable.
    public static var _rlmType: _RealmPropertyType {
        _RealmPropertyType(kind: Wrapped._rlmType.kind, isOptional: true)
    }
    /// Reads nil or the wrapped value.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        let (leaf, row) = object.managedLocation()
        return leaf.isNull(row, column) ? nil : Wrapped._rlmGet(object, column: column)
    }
    /// Nil stores as null.
    public var _rlmValue: _RealmValue { self?._rlmValue ?? _RealmValue(.null) }
    /// Null reads as nil.
    public init?(_rlmValue: _RealmValue) {
        if _rlmValue.value == .null { self = .none; return }
        guard let wrapped = Wrapped(_rlmValue: _rlmValue) else { return nil }
        self = .some(wrapped)
    }
}

extension Bool: _PersistableNonOptional {
    /// `false`.
    public static var _rlmDefaultValue: Bool { false }
    /// Stored as a bit.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .bool, isOptional: false) }
    /// Reads the bit.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Bool {
        let (leaf, row) = object.managedLocation()
        return leaf.bool(row, column)
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.bool(self)) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .bool(let value) = _rlmValue.value else { return nil }
        self = value
    }
}

/// The integer types share one implementation: stored as 64-bit integers (at the narrowest width
/// each leaf allows), read back with a truncating conversion that round-trips every value the
/// property's own type can hold.
public protocol _PersistableInteger: _PersistableNonOptional, FixedWidthInteger {}

extension _PersistableInteger {
    /// Zero.
    public static var _rlmDefaultValue: Self { 0 }
    /// Stored as an integer.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .int, isOptional: false) }
    /// Reads the integer.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        let (leaf, row) = object.managedLocation()
        return Self(truncatingIfNeeded: leaf.int(row, column))
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.int(Int64(self))) }
    /// From the stored form; nil if the value does not fit this type.
    public init?(_rlmValue: _RealmValue) {
        guard case .int(let value) = _rlmValue.value, let exact = Self(exactly: value) else { return nil }
        self = exact
    }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Double: _PersistableNonOptional {
    /// Zero.
    public static var _rlmDefaultValue: Double { 0 }
    /// Stored as a 64-bit float.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .double, isOptional: false) }
    /// Reads the double.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Double {
        let (leaf, row) = object.managedLocation()
        return leaf.double(row, column)
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.double(self)) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .double(let value) = _rlmValue.value else { return nil }
        self = value
    }
}

extension Float: _PersistableNonOptional {
    /// Zero.
    public static var _rlmDefaultValue: Float { 0 }
    /// Stored as a 32-bit float.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .float, isOptional: false) }
    /// Reads the float.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Float {
        let (leaf, row) = object.managedLocation()
        return leaf.float(row, column)
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.float(self)) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .float(let value) = _rlmValue.value else { return nil }
        self = value
    }
}

extension String: _PersistableNonOptional {
    /// The empty string.
    public static var _rlmDefaultValue: String { "" }
    /// Stored as UTF-8 bytes.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .string, isOptional: false) }
    /// Decodes the UTF-8 bytes in place.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> String {
        object.managedBytes(column) { String(decoding: $0, as: UTF8.self) }
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.bytes(Array(utf8))) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .bytes(let bytes) = _rlmValue.value else { return nil }
        self = String(decoding: bytes, as: UTF8.self)
    }
}

extension Data: _PersistableNonOptional {
    /// Empty data.
    public static var _rlmDefaultValue: Data { Data() }
    /// Stored as bytes.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .data, isOptional: false) }
    /// Copies the bytes.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Data {
        object.managedBytes(column) { Data($0) }
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.bytes(Array(self))) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .bytes(let bytes) = _rlmValue.value else { return nil }
        self = Data(bytes)
    }
}

extension Date: _PersistableNonOptional {
    /// The reference date (2001-01-01 00:00:00 UTC), as a zero timestamp.
    public static var _rlmDefaultValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// Stored as seconds since 2001 in a 64-bit float: exactly the `Date`'s own representation.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .date, isOptional: false) }
    /// Reads the timestamp.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Date {
        let (leaf, row) = object.managedLocation()
        return Date(timeIntervalSinceReferenceDate: leaf.double(row, column))
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.double(timeIntervalSinceReferenceDate)) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .double(let value) = _rlmValue.value else { return nil }
        self = Date(timeIntervalSinceReferenceDate: value)
    }
}

extension UUID: _PersistableNonOptional {
    /// The all-zero UUID.
    public static var _rlmDefaultValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    /// Stored as its 16 bytes.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .uuid, isOptional: false) }
    /// Reads the 16 bytes.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> UUID {
        let (leaf, row) = object.managedLocation()
        let bytes = leaf.fixed(row, column)
        guard bytes.count == 16 else { return _rlmDefaultValue }
        return UUID(uuid: bytes.loadUnaligned(as: uuid_t.self))
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.fixed(withUnsafeBytes(of: uuid) { Array($0) })) }
    /// From the stored form.
    public init?(_rlmValue: _RealmValue) {
        guard case .fixed(let bytes) = _rlmValue.value, bytes.count == 16 else { return nil }
        self = UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
    }
}
