public import Foundation
internal import RealmRuntime

/// A property that can hold a value of any persistable type, or a link to any object:
/// Realm Swift's `AnyRealmValue` (a "mixed" property).
///
/// ```swift
/// class Setting: Object {
///     @Persisted var key = ""
///     @Persisted var value: AnyRealmValue
/// }
/// setting.value = .int(42)
/// setting.value = .string("on")
/// if case .string(let text) = setting.value { … }
/// ```
///
/// The value's type is stored with it. A linked object is unlinked (the value becomes `.none`)
/// when the object is deleted, as for any other link.
///
/// A mixed value can also be a list or a dictionary of mixed values, nested to any depth (up to
/// 100 levels), as in Realm:
///
/// ```swift
/// try realm.write {
///     setting.value = .fromDictionary(["sizes": .fromArray([.int(1), .int(2)]), "owner": .object(person)])
/// }
/// setting.value.dictionaryValue?["sizes"]?.listValue?[1]  // .int(2)
/// try realm.write { setting.value.dictionaryValue?["sizes"]?.listValue?.append(.int(3)) }
/// ```
///
/// Read from a managed object, a nested collection is live: it reads the object's property at
/// the realm's current version, and changing it (in a write transaction) rewrites the property.
/// Deleting an object linked from a nested collection removes it from a list and makes a
/// dictionary's value `.none`. Sets of mixed values cannot hold collections.
public enum AnyRealmValue: Equatable, Hashable {
    /// No value (nil).
    case none
    /// An integer.
    case int(Int)
    /// A boolean.
    case bool(Bool)
    /// A 32-bit float.
    case float(Float)
    /// A 64-bit float.
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A date.
    case date(Date)
    /// A link to an object.
    case object(Object)
    /// An ObjectId.
    case objectId(ObjectId)
    /// A Decimal128.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A dictionary of mixed values (string keys).
    case dictionary(Map<String, AnyRealmValue>)
    /// A list of mixed values.
    case list(List<AnyRealmValue>)

    /// `.none`.
    public init() { self = .none }

