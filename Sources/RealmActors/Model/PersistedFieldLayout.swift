import Foundation
@_spi(Reflection) import Swift
import Synchronization

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
/// Why the load is safe (`value(of:in:)`): the layout is looked up by the object's dynamic
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
    /// `@unchecked Sendable`: a name and a function capturing only the wrapper's byte offset and
    /// type, none of which ever changes (the type is only `Sendable`-unknown because `Persisted`
    /// itself is not `Sendable`).
    struct Field: @unchecked Sendable {
        /// The property's name (the field's, without the wrapper's leading underscore).
        let name: String
        /// Reads the wrapper's value from an instance's address: a load of the wrapper's type at
        /// its offset (see `reader(of:at:)`).
        let read: (UnsafeRawPointer) -> _RealmValue
    }

    /// The stored properties, superclasses' first, each class's in declaration order (the order
    /// of ``ObjectSchemaDiscovery/persistedChildren(of:)``).
    let fields: [Field]

    /// Layouts by class, built on first use; guarded by the mutex.
    private static let cache = Mutex<[ObjectIdentifier: PersistedFieldLayout]>([:])

    /// The layout of `type`'s instances, or nil if the runtime cannot enumerate its fields (the
    /// caller then reflects the object).
    static func of(_ type: ObjectBase.Type) -> PersistedFieldLayout? {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        var fields: [Field] = []
        // `.classType` spelled by its raw value: the stdlib declares the option as a mutable
        // static, which strict concurrency checking rejects reading.
        let complete = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            guard let wrapper = fieldType as? any PersistedProperty.Type, wrapper.storesValue else { return true }
            let label = String(cString: name)
            fields.append(Field(name: label.hasPrefix("_") ? String(label.dropFirst()) : label,
                                read: reader(of: wrapper, at: offset)))
            return true
        }
        guard complete else { return nil }
        let layout = PersistedFieldLayout(fields: fields)
        cache.withLock { $0[id] = layout }
        return layout
    }

    /// The stored form of the value in `field`'s wrapper of `object`, an unmanaged instance of
    /// the class this layout describes (see the type's comment for why the load is safe).
    func value(of field: Field, in object: ObjectBase) -> _RealmValue {
        withExtendedLifetime(object) { field.read(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
    }

    /// A function reading a wrapper of type `wrapper` at `offset` from an instance's address.
    ///
    /// Generic code over a wrapper type known only at run time looks up type metadata on every
    /// call (`Optional<Value>`'s, to read the wrapper's value): that was most of the cost of
    /// reading an object. The common property types get a reader compiled for their type; any
    /// other one reads through the generic path.
    private static func reader(of wrapper: any PersistedProperty.Type, at offset: Int) -> (UnsafeRawPointer) -> _RealmValue {
        func compiled<Value: _Persistable>(_: Value.Type) -> ((UnsafeRawPointer) -> _RealmValue)? {
            guard wrapper == Persisted<Value>.self else { return nil }
            return { $0.load(fromByteOffset: offset, as: Persisted<Value>.self).unmanagedRealmValue }
        }
        func generic<Wrapper: PersistedProperty>(_: Wrapper.Type) -> (UnsafeRawPointer) -> _RealmValue {
            { $0.load(fromByteOffset: offset, as: Wrapper.self).unmanagedRealmValue }
        }
        return compiled(Int.self) ?? compiled(String.self) ?? compiled(Double.self) ?? compiled(Bool.self)
            ?? compiled(Date.self) ?? compiled(Int?.self) ?? compiled(String?.self) ?? compiled(Double?.self)
            ?? compiled(Bool?.self) ?? compiled(Date?.self) ?? compiled(Data.self) ?? compiled(UUID.self)
            ?? compiled(ObjectId.self) ?? compiled(Float.self) ?? compiled(Int64.self) ?? compiled(Int32.self)
            ?? generic(wrapper)
    }
}
