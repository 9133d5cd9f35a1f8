import Synchronization
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
/// and writes go to the realm; the wrapper then only caches which column the property is.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// The value while unmanaged; nil means "the type's default".
    @usableFromInline var unmanagedValue: Value?
    /// The property's physical column once resolved (-1 until the first managed access;
    /// -2 marks the wrapper a probe is looking for).
    @usableFromInline var column: Int = -1
    let isPrimaryKey: Bool
    let isIndexed: Bool
    /// For `LinkingObjects`: the property of the linking class that links here.
    var originProperty: String?

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
        self.originProperty = originProperty
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
    /// Inlinable so that it specializes in the module declaring the class: a managed read of a
    /// resolved column is then a field load (the key path folds to an offset) and a call to the
    /// type's reader, with no generic metadata lookups or wrapper copies.
    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            guard let state = object.realmState else { return slowGet(object, storageKeyPath) }
            var column = object[keyPath: storageKeyPath].column
            if column < 0 {
                // A fresh accessor: the handle knows the column from earlier objects of the class.
                guard let known = state.knownColumn(for: storageKeyPath) else { return slowGet(object, storageKeyPath) }
                column = known
                object[keyPath: storageKeyPath].column = known
            }
            return Value._rlmGet(object, column: column)
        }
        set {
            if let state = object.realmState {
                var column = object[keyPath: storageKeyPath].column
                if column < 0, let known = state.knownColumn(for: storageKeyPath) {
                    column = known
                    object[keyPath: storageKeyPath].column = known
                }
                if column >= 0 { return state.set(newValue._rlmValue, column: column) }
            } else if let name = PropertyLabels.knownName(of: storageKeyPath) {
                // Unmanaged, a property seen before: recorded by name only (the getter reads
                // values by name first; writing the wrapper too would cost a key-path write).
                object.recordUnmanagedValue(newValue._rlmValue, named: name)
                return
            }
            set(newValue, on: object, storageKeyPath)
        }
    }

    /// Every read but a managed read of a resolved column: unmanaged values, first reads,
    /// linking objects, key-path probes.
    @usableFromInline
    static func slowGet<EnclosingSelf: ObjectBase>(
        _ object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        guard let state = object.realmState else {
            if let recorder = object.keyPathRecorder {
                recorder.names.append(PropertyLabels.name(of: storageKeyPath) { $0[keyPath: storageKeyPath].column = -2 })
                return object[keyPath: storageKeyPath].unmanagedValue ?? Value._rlmDefaultValue
            }
            if let linking = linkingObjects(of: object, storageKeyPath) { return linking }
            return unmanagedValue(of: object, storageKeyPath)
        }
        let cached = object[keyPath: storageKeyPath].column
        if cached >= 0 { return Value._rlmGet(object, column: cached) }
        if let linking = linkingObjects(of: object, storageKeyPath) { return linking }
        return Value._rlmGet(object, column: column(of: object, state, storageKeyPath))
    }

    /// Writes the property: by name while unmanaged, into the realm once managed.
    @usableFromInline
    static func set<EnclosingSelf: ObjectBase>(
        _ newValue: Value, on object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) {
        guard let state = object.realmState else {
            // Also recorded by name, so that `add` can read the object without reflection.
            let name = PropertyLabels.name(of: storageKeyPath) { $0[keyPath: storageKeyPath].column = -2 }
            if object.dynamicValues == nil { object.dynamicValues = [:] }
            object.dynamicValues![name] = newValue._rlmValue
            object[keyPath: storageKeyPath].unmanagedValue = newValue
            return
        }
        let column = column(of: object, state, storageKeyPath)
        state.realm.set(newValue._rlmValue, column: column, of: state)
    }

    /// The `LinkingObjects` of a property declared with `init(originProperty:)` (whose column
    /// is never resolved: it has none); nil for every other property.
    private static func linkingObjects<EnclosingSelf: ObjectBase>(
        of object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value? {
        guard let origin = object[keyPath: storageKeyPath].originProperty else { return nil }
        return (Value.self as! any LinkingObjectsBuilding.Type).linkingObjects(to: object, property: origin) as? Value
    }

    /// An unmanaged object's value: one given by name (`Object(value:)`, `obj["name"] = …`),
    /// else the wrapper's own. A collection is created once and kept (in the wrapper and by
    /// name), so that changes made to it are what `add` stores.
    private static func unmanagedValue<EnclosingSelf: ObjectBase>(
        of object: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        let isCollection = Value._rlmType.collection != nil
        if object.dynamicValues != nil || isCollection {
            let name = PropertyLabels.name(of: storageKeyPath) { $0[keyPath: storageKeyPath].column = -2 }
            if let given = object.dynamicValues?[name], let typed = Value._rlmFromValue(given) {
                if isCollection {
                    object[keyPath: storageKeyPath].unmanagedValue = typed
                    object.dynamicValues![name] = typed._rlmValue
                }
                return typed
            }
            if isCollection {
                let collection = object[keyPath: storageKeyPath].unmanagedValue ?? Value._rlmDefaultValue
                object[keyPath: storageKeyPath].unmanagedValue = collection
                if object.dynamicValues == nil { object.dynamicValues = [:] }
                object.dynamicValues![name] = collection._rlmValue
                return collection
            }
        }
        return object[keyPath: storageKeyPath].unmanagedValue ?? Value._rlmDefaultValue
    }

    /// The property's column, resolved on first managed access and then cached in the wrapper.
    @inline(__always)
    private static func column<EnclosingSelf: ObjectBase>(
        of object: EnclosingSelf, _ state: ObjectState,
        _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Int {
        let cached = object[keyPath: storageKeyPath].column
        if cached >= 0 { return cached }
        let column = state.realm.column(for: storageKeyPath, in: state.table) {
            let name = PropertyLabels.name(of: storageKeyPath) { probe in probe[keyPath: storageKeyPath].column = -2 }
            guard let column = state.table.columns[name] else {
                fatalError("Property '\(name)' of '\(EnclosingSelf.self)' is not in the realm's schema for '\(state.table.name)'.")
            }
            return column
        }
        object[keyPath: storageKeyPath].column = column
        return column
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
    /// Whether the initial value is the same for every instance of the class when it is equal
    /// in two fresh instances (false for collections holding elements: they are per instance).
    var hasComparableDefault: Bool { get }
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
    var hasComparableDefault: Bool {
        guard let value = unmanagedValue?._rlmValue else { return true }
        switch value.storage {
        case .stored: return true
        case .object(let object): return object == nil
        case .collection(let collection): return collection._rlmContent.isEmptyContent
        default: return false
        }
    }
    var isProbeTarget: Bool { column == -2 }
}

/// Maps a `@Persisted` wrapper's storage key path to the property's name.
///
/// Swift offers no public way to ask a key path for its property name, so the first time a key
/// path is seen a fresh instance of the class is made, the wrapper at that key path is marked,
/// and `Mirror` finds which stored property carries the mark. The answer is cached for the
/// process: once per class and property.
@usableFromInline
enum PropertyLabels {
    private static let keyPaths = KeyPathTable()

    /// The name of a key path already seen (nil the first time).
    @usableFromInline
    static func knownName(of keyPath: AnyKeyPath) -> String? { keyPaths.name(for: keyPath) }

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

    private let tables = Mutex(Tables())

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
