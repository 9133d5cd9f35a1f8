import Foundation
internal import RealmRuntime

/// Declares a property that RealmActors stores: Realm Swift's `@Persisted`.
///
/// ```swift
/// class Person: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted(indexed: true) var email = ""
///     @Persisted var nickname: String?
/// }
/// ```
///
/// On an unmanaged object the wrapper simply holds the value. Once the object is managed, reads
/// and writes go to the realm (`add` empties the wrapper of a promoted object, so that what it
/// held — linked objects above all — is not kept alive by an object that no longer reads it).
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    // Every instance of a model class holds one wrapper per property, initialised and destroyed
    // with it, so the wrapper holds only what every property needs: its unmanaged value and
    // three flags. A managed object's columns are not cached here: the handle finds them by key
    // path identity (`Realm.knownColumn`), which costs less than the exclusivity checks a
    // read-and-cache of this wrapper would pay on every fresh object. (Linking objects keep their
    // origin property in their value.)

    /// The value while unmanaged; nil means "the type's default". For `LinkingObjects`, an
    /// unbound value naming the origin property.
    @usableFromInline var unmanagedValue: Value?
    let isPrimaryKey: Bool
    let isIndexed: Bool
    /// Set on the wrapper a probe instance is looking for (see ``PropertyLabels``).
    var isProbeTarget = false

    /// For `LinkingObjects`: the property of the linking class that links here.
    var originProperty: String? { (unmanagedValue as? any LinkingObjectsBuilding)?.propertyName }

    /// A property whose initial value is the type's default (0, "", false, nil…).
    public init() {
        isPrimaryKey = false
        isIndexed = false
    }

    /// A property with an initial value.
    ///
    /// (Disfavored so that a `LinkingObjects` value picks `init(wrappedValue:)` for linking
    /// objects, which records its origin property.)
    @_disfavoredOverload
    public init(wrappedValue value: Value) {
        unmanagedValue = value
        isPrimaryKey = false
        isIndexed = false
    }

    /// A primary key (or not) with an initial value.
    public init(wrappedValue value: Value, primaryKey: Bool) {
        unmanagedValue = value
        isPrimaryKey = primaryKey
        isIndexed = false
    }

    /// An indexed property (or not) with an initial value.
    public init(wrappedValue value: Value, indexed: Bool) {
        unmanagedValue = value
        isPrimaryKey = false
        isIndexed = indexed
    }

    /// A primary key (or not) whose initial value is the type's default.
    public init(primaryKey: Bool) {
        isPrimaryKey = primaryKey
        isIndexed = false
    }

    /// An indexed property (or not) whose initial value is the type's default.
    public init(indexed: Bool) {
        isPrimaryKey = false
        isIndexed = indexed
    }

    /// Linking objects: the objects of `O` whose property `originProperty` links to this object.
    ///
    /// ```swift
    /// @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    /// ```
    public init<O: ObjectBase>(originProperty: String) where Value == LinkingObjects<O> {
        isPrimaryKey = false
        isIndexed = false
        unmanagedValue = LinkingObjects(fromType: O.self, property: originProperty)
    }

    /// Linking objects declared with a value, the older spelling:
    ///
    /// ```swift
    /// @Persisted var owners = LinkingObjects(fromType: Person.self, property: "dogs")
    /// ```
    public init<O: ObjectBase>(wrappedValue value: LinkingObjects<O>) where Value == LinkingObjects<O> {
        self.init(originProperty: value.propertyName)
    }

    /// Not available: a `@Persisted` property is accessed through its object.
    @available(*, unavailable, message: "@Persisted can only be used as a property on a Realm object")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used as a property on a Realm object") }
        set { fatalError("@Persisted can only be used as a property on a Realm object") }
    }

    /// Reads and writes the property through its object, so a managed object reaches its realm.
    ///
    /// Inlined into each property's accessors, where the key paths are literals: the optimizer
    /// then folds `object[keyPath: storageKeyPath]` to the wrapper's offset, so an unmanaged set
    /// is a store into the wrapper, and a managed read is the handle's column lookup (two
    /// comparisons) and a call to the type's reader. (Merely specialized, not inlined, the key path would be a
    /// runtime value and every wrapper access a generic key-path projection: 4× slower sets.)
    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        @inline(__always) get {
            // The handle knows the column once any object of the class has read the property.
            guard object.managingRealm != nil, let column = object.knownColumn(for: storageKeyPath) else {
                return slowGet(object, storageKeyPath)
            }
            return Value._rlmGet(object, column: column)
        }
        @inline(__always) set {
            if object.managingRealm != nil {
                if let column = object.knownColumn(for: storageKeyPath) { return object.setManaged(newValue._rlmValue, column: column) }
            } else if object.dynamicValues == nil {
                // Unmanaged: the value lives in the wrapper, where `add` reads it (see
                // `PersistedFieldLayout`). A store, nothing else.
                object[keyPath: storageKeyPath].unmanagedValue = newValue
                return
            }
            set(newValue, on: object, storageKeyPath)
        }
    }

    /// Every read but a managed read of a known column: unmanaged values, first reads, linking
    /// objects, key-path probes.
    @usableFromInline
    static func slowGet<EnclosingSelf: ObjectBase>(
        _ object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        guard let state = object.realmState else {
            if let recorder = object.keyPathRecorder {
                recorder.names.append(PropertyLabels.name(of: storageKeyPath) { $0[keyPath: storageKeyPath].isProbeTarget = true })
                return object[keyPath: storageKeyPath].unmanagedValue ?? Value._rlmDefaultValue
            }
            if let linking = linkingObjects(of: object, storageKeyPath) { return linking }
            return unmanagedValue(of: object, storageKeyPath)
        }
        if let linking = linkingObjects(of: object, storageKeyPath) { return linking }
        return Value._rlmGet(object, column: column(of: object, state, storageKeyPath))
    }

    /// Writes the property: by name while unmanaged, into the realm once managed.
    @usableFromInline
    static func set<EnclosingSelf: ObjectBase>(
        _ newValue: Value, on object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) {
        guard let state = object.realmState else {
            // An object with values given by name (they take precedence over the wrappers'):
            // the new value replaces the one given.
            if object.dynamicValues != nil {
                let name = PropertyLabels.name(of: storageKeyPath) { $0[keyPath: storageKeyPath].isProbeTarget = true }
                object.dynamicValues![name] = nil
            }
            object[keyPath: storageKeyPath].unmanagedValue = newValue
            return
        }
        let column = column(of: object, state, storageKeyPath)
        state.realm.set(newValue._rlmValue, column: column, of: object)
    }

    /// The `LinkingObjects` of a property declared with `init(originProperty:)` (whose column
    /// is never resolved: it has none); nil for every other property.
    private static func linkingObjects<EnclosingSelf: ObjectBase>(
        of object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value? {
        guard Value._rlmType.isLinkingObjects, let origin = object[keyPath: storageKeyPath].originProperty else { return nil }
        return (Value.self as! any LinkingObjectsBuilding.Type).linkingObjects(to: object, property: origin) as? Value
    }

    /// An unmanaged object's value: one given by name (`Object(value:)`, `obj["name"] = …`),
    /// else the wrapper's own. A value given by name moves into the wrapper when read, and a
    /// collection is created once and kept in the wrapper, so that changes made to what was
    /// read are what `add` stores.
    private static func unmanagedValue<EnclosingSelf: ObjectBase>(
        of object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        if object.dynamicValues != nil {
            let name = PropertyLabels.name(of: storageKeyPath) { $0[keyPath: storageKeyPath].isProbeTarget = true }
            if let given = object.dynamicValues?[name], let typed = Value._rlmFromValue(given) {
                object.dynamicValues![name] = nil
                object[keyPath: storageKeyPath].unmanagedValue = typed
                return typed
            }
        }
        if let value = object[keyPath: storageKeyPath].unmanagedValue { return value }
        let initial = Value._rlmDefaultValue
        if Value._rlmType.collection != nil { object[keyPath: storageKeyPath].unmanagedValue = initial }
        return initial
    }

    /// The property's column in the object's table, resolved by name the first time the handle
    /// sees the key path with that table (then cached by the handle).
    private static func column<EnclosingSelf: ObjectBase>(
        of object: EnclosingSelf, _ state: ObjectState,
        _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Int {
        state.realm.column(for: storageKeyPath, in: state.table) {
            let name = PropertyLabels.name(of: storageKeyPath) { probe in probe[keyPath: storageKeyPath].isProbeTarget = true }
            guard let column = state.table.columns[name] else {
                fatalError("Property '\(name)' of '\(EnclosingSelf.self)' is not in the realm's schema for '\(state.table.name)'.")
            }
            return column
        }
    }
}

/// What schema discovery and probing need from any `Persisted<Value>`, without knowing `Value`.
protocol PersistedProperty {
    /// The stored property's description; nil for `LinkingObjects` (computed, not stored).
    func propertyInfo(name: String) -> PropertyInfo?
    /// The class a link, a collection of links or linking objects refer to.
    var linkedType: ObjectBase.Type? { get }
    /// For `LinkingObjects`: the property of `linkedType` that links here.
    var originPropertyName: String? { get }
    /// The wrapper's own value (before `add`).
    var unmanagedRealmValue: _RealmValue { get }
    /// Whether the wrapper's own value may reference an object — a link, a collection of links,
    /// an `AnyRealmValue` (not linking objects, which hold none) — and so close a cycle of
    /// unmanaged objects that dropping it after `add` breaks. A string or a number cannot.
    static var unmanagedValueMayReferenceObjects: Bool { get }
    /// Sets the own value of the wrapper of this type at `wrapper` to nil ("the type's
    /// default"), releasing what it held. See ``PersistedFieldLayout/dropUnmanagedValues(of:)``
    /// for when this is called and why the pointer is valid.
    static func dropUnmanagedValue(at wrapper: UnsafeMutableRawPointer)
    /// Whether the property stores a value (false for `LinkingObjects`, which are computed).
    static var storesValue: Bool { get }
    var isProbeTarget: Bool { get }
}

extension Persisted: PersistedProperty {
    func propertyInfo(name: String) -> PropertyInfo? {
        let type = Value._rlmType
        guard !type.isLinkingObjects else { return nil }
        return PropertyInfo(name: name, kind: type.kind, isOptional: type.isOptional,
                            isPrimaryKey: isPrimaryKey, isIndexed: isIndexed,
                            objectClassName: type.objectType?.className(), collection: type.collection)
    }

    var linkedType: ObjectBase.Type? { Value._rlmType.objectType }
    var originPropertyName: String? { originProperty }
    var unmanagedRealmValue: _RealmValue { (unmanagedValue ?? Value._rlmDefaultValue)._rlmValue }
    static var storesValue: Bool { !Value._rlmType.isLinkingObjects }
    static var unmanagedValueMayReferenceObjects: Bool {
        let type = Value._rlmType
        return !type.isLinkingObjects && (type.kind == .object || type.kind == .mixed)
    }

    static func dropUnmanagedValue(at wrapper: UnsafeMutableRawPointer) {
        wrapper.assumingMemoryBound(to: Persisted<Value>.self).pointee.unmanagedValue = nil
    }
}

/// Maps a `@Persisted` wrapper's storage key path to the property's name.
///
/// Swift offers no public way to ask a key path for its property name, so the first time a key
/// path is seen a fresh instance of the class is made, the wrapper at that key path is marked,
/// and `Mirror` finds which stored property carries the mark. The answer is cached for the
/// process: once per class and property.
enum PropertyLabels {
    private static let keyPaths = KeyPathTable()

    static func name<Root: ObjectBase, Wrapper>(of keyPath: ReferenceWritableKeyPath<Root, Wrapper>,
                                                mark: (Root) -> Void) -> String {
        if let known = keyPaths.name(for: keyPath) { return known }
        let probe = Root()
        mark(probe)
        var mirror: Mirror? = Mirror(reflecting: probe)
        while let current = mirror {
            for child in current.children {
                if let property = child.value as? any PersistedProperty, property.isProbeTarget, let label = child.label {
                    let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                    keyPaths.record(keyPath, name: name)
                    return name
                }
            }
            mirror = current.superclassMirror
        }
        fatalError("Could not find the property of \(Root.self) at \(keyPath)")
    }
}

/// A lock-guarded map from key paths to property names, keyed by the key path object's identity
/// (a pointer hash, much cheaper than hashing a key path's components).
///
/// Each entry retains its key path, so an identity is never reused for another key path while it
/// is cached, and a hit is confirmed with `===`; a key path that is equal but not identical falls
/// back to the component-wise table. Both tables are guarded by `tables`' lock.
final class KeyPathTable: Sendable {
    /// A key path held inside the lock. `@unchecked Sendable`: a key path object is immutable
    /// once made (its components, and so its hash and equality, never change), so any thread
    /// may compare or hash it.
    private struct SharedKeyPath: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    private struct Tables {
        var byIdentity: [ObjectIdentifier: (keyPath: SharedKeyPath, name: String)] = [:]
        var byValue: [SharedKeyPath: String] = [:]
    }

    private let tables = Lock(Tables())

    func name(for keyPath: AnyKeyPath) -> String? {
        let shared = SharedKeyPath(keyPath: keyPath)
        return tables.withLock { tables in
            if let entry = tables.byIdentity[ObjectIdentifier(shared.keyPath)], entry.keyPath.keyPath === shared.keyPath { return entry.name }
            guard let name = tables.byValue[shared] else { return nil }
            tables.byIdentity[ObjectIdentifier(shared.keyPath)] = (shared, name)
            return name
        }
    }

    func record(_ keyPath: AnyKeyPath, name: String) {
        let shared = SharedKeyPath(keyPath: keyPath)
        tables.withLock { tables in
            tables.byValue[shared] = name
            tables.byIdentity[ObjectIdentifier(shared.keyPath)] = (shared, name)
        }
    }
}
