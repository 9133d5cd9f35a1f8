import Foundation
internal import RealmRuntime

/// The base of every class RealmActors persists: ``Object`` and ``EmbeddedObject``.
///
/// Subclasses declare `@Persisted` properties; anything else is an ordinary Swift property that
/// RealmActors ignores. An instance starts *unmanaged* (a plain object holding its own values);
/// `realm.add(_:)` makes that same instance *managed*: its persisted properties then read and
/// write the realm.
open class ObjectBase: Hashable, CustomStringConvertible {
    /// Creates an unmanaged object; properties take the initial values of their declarations.
    public required init() {}

    // MARK: Managed state
    //
    // A managed object is its own accessor: the realm handle, table and key it reads, plus a
    // cache of where that row is at the handle's current version, live inline in the instance
    // (not in a separate state object), so that making an accessor is one allocation and a
    // property read follows no pointer but the handle's. All of it is set once by `attach` and
    // then only the position cache changes.
    //
    // Unchecked exclusivity on the fields read by every property access: an object is not
    // Sendable and belongs to its realm's isolation domain, and nothing modifies these while they
    // are being read (see `Realm.reader`).

    /// The realm handle this object reads and writes; nil while unmanaged. Strong, as in Realm:
    /// an accessor keeps its realm open.
    @exclusivity(unchecked) @usableFromInline final var managingRealm: Realm?
    /// The object's table (set with `managingRealm`).
    final var managedTable: Table?
    /// The object's key in `managedTable`.
    final var managedKey: UInt64 = 0
    /// The handle's ``Realm/positionStamp`` when `cachedLeaf` and `cachedRow` were found; `.max`
    /// when the position is unknown.
    @exclusivity(unchecked) private final var cachedStamp: UInt64 = .max
    @exclusivity(unchecked) private final var cachedLeaf: UnsafeRawPointer?
    @exclusivity(unchecked) private final var cachedRow = 0
    /// The handle's invalidation count when this accessor was made.
    private final var generation: UInt64 = 0
    /// The handle's ``Realm/stamp`` when this accessor was made (see ``Realm/revokedObjects``).
    private final var born: UInt64 = 0

    /// Makes this (unmanaged) instance an accessor of the object `key` of `table`.
    final func attach(to realm: Realm, table: Table, key: UInt64) {
        managingRealm = realm
        managedTable = table
        move(to: key, at: nil)
    }

    /// Makes this (new) instance an accessor of the object at `row` of `leaf`, found by walking
    /// its table at the handle's current version: its first property read needs no lookup.
    final func attach(to realm: Realm, table: Table, leaf: ClusterLeaf, row: Int) {
        managingRealm = realm
        managedTable = table
        move(to: leaf.key(row), at: (leaf, row))
    }

    /// Makes this accessor one of the object `key` of the same table, at `position` in its
    /// handle's current version if known: the end of `attach`, and what `Results.Iterator` does
    /// to an accessor it gave out that nothing references any more (see
    /// ``isOnlyReference(_:)``), instead of making a new one.
    ///
    /// Precondition: managed (`managingRealm` set).
    final func move(to key: UInt64, at position: (leaf: ClusterLeaf, row: Int)?) {
        let realm = managingRealm!
        managedKey = key
        generation = realm.invalidations
        born = realm.stamp
        if let position {
            cachedStamp = realm.positionStamp
            cachedLeaf = position.leaf.base
            cachedRow = position.row
        } else {
            cachedStamp = .max
            cachedLeaf = nil
        }
    }

    /// Whether `object` is the only reference of any kind to the object: no other strong one,
    /// and no weak or unowned one (the runtime counts each as 1 while there are none). Nothing
    /// could then tell this instance from a new one if ``move(to:at:)`` made it another object's
    /// accessor, provided its class keeps no state but its wrappers
    /// (``PersistedFieldLayout/holdsOnlyPersistedState``).
    ///
    /// `unowned(unsafe)` and `Unmanaged` references are not counted: using one after the
    /// object's last strong reference is gone is undefined behaviour anyway.
    @inline(__always)
    static func isOnlyReference<Accessor: ObjectBase>(_ object: inout Accessor) -> Bool {
        guard isKnownUniquelyReferenced(&object) else { return false }
        return _getWeakRetainCount(object) <= 1 && _getUnownedRetainCount(object) <= 1
    }

