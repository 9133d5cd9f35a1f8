internal import RealmRuntime

/// One version of a realm file, pinned while any frozen value refers to it.
///
/// `Sendable`: every field is immutable and `Sendable`; the pinned version's pages never change.
final class FrozenSnapshot: Sendable {
    let configuration: Realm.Configuration
    let file: SharedRealmFile
    let reader: ReadTransaction
    let catalog: SchemaCatalog

    init(configuration: Realm.Configuration, file: SharedRealmFile, reader: ReadTransaction, catalog: SchemaCatalog) {
        self.configuration = configuration
        self.file = file
        self.reader = reader
        self.catalog = catalog
    }

    /// A frozen handle on this version, for one read: handles are cheap and not `Sendable`, so
    /// each read from any thread makes its own.
    func handle() -> Realm { Realm(frozen: self) }
}

extension Realm {
    /// The snapshot of the handle's current version (the same one for every freeze of it).
    func currentSnapshot() -> FrozenSnapshot {
        if let frozenSnapshot { return frozenSnapshot }
        precondition(writer == nil, "Cannot freeze a Realm, object or collection inside a write transaction")
        if let lastSnapshot, lastSnapshot.reader === reader, lastSnapshot.catalog === catalog { return lastSnapshot }
        let snapshot = FrozenSnapshot(configuration: configuration, file: file, reader: reader, catalog: catalog)
        lastSnapshot = snapshot
        return snapshot
    }

    /// How many versions of the file are live: the newest, and every older one an open handle,
    /// a frozen snapshot or a running iteration still reads. Old versions keep their pages from
    /// being reused; see ``Configuration/maximumNumberOfActiveVersions``.
    public var numberOfActiveVersions: Int { file.database.activeVersionCount }

    /// A `Sendable`, immutable snapshot of the realm at the handle's current version, to read
    /// from any actor or thread. It keeps that version (its pages) alive until released; freezing
    /// a version again shares the same one. Traps inside a write transaction.
    public func freeze() -> FrozenRealm {
        FrozenRealm(snapshot: currentSnapshot())
    }

    /// The live object, at this handle's version, of a frozen object; nil if it was deleted.
    public func thaw<T: Object>(_ frozen: Frozen<T>) -> T? {
        guard let table = catalog.tables[frozen.table.name], locate(table, frozen.key) != nil else { return nil }
        return managedObject(T.self, table: table, key: frozen.key)
    }
}

/// A realm frozen at one version: `Sendable`, immutable, readable from any actor or thread.
/// Made by ``Realm/freeze()``.
///
/// ```swift
/// let snapshot = realm.freeze()
/// Task.detached {
///     for dog in snapshot.objects(Dog.self) { print(dog.name) }
/// }
/// ```
public struct FrozenRealm: Sendable {
    let snapshot: FrozenSnapshot

    /// The configuration of the realm it was frozen from.
    public var configuration: Realm.Configuration { snapshot.configuration }

    /// Every object of a class at this version.
    public func objects<T: Object>(_ type: T.Type) -> FrozenResults<T> {
        FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[T.className()], keys: nil)
    }

    /// The object with the given primary key at this version, or nil. Traps as
    /// ``Realm/object(ofType:forPrimaryKey:)`` does on a class without a primary key.
    public func object<T: Object, Key>(ofType type: T.Type, forPrimaryKey key: Key) -> Frozen<T>? {
        let realm = snapshot.handle()
        guard let table = snapshot.catalog.tables[T.className()], let found = realm.object(in: table, forPrimaryKey: key) else { return nil }
        return Frozen(snapshot: snapshot, table: table, key: found)
    }

    /// Whether the realm held no objects at this version.
    public var isEmpty: Bool { snapshot.handle().isEmpty }

    /// A frozen handle on this version, to read through the ordinary API (not `Sendable`; make
    /// one where you read). Writing through it traps.
    public func realm() -> Realm { snapshot.handle() }
}

/// A frozen object: an immutable, `Sendable` snapshot of one object at one version, read like the
/// live object. Made by ``Object/freeze()`` and by frozen collections.
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
/// in the current context; freeze them (``Object/freeze()``) to pass them on.
@dynamicMemberLookup
public struct Frozen<T: Object>: Sendable, Hashable, CustomStringConvertible {
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

/// Objects of one class at one version: `Sendable`, immutable, a `RandomAccessCollection` of
/// ``Frozen`` objects. From ``FrozenRealm/objects(_:)``, ``Results/freeze()`` and freezing a
/// `List` of objects. `count` and positional access are O(log n) or better; filter and sort
/// with the standard collection methods.
public struct FrozenResults<T: Object>: RandomAccessCollection, Sendable {
    let snapshot: FrozenSnapshot
    let table: Table?
    /// The objects, in order, for a frozen list; nil: every object of the table, in key order.
    let keys: [UInt64]?

