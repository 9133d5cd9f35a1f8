import Foundation
internal import RealmRuntime
@_spi(Reflection) import Swift

/// Where each `@Persisted` wrapper of a class lives inside its instances, so that `add` reads an
/// unmanaged object's values straight from its wrappers.
///
/// An unmanaged object keeps its values in its wrappers (a setter is a store into the wrapper,
/// nothing else). `add` needs them all, by property: `Mirror` can find them but decodes every
/// field's type from its mangled name, for every object (microseconds each). Instead the
/// runtime's field metadata is read once per class (`_forEachField`, the enumeration `Mirror`
/// itself is built on): each stored property's name, byte offset and type. A wrapper is then
/// read by loading its type at its offset from the object's address, as Realm reads an
/// Objective-C ivar.
///
/// Why the load is safe (`forEachValue(in:_:)`): the layout is looked up by the object's dynamic
/// class, whose instances all have, by the runtime's own metadata, a field of exactly the
/// wrapper's type at the wrapper's offset (a subclass's layout is its own: its superclasses' fields come first, at the same
/// offsets); the object is alive for the read (the caller holds it, and the read is inside
/// `withExtendedLifetime`), and nothing writes it concurrently (an object is not `Sendable`; its
/// owner's isolation domain is the one reading it).
///
/// - Complexity: building a layout is O(fields), once per class per process; reading a field is
///   a copy of the wrapper.
struct PersistedFieldLayout: Sendable {
    /// A stored `@Persisted` property (linking objects, which store nothing, are left out).
    ///
    /// `@unchecked Sendable`: a name, a byte offset and a wrapper type, none of which ever
    /// changes (the type is only `Sendable`-unknown because `Persisted` itself is not `Sendable`).
    struct Field: @unchecked Sendable {
        /// The property's name (the field's, without the wrapper's leading underscore).
        let name: String
        /// The wrapper's byte offset in an instance.
        let offset: Int
        /// How to load the wrapper (see ``Load``).
        let load: Load

        /// The wrapper's type, for loading it. Generic code over a wrapper type known only at
        /// run time looks up type metadata on every call (`Optional<Value>`'s, to read the
        /// wrapper's value), which was most of the cost of reading an object; so the common
        /// property types get a case whose load is compiled for their type, and any other type
        /// goes through `other`. (An enum rather than a stored closure per field: calling a
        /// closure kept in an array retained and released its context on every read.)
        enum Load {
            case int, string, double, bool, date, optionalInt, optionalString, optionalDouble, optionalBool
            case optionalDate, data, uuid, objectId, float, int64, int32
            case other(any PersistedProperty.Type)

            init(_ wrapper: any PersistedProperty.Type) {
                let cases: [(any PersistedProperty.Type, Load)] = [
                    (Persisted<Int>.self, .int), (Persisted<String>.self, .string), (Persisted<Double>.self, .double),
                    (Persisted<Bool>.self, .bool), (Persisted<Date>.self, .date), (Persisted<Int?>.self, .optionalInt),
                    (Persisted<String?>.self, .optionalString), (Persisted<Double?>.self, .optionalDouble),
                    (Persisted<Bool?>.self, .optionalBool), (Persisted<Date?>.self, .optionalDate),
                    (Persisted<Data>.self, .data), (Persisted<UUID>.self, .uuid), (Persisted<ObjectId>.self, .objectId),
                    (Persisted<Float>.self, .float), (Persisted<Int64>.self, .int64), (Persisted<Int32>.self, .int32),
                ]
                self = cases.first { $0.0 == wrapper }?.1 ?? .other(wrapper)
            }
        }

        /// The stored form of the value in this field's wrapper of the instance at `address`.
        @inline(__always)
        func value(at address: UnsafeRawPointer) -> _RealmValue {
            let wrapper = address + offset
            func loaded<Value: _Persistable>(_: Value.Type) -> _RealmValue {
                wrapper.load(as: Persisted<Value>.self).unmanagedRealmValue
            }
            func loaded<Wrapper: PersistedProperty>(_: Wrapper.Type) -> _RealmValue {
                wrapper.load(as: Wrapper.self).unmanagedRealmValue
            }
            switch load {
            case .int: return loaded(Int.self)
            case .string: return loaded(String.self)
            case .double: return loaded(Double.self)
            case .bool: return loaded(Bool.self)
            case .date: return loaded(Date.self)
            case .optionalInt: return loaded(Int?.self)
            case .optionalString: return loaded(String?.self)
            case .optionalDouble: return loaded(Double?.self)
            case .optionalBool: return loaded(Bool?.self)
            case .optionalDate: return loaded(Date?.self)
            case .data: return loaded(Data.self)
            case .uuid: return loaded(UUID.self)
            case .objectId: return loaded(ObjectId.self)
            case .float: return loaded(Float.self)
            case .int64: return loaded(Int64.self)
            case .int32: return loaded(Int32.self)
            case .other(let type): return loaded(type)
            }
        }
    }

