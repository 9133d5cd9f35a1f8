public import Foundation
internal import RealmRuntime

/// A type that can be the value of a `@Persisted` property.
///
/// RealmActors conforms the types Realm supports (`Bool`, the integer types, `Float`, `Double`,
/// `String`, `Data`, `Date`, `UUID`, `ObjectId`, `Decimal128`, `PersistableEnum`s, objects,
/// `List`, `MutableSet`, `Map`, `LinkingObjects`, `AnyRealmValue`, and optionals); the underscored
/// requirements are its own plumbing and not meant to be implemented or called by user code.
public protocol _Persistable {
    /// The value a property of this type has when its declaration gives none.
    static var _rlmDefaultValue: Self { get }
    /// How the property is stored.
    static var _rlmType: _RealmPropertyType { get }
    /// Reads the property from a managed object.
    static func _rlmGet(_ object: ObjectBase, column: Int) -> Self
    /// The value in the form the storage layer stores (or, for objects and collections, the
    /// form it is stored from).
    var _rlmValue: _RealmValue { get }
    /// A value from its stored form; nil if the stored form does not fit this type.
    static func _rlmFromValue(_ stored: _RealmValue) -> Self?
}

/// The stored shape of a property type. Opaque: RealmActors' plumbing for ``_Persistable``.
public struct _RealmPropertyType {
    let kind: PropertyKind
    let isOptional: Bool
    /// Set for `List`, `MutableSet` and `Map`; `kind` and `isOptional` describe the elements.
    var collection: CollectionKind?
    /// The class of a link (or of a collection's, or `LinkingObjects`', elements).
    var objectType: ObjectBase.Type?
    /// `LinkingObjects`: computed from other objects' links, not stored.
    var isLinkingObjects = false

    init(kind: PropertyKind, isOptional: Bool, collection: CollectionKind? = nil, objectType: ObjectBase.Type? = nil) {
        self.kind = kind
        self.isOptional = isOptional
        self.collection = collection
        self.objectType = objectType
    }
}

/// A value in its stored form, or the form it is stored from. Opaque: RealmActors' plumbing for
/// ``_Persistable``.
///
/// Scalars are already what the storage layer stores. Objects and collections cannot be: an
/// unmanaged object has no key until it is added, so they are resolved when they are written
/// into a realm (``Realm/storedValue(_:for:update:)``), adding linked objects as needed.
public struct _RealmValue {
    enum Storage {
        /// A scalar (or null) as stored.
        case stored(ColumnValue)
        /// A link: an object (managed or not), or nil.
        case object(ObjectBase?)
        /// A `List`, `MutableSet` or `Map`, read when it is stored.
        case collection(any RealmCollectionContent)
        /// Collection elements given as values (`value:` arrays).
        case elements([_RealmValue])
        /// Map entries given as values (`value:` dictionaries).
        case entries([(String, _RealmValue)])
        /// An `AnyRealmValue`.
        case mixed(AnyRealmValue)
    }

    let storage: Storage

    init(_ value: ColumnValue) { storage = .stored(value) }
    init(_ storage: Storage) { self.storage = storage }

    /// The stored scalar; `.null` for anything else (objects and collections are resolved by
    /// ``Realm/storedValue(_:for:update:)``).
    var value: ColumnValue {
        if case .stored(let value) = storage { return value }
        return .null
    }

    /// Whether this is nil: a null scalar, a nil link or `AnyRealmValue.none`.
    var isNil: Bool {
        switch storage {
        case .stored(let value): value == .null
        case .object(let object): object == nil
        case .mixed(let value): value == .none
        default: false
        }
    }

    /// Whether two values are the same element (for sets): equal scalars, the same object (by
    /// instance or stored identity), equal mixed values.
    func isSameElement(as other: _RealmValue) -> Bool {
        switch (storage, other.storage) {
        case (.stored(let a), .stored(let b)): a == b
        case (.object(let a?), .object(let b?)): a === b || ObjectBase.sameStoredObject(a, b)
        case (.object(nil), .object(nil)): true
        case (.mixed(let a), .mixed(let b)): a == b
        default: isNil && other.isNil
        }
    }
}

/// A persistable type that is not an optional: what `Optional` wraps.
public protocol _PersistableNonOptional: RealmCollectionValue {}

/// A type that can be an element of a `List` or `MutableSet`, or a value of a `Map`: every
/// persistable type except the collections themselves.
public protocol RealmCollectionValue: _Persistable {}

extension Optional: RealmCollectionValue where Wrapped: _PersistableNonOptional {}

extension Optional: _Persistable where Wrapped: _PersistableNonOptional {
    /// Optional properties default to nil.
    public static var _rlmDefaultValue: Self { nil }
    /// The wrapped type's storage, nullable.
    public static var _rlmType: _RealmPropertyType {
        let wrapped = Wrapped._rlmType
        return _RealmPropertyType(kind: wrapped.kind, isOptional: true, objectType: wrapped.objectType)
    }
    /// Reads nil or the wrapped value.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        let (leaf, row) = object.managedLocation()
        return leaf.isNull(row, column) ? nil : Wrapped._rlmGet(object, column: column)
    }
    /// Nil stores as null.
    public var _rlmValue: _RealmValue { self?._rlmValue ?? _RealmValue(.null) }
    /// Null reads as nil.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        if stored.isNil { return .some(.none) }
        guard let wrapped = Wrapped._rlmFromValue(stored) else { return nil }
        return .some(wrapped)
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .bool(let value) = stored.value else { return nil }
        return value
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .int(let value) = stored.value, let exact = Self(exactly: value) else { return nil }
        return exact
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .double(let value) = stored.value else { return nil }
        return value
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .float(let value) = stored.value else { return nil }
        return value
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .bytes(let bytes) = stored.value else { return nil }
        return String(decoding: bytes, as: UTF8.self)
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .bytes(let bytes) = stored.value else { return nil }
        return Data(bytes)
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .double(let value) = stored.value else { return nil }
        return Date(timeIntervalSinceReferenceDate: value)
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
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .fixed(let bytes) = stored.value, bytes.count == 16 else { return nil }
        return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
    }
}