    /// A dictionary value holding a new unmanaged ``Map`` of `dictionary`'s entries.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// A list value holding a new unmanaged ``List`` of `array`'s elements.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(contentsOf: array)
        return .list(list)
    }

    /// The integer, if the value is one.
    public var intValue: Int? { if case .int(let value) = self { value } else { nil } }
    /// The boolean, if the value is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The float, if the value is one.
    public var floatValue: Float? { if case .float(let value) = self { value } else { nil } }
    /// The double, if the value is one.
    public var doubleValue: Double? { if case .double(let value) = self { value } else { nil } }
    /// The string, if the value is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The data, if the value is bytes.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The date, if the value is one.
    public var dateValue: Date? { if case .date(let value) = self { value } else { nil } }
    /// The ObjectId, if the value is one.
    public var objectIdValue: ObjectId? { if case .objectId(let value) = self { value } else { nil } }
    /// The Decimal128, if the value is one.
    public var decimal128Value: Decimal128? { if case .decimal128(let value) = self { value } else { nil } }
    /// The UUID, if the value is one.
    public var uuidValue: UUID? { if case .uuid(let value) = self { value } else { nil } }
    /// The dictionary, if the value is one (live when read from a managed object).
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let value) = self { value } else { nil } }
    /// The list, if the value is one (live when read from a managed object).
    public var listValue: List<AnyRealmValue>? { if case .list(let value) = self { value } else { nil } }

    /// Whether two values are equal: the same case with equal payloads. Two managed nested
    /// collections are equal when they are the same collection (the same path in the same
    /// property of the same object, as Realm's managed collections); otherwise collections are
    /// compared element by element.
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.list(let a), .list(let b)):
            if let left = a.managedLocation, let right = b.managedLocation { left.isSame(as: right) } else { a.elementsEqual(b) }
        case (.dictionary(let a), .dictionary(let b)):
            if let left = a.managedLocation, let right = b.managedLocation {
                left.isSame(as: right)
            } else {
                a.count == b.count && a.allSatisfy { b[$0.key] == $0.value }
            }
        default: false
        }
    }

    /// Hashes the case and its payload; collections hash their case only (their equality can be
    /// identity or content), as Realm Swift does.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let value): hasher.combine(1); hasher.combine(value)
        case .bool(let value): hasher.combine(2); hasher.combine(value)
        case .float(let value): hasher.combine(3); hasher.combine(value)
        case .double(let value): hasher.combine(4); hasher.combine(value)
        case .string(let value): hasher.combine(5); hasher.combine(value)
        case .data(let value): hasher.combine(6); hasher.combine(value)
        case .date(let value): hasher.combine(7); hasher.combine(value)
        case .object(let value): hasher.combine(8); hasher.combine(value)
        case .objectId(let value): hasher.combine(9); hasher.combine(value)
        case .decimal128(let value): hasher.combine(10); hasher.combine(value)
        case .uuid(let value): hasher.combine(11); hasher.combine(value)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }

    /// The linked object as a ``DynamicObject`` (whatever its class), if the value is a link.
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        if let dynamic = object as? DynamicObject { return dynamic }
        guard let state = object.realmState else { return nil }
        return state.realm.accessor(DynamicObject.self, table: state.table, key: state.key) as? DynamicObject
    }

    /// The linked object, if the value is a link to an object of type `T`.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let object) = self { return object as? T }
        return nil
    }

    /// The value for a Swift value of a persistable type (`nil` and unsupported types are `.none`).
    init(swiftValue value: Any?) {
        switch value {
        case let mixed as AnyRealmValue: self = mixed
        case let int as Int: self = .int(int)
        case let integer as any BinaryInteger: self = Int(exactly: integer).map { .int($0) } ?? .none
        case let bool as Bool: self = .bool(bool)
        case let float as Float: self = .float(float)
        case let double as Double: self = .double(double)
        case let string as String: self = .string(string)
        case let data as Data: self = .data(data)
        case let date as Date: self = .date(date)
        case let object as Object: self = .object(object)
        case let id as ObjectId: self = .objectId(id)
        case let decimal as Decimal128: self = .decimal128(decimal)
        case let uuid as UUID: self = .uuid(uuid)
        case let list as List<AnyRealmValue>: self = .list(list)
        case let map as Map<String, AnyRealmValue>: self = .dictionary(map)
        case let array as [AnyRealmValue]: self = .fromArray(array)
        case let dictionary as [String: AnyRealmValue]: self = .fromDictionary(dictionary)
        default: self = .none
        }
    }

    /// Whether the value is a list or a dictionary.
    var isCollection: Bool {
        switch self {
        case .list, .dictionary: true
        default: false
        }
    }

    /// The value as a plain Swift value, as the dynamic subscript returns a mixed property's
    /// (`object["value"]`); a nested collection is its ``List`` or ``Map``. Package access: the
    /// tools (`realm-inspect dump`) read mixed values through this one mapping.
    package var swiftValue: Any? {
        switch self {
        case .none: nil
        case .int(let value): value
        case .bool(let value): value
        case .float(let value): value
        case .double(let value): value
        case .string(let value): value
        case .data(let value): value
        case .date(let value): value
        case .object(let value): value
        case .objectId(let value): value
        case .decimal128(let value): value
        case .uuid(let value): value
        case .list(let value): value
        case .dictionary(let value): value
        }
    }
}

extension AnyRealmValue: RealmCollectionValue {
    /// `.none`.
    public static var _rlmDefaultValue: AnyRealmValue { .none }
    /// Stored tagged with its type.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .mixed, isOptional: false) }
    /// Reads and decodes the tagged value.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> AnyRealmValue {
        let realm = object.managingRealm!
        return realm.anyRealmValue(realm.value(of: object, column: column),
                                   at: CollectionLocation(owner: object, column: column, nested: .root))
    }
    /// The value, resolved when stored.
    public var _rlmValue: _RealmValue { _RealmValue(.mixed(self)) }
    /// From a stored mixed value.
    public static func _rlmFromValue(_ stored: _RealmValue) -> AnyRealmValue? {
        switch stored.storage {
        case .mixed(let value): value
        case .object(let object): (object as? Object).map { .object($0) } ?? AnyRealmValue.none
        case .stored(.null): AnyRealmValue.none
        default: nil
        }
    }
}

extension Realm {
    /// Decodes a stored mixed value; a link to a deleted object reads as `.none`. A nested
    /// collection is live at `location` (where the value lives, for a collection there), else an
    /// unmanaged copy.
    func anyRealmValue(_ stored: ColumnValue, at location: CollectionLocation? = nil) -> AnyRealmValue {
        if let location, let container = MixedPath.container(stored) {
            return container.isMap ? .dictionary(Map(location: location.nested(isMap: true)))
                : .list(List(location: location.nested(isMap: false)))
        }
        return anyRealmValue(stored, depth: 0)
    }

