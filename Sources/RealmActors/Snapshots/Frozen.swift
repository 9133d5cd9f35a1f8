internal import RealmRuntime

/// A frozen object: an immutable, `Sendable` snapshot of one object at one version, read like the
/// live object. Made by `freeze()` and by frozen collections.
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
/// in the current context; freeze them (`freeze()`) to pass them on.
@dynamicMemberLookup
public struct Frozen<T: ObjectBase>: Sendable, Hashable, CustomStringConvertible {
    let snapshot: FrozenSnapshot
    let table: Table
    let key: UInt64

    /// The value of a property at the snapshot's version.
    public subscript<Value>(dynamicMember keyPath: KeyPath<T, Value>) -> Value {
        read { $0[keyPath: keyPath] }
    }

    /// Calls `body` with a frozen accessor of the object (valid only inside `body`'s context).
    /// Traps if the object did not exist at the snapshot's version.
    public func read<R>(_ body: (T) throws -> R) rethrows -> R {
        let realm = snapshot.handle()
        return try body(realm.managedObject(T.self, table: table, key: key))
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

/// Objects that can be frozen into ``Frozen`` snapshots and observed: every ``Object`` and
/// ``EmbeddedObject``.
public protocol FreezableObject: ObjectBase {}

extension ObjectBase: FreezableObject {}

extension FreezableObject {
    /// A `Sendable` snapshot of the object at its realm's current version. Traps if the object
    /// is unmanaged, deleted, or inside a write transaction.
    public func freeze() -> Frozen<Self> {
        guard let state = realmState else { fatalError("Cannot freeze an unmanaged object") }
        guard state.location() != nil else { fatalError("Object has been deleted or invalidated.") }
        return Frozen(snapshot: state.realm.currentSnapshot(), table: state.table, key: state.key)
    }
}