    /// A stored property whose wrapper's own value may reference an object: a link, a
    /// collection of links, an `AnyRealmValue` (see ``dropUnmanagedValues(of:)``).
    ///
    /// `@unchecked Sendable`: a byte offset and a wrapper type, neither of which ever changes.
    struct HoldingField: @unchecked Sendable {
        /// The wrapper's byte offset in an instance.
        let offset: Int
        /// The wrapper's type, which knows how to empty it.
        let wrapper: any PersistedProperty.Type
    }

    /// The stored properties, superclasses' first, each class's in declaration order (the order
    /// of ``ObjectSchemaDiscovery/persistedChildren(of:)``).
    let fields: [Field]

    /// The stored properties whose values may reference objects (``PersistedProperty/unmanagedValueMayReferenceObjects``).
    let holdingFields: [HoldingField]

    /// Whether an instance holds nothing but `@Persisted` wrappers (linking objects included)
    /// and ``ObjectBase``'s own fields: no stored property the class declares for itself. A
    /// managed instance of such a class is then fully described by its handle, table and key,
    /// so an accessor nothing references can be moved to another object unobservably (see
    /// `Results.Iterator`).
    let holdsOnlyPersistedState: Bool

    /// How many stored fields ``ObjectBase`` itself has: the fields of every subclass that are
    /// not wrappers, when the subclass declares no state of its own (a subclass's enumeration
    /// lists its superclasses' fields too).
    private static let baseFieldCount: Int? = {
        var count = 0
        let complete = _forEachField(of: ObjectBase.self, options: _EachFieldOptions(rawValue: 1 << 0)) { _, _, _, _ in
            count += 1
            return true
        }
        return complete ? count : nil
    }()

    /// Layouts by class, built on first use; guarded by the mutex.
    private static let cache = Lock<[ObjectIdentifier: PersistedFieldLayout]>([:])

    /// The layout of `type`'s instances, or nil if the runtime cannot enumerate its fields (the
    /// caller then reflects the object).
    static func of(_ type: ObjectBase.Type) -> PersistedFieldLayout? {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        var fields: [Field] = []
        var holdingFields: [HoldingField] = []
        var otherFields = 0
        // `.classType` spelled by its raw value: the stdlib declares the option as a mutable
        // static, which strict concurrency checking rejects reading.
        let complete = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            guard let wrapper = fieldType as? any PersistedProperty.Type else {
                otherFields += 1
                return true
            }
            guard wrapper.storesValue else { return true }
            let label = String(cString: name)
            fields.append(Field(name: label.hasPrefix("_") ? String(label.dropFirst()) : label,
                                offset: offset, load: Field.Load(wrapper)))
            if wrapper.unmanagedValueMayReferenceObjects { holdingFields.append(HoldingField(offset: offset, wrapper: wrapper)) }
            return true
        }
        guard complete else { return nil }
        let layout = PersistedFieldLayout(fields: fields, holdingFields: holdingFields,
                                          holdsOnlyPersistedState: otherFields == baseFieldCount)
        cache.withLock { $0[id] = layout }
        return layout
    }

    /// Calls `body` with the index in ``fields`` and the stored form of the value of each
    /// field's wrapper of `object`, an unmanaged instance of the class this layout describes
    /// (see the type's comment for why the loads are safe).
    /// - Complexity: O(fields); no allocation but what the values themselves need.
    func forEachValue(in object: ObjectBase, _ body: (Int, _RealmValue) -> Void) {
        withExtendedLifetime(object) {
            let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            fields.withUnsafeBufferPointer { fields in
                for index in fields.indices { body(index, fields[index].value(at: address)) }
            }
        }
    }

    /// Empties the wrappers of `object`, an instance of the class this layout describes that
    /// `add` has just made managed, once its values are read (what `add` stores was copied out
    /// of them before).
    ///
    /// A managed object reads and writes its realm, never its wrappers' own values (which only
    /// an unmanaged object uses), so what they held would only be kept alive: a cycle of
    /// unmanaged objects linking to each other (`a.friend = a`, a list holding its owner) would
    /// then outlive its last outside reference, each object holding the next through a wrapper.
    /// Realm Swift likewise drops an object's unmanaged storage when it promotes it. Only values
    /// that may reference objects are dropped: strings, numbers and collections of them cannot
    /// close a cycle and are freed with the instance, as before (emptying every string cost a
    /// bulk insert 11–17 %, realm-bench W1).
    ///
    /// Why the stores are safe: those of ``forEachValue(in:_:)``'s loads, and the object is not
    /// being accessed otherwise (the caller, `add`, holds it and runs in its isolation domain,
    /// outside any of its property accesses); each store is typed by the wrapper's own type.
    func dropUnmanagedValues(of object: ObjectBase) {
        guard !holdingFields.isEmpty else { return }
        withExtendedLifetime(object) {
            let address = Unmanaged.passUnretained(object).toOpaque()
            for field in holdingFields { field.wrapper.dropUnmanagedValue(at: address + field.offset) }
        }
    }
}
