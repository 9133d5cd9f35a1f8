internal import RealmRuntime

/// A frozen object: an immutable, `Sendable` snapshot of one object at one version, read like the
/// live object. Made by ``FreezableObject/freeze()`` and by frozen collections; `Frozen<PersonProjection>`
/// is a frozen projection (``ProjectionObservable/freeze()``), read through the projection's
/// properties.
///
/// ```swift
/// let frozen = dog.freeze()
/// await kennel.show(frozen)           // crosses actors
/// print(frozen.name, frozen.age)      // reads the snapshot
/// let live = realm.thaw(frozen)       // the live object again, in another handle
/// ```
///
/// Each property read makes a frozen accessor of the object (about a microsecond); for several
/// reads use ``read(_:)``. Links and collections read through it are frozen too, and stay valid
/// in the current context; freeze them (``FreezableObject/freeze()``) to pass them on.
@dynamicMemberLookup
public struct Frozen<T: Freezable>: Sendable, Hashable, CustomStringConvertible {
    let snapshot: FrozenSnapshot
    /// The table and key of the stored object: of `T`'s class, or of a projection's root class.
    let table: Table
    let key: UInt64

    /// The same stored object presented as `T`: a frozen object as a projection of it, or back.
    init<Other>(_ other: Frozen<Other>) {
        self.init(snapshot: other.snapshot, table: other.table, key: other.key)
    }

    init(snapshot: FrozenSnapshot, table: Table, key: UInt64) {
        self.snapshot = snapshot
        self.table = table
        self.key = key
    }

    /// The value of a property at the snapshot's version.
    public subscript<Value>(dynamicMember keyPath: KeyPath<T, Value>) -> Value {
        read { $0[keyPath: keyPath] }
    }

    /// Calls `body` with a frozen accessor of the object, or a projection of one (valid only
    /// inside `body`'s context). Traps if the object did not exist at the snapshot's version.
    public func read<R>(_ body: (T) throws -> R) rethrows -> R {
        try readObject { try body(T._viewing($0)) }
    }

    /// Calls `body` with a frozen accessor of the stored object itself (of ``Freezable/_frozenRootType``:
    /// for a projection, its root), valid only inside `body`'s context.
    func readObject<R>(_ body: (ObjectBase) throws -> R) rethrows -> R {
        let realm = snapshot.handle()
        return try body(realm.managedObject(T._frozenRootType, table: table, key: key))
    }

    /// Whether the object existed at the snapshot's version (false for one frozen after its
    /// deletion was read, never true again).
    public var exists: Bool { snapshot.handle().locate(table, key) != nil }

    /// Two frozen objects are equal if they are the same object at the same version.
    public static func == (lhs: Frozen<T>, rhs: Frozen<T>) -> Bool {
        lhs.snapshot.reader.transaction == rhs.snapshot.reader.transaction && lhs.table.tree == rhs.table.tree
            && lhs.key == rhs.key && lhs.snapshot.file === rhs.snapshot.file
    }

    /// Hashes the object's identity and version.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(snapshot.reader.transaction)
        hasher.combine(table.tree)
        hasher.combine(key)
    }

    /// The object as Realm prints it, at the snapshot's version.
    public var description: String { read { "\($0)" } }
}

/// What a ``Frozen`` snapshot can present: every object class (``Object``, ``EmbeddedObject``)
/// and every projection class (``Projection``). The library conforms them; its requirements are
/// how a snapshot reads a stored object as `Self`.
public protocol Freezable: SendableMetatype {
    /// The class of the stored objects a snapshot of `Self` reads: `Self` for an object class,
    /// the root class for a projection.
    static var _frozenRootType: ObjectBase.Type { get }
    /// `Self` over `root`, an accessor of an object of ``_frozenRootType``: the object itself,
    /// or a projection of it.
    static func _viewing(_ root: ObjectBase) -> Self
}

/// Objects that can be frozen into ``Frozen`` snapshots and observed: every ``Object`` and
/// ``EmbeddedObject``.
public protocol FreezableObject: ObjectBase, Freezable, _ObjectObservable {}

extension ObjectBase: FreezableObject {
    /// The class itself: a frozen object reads an object of its own class.
    public static var _frozenRootType: ObjectBase.Type { self }

    /// `root` itself, an accessor of this class.
    public static func _viewing(_ root: ObjectBase) -> Self { root as! Self }
}

extension FreezableObject {
    /// A `Sendable` snapshot of the object at its realm's current version. Traps if the object
    /// is unmanaged, deleted, or inside a write transaction.
    public func freeze() -> Frozen<Self> {
        guard let state = realmState else { fatalError("Cannot freeze an unmanaged object") }
        guard location() != nil else { fatalError("Object has been deleted or invalidated.") }
        return Frozen(snapshot: state.realm.currentSnapshot(), table: state.table, key: state.key)
    }
}