    /// A stored mixed value `depth` collections deep, decoded. Collections nested deeper than
    /// ``MixedValue/maximumNesting``, which no writer makes (a damaged or hostile value: a
    /// 16 MB value can nest millions deep), read as `.none` rather than recursing down the stack.
    private func anyRealmValue(_ stored: ColumnValue, depth: Int) -> AnyRealmValue {
        if depth >= MixedValue.maximumNesting && MixedValue.isCollection(stored) { return .none }
        switch MixedValue(stored: stored) {
        case .null:
            return .none
        case .list(let elements):
            return .fromArray(elements.map { anyRealmValue($0, depth: depth + 1) })
        case .dictionary(let elements):
            return .fromDictionary(Dictionary(PackedCollection.entries(elements).map { ($0.key, anyRealmValue($0.value, depth: depth + 1)) }) { $1 })
        case .link(let tree, let key):
            guard let table = catalog.tables.values.first(where: { $0.tree == tree }), mixedLinksUnchecked || locate(table, key) != nil,
                  let object = linkedObject(key, className: table.name, type: nil) as? Object
            else { return .none }
            return .object(object)
        case .value(let kind, let value):
            switch (kind, value) {
            case (.int, .int(let int)): return .int(Int(int))
            case (.bool, .bool(let bool)): return .bool(bool)
            case (.float, .float(let float)): return .float(float)
            case (.double, .double(let double)): return .double(double)
            case (.date, .double(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case (.string, .bytes(let bytes)): return .string(String(decoding: bytes, as: UTF8.self))
            case (.data, .bytes(let bytes)): return .data(Data(bytes))
            case (.objectId, _): return ObjectId._rlmFromValue(_RealmValue(value)).map { .objectId($0) } ?? .none
            case (.decimal128, _): return Decimal128._rlmFromValue(_RealmValue(value)).map { .decimal128($0) } ?? .none
            case (.uuid, _): return UUID._rlmFromValue(_RealmValue(value)).map { .uuid($0) } ?? .none
            default: return .none
            }
        }
    }

    /// Decodes the stored bytes of a mixed value (see `MixedValue`), as a property that held
    /// them would read: the fuzz harness `values` feeds it arbitrary bytes.
    package func anyRealmValue(storedBytes bytes: [UInt8]) -> AnyRealmValue {
        anyRealmValue(.bytes(bytes))
    }

    private static var tooDeep: Realm.Error {
        Realm.Error(.invalidInput, "Collections in an AnyRealmValue nest deeper than \(MixedValue.maximumNesting) levels (or a collection contains itself)")
    }

    /// The stored form of a mixed value, adding a linked unmanaged object first. `depth` is how
    /// deep in nested collections the value is.
    func storedMixed(_ value: AnyRealmValue, update: UpdatePolicy, depth: Int = 0) throws -> ColumnValue {
        let mixed: MixedValue
        switch value {
        case .none: mixed = .null
        case .int(let int): mixed = .value(.int, .int(Int64(int)))
        case .bool(let bool): mixed = .value(.bool, .bool(bool))
        case .float(let float): mixed = .value(.float, .float(float))
        case .double(let double): mixed = .value(.double, .double(double))
        case .string(let string): mixed = .value(.string, .bytes(Array(string.utf8)))
        case .data(let data): mixed = .value(.data, .bytes(Array(data)))
        case .date(let date): mixed = .value(.date, .double(date.timeIntervalSinceReferenceDate))
        case .objectId(let id): mixed = .value(.objectId, id._rlmValue.value)
        case .decimal128(let decimal): mixed = .value(.decimal128, decimal._rlmValue.value)
        case .uuid(let uuid): mixed = .value(.uuid, uuid._rlmValue.value)
        case .object(let object):
            let key = try linkKey(for: object, className: nil, update: update)
            // The stored class (a managed `DynamicObject` reports its table's, not "DynamicObject").
            guard let table = catalog.tables[object.objectClassName] else {
                throw Realm.Error(.invalidInput, "'\(object.objectClassName)' is not in the realm's schema")
            }
            mixed = .link(table: table.tree, key: key)
        case .list(let list):
            guard depth < MixedValue.maximumNesting else { throw Self.tooDeep }
            mixed = .list(try list.map { try storedMixed($0, update: update, depth: depth + 1) })
        case .dictionary(let map):
            guard depth < MixedValue.maximumNesting else { throw Self.tooDeep }
            let entries = try map.map { (key: $0.key, value: try storedMixed($0.value, update: update, depth: depth + 1)) }
            mixed = .dictionary(PackedCollection.mapElements(entries))
        }
        return mixed.stored
    }
}