    /// The number of objects.
    public var count: Int {
        if let keys { return keys.count }
        guard let table else { return 0 }
        return Int((try? snapshot.reader.root(of: table.tree).count) ?? 0)
    }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The frozen object at `position`.
    public subscript(position: Int) -> Frozen<T> {
        guard let table, position >= 0, position < count else { fatalError("Index \(position) is out of bounds") }
        if let keys { return Frozen(snapshot: snapshot, table: table, key: keys[position]) }
        let found: (ClusterLeaf, Int)?
        do {
            found = try snapshot.reader.row(atPosition: UInt64(position), in: snapshot.reader.root(of: table.tree))
        } catch {
            snapshot.configuration.fileIsDamaged(error)
        }
        guard let (leaf, row) = found else { snapshot.configuration.fileIsDamaged("row \(position) of '\(table.name)' is missing") }
        return Frozen(snapshot: snapshot, table: table, key: leaf.key(row))
    }
}

extension Results {
    /// A `Sendable` snapshot of the objects at the realm's current version. Traps inside a write
    /// transaction.
    public func freeze() -> FrozenResults<Element> {
        guard let realm else { fatalError("Cannot freeze unmanaged results") }
        let snapshot = realm.currentSnapshot()
        return FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[Element.className()], keys: nil)
    }
}

extension List where Element: Object {
    /// A `Sendable` snapshot of the list's objects at the realm's current version.
    public func freeze() -> FrozenResults<Element> {
        guard let realm else { fatalError("Cannot freeze an unmanaged List") }
        let snapshot = realm.currentSnapshot()
        let keys = map { $0.realmState!.key }
        return FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[Element.className()], keys: keys)
    }
}

extension List where Element: Sendable {
    /// The list's values at the realm's current version (a copy: values need no pinned version).
    public func freeze() -> [Element] { Array(self) }
}

/// Objects that can be frozen into ``Frozen`` snapshots: every ``Object``.
public protocol FreezableObject: Object {}

extension Object: FreezableObject {}

extension FreezableObject {
    /// A `Sendable` snapshot of the object at its realm's current version. Traps if the object
    /// is unmanaged, deleted, or inside a write transaction.
    public func freeze() -> Frozen<Self> {
        guard let state = realmState else { fatalError("Cannot freeze an unmanaged object") }
        guard state.location() != nil else { fatalError("Object has been deleted or invalidated.") }
        return Frozen(snapshot: state.realm.currentSnapshot(), table: state.table, key: state.key)
    }
}

extension FrozenResults {
    /// The frozen objects matching a type-safe query, still at the snapshot's version.
    public func `where`(_ isIncluded: (Query<T>) -> Query<Bool>) -> FrozenResults<T> {
        refined { $0.where(isIncluded) }
    }

    /// The frozen objects matching a Realm Query Language predicate, at the snapshot's version.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` as ``Results/filter(_:_:)``.
    public func filter(_ predicateFormat: String, _ arguments: Any...) throws -> FrozenResults<T> {
        try refined { try $0.filter(predicateFormat, argumentArray: arguments) }
    }

    /// The frozen objects sorted by a property, at the snapshot's version.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenResults<T> {
        refined { $0.sorted(byKeyPath: keyPath, ascending: ascending) }
    }

    /// The frozen objects sorted by several properties, at the snapshot's version.
    public func sorted<S: Sequence>(by descriptors: S) -> FrozenResults<T> where S.Element == SortDescriptor {
        refined { $0.sorted(by: descriptors) }
    }

    /// Applies a live-results operation on a frozen handle of the snapshot and freezes the outcome.
    private func refined(_ operation: (Results<T>) throws -> Results<T>) rethrows -> FrozenResults<T> {
        let realm = snapshot.handle()
        let keys = self.keys
        let base: Results<T> = keys.map { keys in Results(realm: realm, base: .keys(keys)) } ?? realm.objects(T.self)
        let refined = try operation(base)
        return FrozenResults(snapshot: snapshot, table: table, keys: refined.keys())
    }
}