    /// The realm, table and key of a managed object; nil while unmanaged. A copy, for the code
    /// off the property-read path (which reads the fields above directly).
    final var realmState: ObjectState? {
        guard let realm = managingRealm, let table = managedTable else { return nil }
        return ObjectState(realm: realm, table: table, key: managedKey)
    }

    /// The column of the property at `keyPath` if the handle has resolved it for this managed
    /// object's table before (one lookup); nil otherwise.
    @usableFromInline
    final func knownColumn(for keyPath: AnyKeyPath) -> Int? {
        managingRealm!.knownColumn(for: keyPath, in: managedTable!)
    }

    /// Writes a property of this managed object (see `Realm.set`).
    @usableFromInline
    final func setManaged(_ value: _RealmValue, column: Int) {
        managingRealm!.set(value, column: column, of: self)
    }

    /// The leaf and row of this managed object now, or nil if it no longer exists (or its realm
    /// was invalidated since it was read).
    ///
    /// While the handle's `positionStamp` is unchanged (no refresh, no change in the current
    /// write transaction that could move a row) the cached leaf pointer and row stay valid, so
    /// the common case is one comparison; otherwise the object is found again by key.
    @inline(__always)
    final func location() -> (ClusterLeaf, Int)? {
        if let knownPosition { return knownPosition }
        guard let realm = managingRealm else { return nil }
        return relocate(in: realm)
    }

    /// The leaf and row of this managed object if they are known at the handle's current
    /// position stamp: a property read found them, and no row has moved since. No lookup.
    @inline(__always)
    final var knownPosition: (ClusterLeaf, Int)? {
        guard let realm = managingRealm, cachedStamp == realm.positionStamp, let cachedLeaf else { return nil }
        return (ClusterLeaf(cachedLeaf), cachedRow)
    }

    /// `location()` after the handle's position stamp moved: checks that the object still exists and
    /// finds its row again.
    private final func relocate(in realm: Realm) -> (ClusterLeaf, Int)? {
        guard generation == realm.invalidations, let table = managedTable else { return nil }
        if !realm.revokedObjects.isEmpty, let revokedAt = realm.revokedObjects[Realm.ObjectIdentity(tree: table.tree, key: managedKey)],
           born < revokedAt {
            return nil  // deleted in a cancelled write: the data is back, this instance is not
        }
        guard let (found, foundRow) = realm.locate(table, managedKey) else {
            cachedLeaf = nil
            return nil
        }
        cachedStamp = realm.positionStamp
        cachedLeaf = found.base
        cachedRow = foundRow
        return (found, foundRow)
    }

    /// Set on the probe objects `where { }` uses to learn property names from key paths: a
    /// property read then records its name instead of reading (see ``QueryKeyPaths``).
    final var keyPathRecorder: KeyPathRecorder?

    /// Values an unmanaged object was given by property name (`Object(value:)`, `obj["x"] = …`,
    /// a ``DynamicObject``'s values); they take precedence over the wrappers' own values. nil for
    /// an object whose values are all in its wrappers (one made with `init()` and setters), which
    /// is what keeps a setter a store into its wrapper.
    @usableFromInline final var dynamicValues: [String: _RealmValue]?

    /// Records a value of an unmanaged object by property name (it takes precedence over the
    /// property's wrapper).
    final func recordUnmanagedValue(_ value: _RealmValue, named name: String) {
        if dynamicValues == nil { dynamicValues = Dictionary(minimumCapacity: 8) }
        dynamicValues![name] = value
    }

    /// The leaf and row holding this managed object at its realm's current version.
    /// Traps, as Realm does, if the object was deleted or its realm invalidated.
    @inline(__always)
    final func managedLocation() -> (ClusterLeaf, Int) {
        guard let location = location() else {
            fatalError("Object has been deleted or invalidated.")
        }
        return location
    }

    /// Calls `body` with the bytes of a byte-string column of this managed object.
    /// Bytes stored in the leaf itself are read in place; only an overflow value needs the
    /// handle's transaction (which page holds it, decrypted if need be).
    final func managedBytes<R>(_ column: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let (leaf, row) = managedLocation()
        let stored = leaf.storedBytes(row, column)
        if case .inline(let bytes) = stored { return body(bytes) }
        return managingRealm!.withBytes(stored, body)
    }

    /// The realm managing this object, or nil while it is unmanaged.
    public final var realm: Realm? { managingRealm }

    /// Whether the object was deleted, or its realm invalidated, since it was read.
    public final var isInvalidated: Bool {
        guard managingRealm != nil else { return false }
        return location() == nil
    }

    /// Whether the object belongs to a frozen realm (read through a ``Frozen`` snapshot).
    public final var isFrozen: Bool { managingRealm?.isFrozen ?? false }

    /// The name under which the class is stored: the Swift class name, unqualified.
    open class func className() -> String {
        String(describing: self)
    }

    /// Two objects are equal if they are the same instance, or manage the same stored object.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        lhs === rhs || sameStoredObject(lhs, rhs)
    }

    /// Whether two managed objects are accessors of one stored object.
    static func sameStoredObject(_ lhs: ObjectBase, _ rhs: ObjectBase) -> Bool {
        guard let left = lhs.realmState, let right = rhs.realmState else { return false }
        return left.realm.file === right.realm.file && left.table.tree == right.table.tree && left.key == right.key
    }

    /// Hashes the stored object's identity (or the instance's, while unmanaged).
    public func hash(into hasher: inout Hasher) {
        if let state = realmState {
            hasher.combine(state.table.tree)
            hasher.combine(state.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    /// The class name and every persisted property, as Realm prints objects.
    open var description: String {
        let properties = realmState?.table.schema.properties ?? ObjectSchemaDiscovery.schema(for: type(of: self)).properties
        func describe(_ value: Any?) -> String {
            switch value {
            case nil: "nil"
            case let object as ObjectBase: "\(object.objectClassName) (link)"
            case let array as [Any?]: "[" + array.map(describe).joined(separator: ", ") + "]"
            case let map as [String: Any?]: "[" + map.sorted { $0.key < $1.key }.map { "\($0.key): \(describe($0.value))" }.joined(separator: ", ") + "]"
            case let mixed as AnyRealmValue: describe(mixed.swiftValue)
            case let list as List<AnyRealmValue>: "[" + list.map { describe($0) }.joined(separator: ", ") + "]"
            case let map as Map<String, AnyRealmValue>: "[" + map.map { "\($0.key): \(describe($0.value))" }.joined(separator: ", ") + "]"
            default: "\(value!)"
            }
        }
        let fields = properties.map { "\t\($0.name) = \(describe(self[$0.name]));" }
        return "\(objectClassName) {\n" + fields.joined(separator: "\n") + "\n}"
    }

    /// Reads or writes a persisted property by name (dynamic access).
    ///
    /// Links read as objects, lists and sets as arrays, maps as dictionaries, `AnyRealmValue`s
    /// as the value they hold (a nested list or dictionary as its live ``List`` or ``Map``), and
    /// a ``LinkingObjects`` property as an array of the objects linking here, in object-key
    /// order (empty while unmanaged). Writing accepts what `Object(value:)` accepts for the
    /// property. Reading a name that is not a persisted or linking-objects property, or writing
    /// a value of the wrong type (or any value to a linking-objects property), traps with a
    /// message naming the property, as in Realm.
    public subscript(key: String) -> Any? {
        get {
            if let linking = linkingObjectsProperty(key) { return linkingObjects(linking) }
            let property = persistedProperty(key)
            guard let state = realmState else {
                return ObjectValues.swiftValue(ObjectSchemaDiscovery.unmanagedValues(of: self)[key] ?? _RealmValue(.null), property)
            }
            guard let column = state.table.columns[key] else { return nil }
            return state.realm.swiftValue(of: self, column: column, property: property)
        }
        set {
            if linkingObjectsProperty(key) != nil {
                fatalError("Cannot set the linking objects property '\(key)' of class '\(objectClassName)': it is read-only")
            }
            let property = persistedProperty(key)
            let value: _RealmValue
            do {
                let realm = realmState?.realm
                value = try ObjectValues.realmValue(from: newValue, for: property, className: Self.className(),
                                                    classes: realm.map { realm in { realm.catalog.tables[$0]?.schema } })
            } catch {
                fatalError("\(error)")
            }
            if let state = realmState {
                guard let column = state.table.columns[key] else { fatalError("Property '\(key)' is not in the realm's schema") }
                state.realm.set(value, column: column, of: self)
            } else {
                dynamicValues = (dynamicValues ?? [:]).merging([key: value]) { $1 }
            }
        }
    }

    /// The linking-objects property named `name`, from the realm's schema once managed, else
    /// from the class; nil if there is none.
    private func linkingObjectsProperty(_ name: String) -> LinkingObjectsInfo? {
        (realmState?.table.schema ?? ObjectSchemaDiscovery.schema(for: type(of: self))).linkingObjectsProperty(named: name)
    }

    /// The objects that link here through `linking`, as accessors of their class (a
    /// ``DynamicObject`` when the program has no model class of that name).
    private func linkingObjects(_ linking: LinkingObjectsInfo) -> [ObjectBase] {
        guard let state = realmState, let origin = state.realm.catalog.tables[linking.originClass] else { return [] }
        let base = QueryBase.linkingObjects(targetClass: state.table.name, targetKey: state.key,
                                            originClass: linking.originClass, property: linking.originProperty)
        let type = ObjectSchemaDiscovery.registeredType(named: linking.originClass) ?? DynamicObject.self
        return state.realm.query { try $0.objectKeys(of: base) }.map { state.realm.accessor(type, table: origin, key: $0) }
    }

    /// The persisted property named `name`: from the realm's schema once managed (so that
    /// ``DynamicObject``s work), else from the class.
    private func persistedProperty(_ name: String) -> PropertyInfo {
        let properties = realmState?.table.schema.properties ?? ObjectSchemaDiscovery.schema(for: type(of: self)).properties
        guard let property = properties.first(where: { $0.name == name }) else {
            fatalError("Invalid property name '\(name)' for class '\(objectClassName)'.")
        }
        return property
    }

    /// The stored class name: the table's once managed (for ``DynamicObject``s), else the class's.
    var objectClassName: String { realmState?.table.name ?? Self.className() }
}

/// A class whose instances are stored in a realm as top-level objects: Realm Swift's `Object`.
///
/// ```swift
/// class Dog: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var name = ""
///     @Persisted var age: Int?
///     @Persisted var owner: Person?
/// }
/// ```
open class Object: ObjectBase {}

/// A class whose instances live inside another object: Realm Swift's `EmbeddedObject`.
///
/// An embedded object has no primary key and no life of its own: it belongs to exactly one
/// parent, through a to-one link, a `List` or a `Map` of the parent, and is deleted with the
/// parent or when the parent's property stops linking to it. It cannot be added to a realm on
/// its own (``Realm/add(_:update:)-(Object,_)`` takes an ``Object``); set it on a parent instead.
///
/// ```swift
/// class Address: EmbeddedObject {
///     @Persisted var street = ""
///     @Persisted var city = ""
/// }
/// class Contact: Object {
///     @Persisted var name = ""
///     @Persisted var address: Address?
/// }
/// ```
open class EmbeddedObject: ObjectBase {}

/// The realm handle, table and key of a managed object (see ``ObjectBase/realmState``).
struct ObjectState {
    let realm: Realm
    let table: Table
    let key: UInt64
}
