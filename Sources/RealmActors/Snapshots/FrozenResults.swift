internal import RealmRuntime

/// Objects of one class at one version: `Sendable`, immutable, a `RandomAccessCollection` of
/// ``Frozen`` objects. From ``FrozenRealm/objects(_:)``, ``Results/freeze()`` and freezing a
/// `List` of objects. `count` and positional access are O(log n) or better; filter and sort
/// with the standard collection methods.
public struct FrozenResults<T: Object>: RandomAccessCollection, Sendable {
    let snapshot: FrozenSnapshot
    let table: Table?
    /// The objects, in order; nil: every object of the table, in key order.
    let keys: [UInt64]?
    /// The query the objects answer at the snapshot's version (its keys are `keys`): what
    /// refining and thawing start from.
    let query: ObjectQuery

    init(snapshot: FrozenSnapshot, table: Table?, keys: [UInt64]?, query: ObjectQuery) {
        self.snapshot = snapshot
        self.table = table
        self.keys = keys
        self.query = query
    }

    /// Always true, as Realm's `Results.isFrozen` is for frozen results (`results.freeze().isFrozen`).
    public var isFrozen: Bool { true }

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
            snapshot.file.fileIsDamaged(error)
        }
        guard let (leaf, row) = found else { snapshot.file.fileIsDamaged("row \(position) of '\(table.name)' is missing") }
        return Frozen(snapshot: snapshot, table: table, key: leaf.key(row))
    }
}

extension Results {
    /// A `Sendable` snapshot of the objects at the realm's current version. Traps inside a write
    /// transaction.
    public func freeze() -> FrozenResults<Element> {
        guard let realm else { fatalError("Cannot freeze unmanaged results") }
        let snapshot = realm.currentSnapshot()
        let isWholeTable = query.isInKeyOrder && query.predicate == nil
        return FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[className], keys: isWholeTable ? nil : keys(),
                             query: query)
    }
}

extension ObjectCollectionQueries {
    /// A `Sendable` snapshot of the collection's objects (a list's, a set's, linking objects')
    /// at the realm's current version, in the collection's order.
    public func freeze() -> FrozenResults<Element> { results.freeze() }
}

extension List where Element: Sendable {
    /// The list's values at the realm's current version (a copy: values need no pinned version).
    public func freeze() -> [Element] { Array(self) }
}

extension MutableSet where Element: Sendable {
    /// The set's values at the realm's current version, in the set's order (a copy).
    public func freeze() -> [Element] { Array(self) }
}

extension FrozenResults {
    /// The frozen objects matching a type-safe query, still at the snapshot's version.
    public func `where`(_ isIncluded: (Query<T>) -> Query<Bool>) -> FrozenResults<T> {
        refined { $0.where(isIncluded) }
    }

    /// The frozen objects matching a Realm Query Language predicate, at the snapshot's version.
    /// A predicate that does not fit traps, as in ``Results/filter(_:_:)``.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> FrozenResults<T> {
        refined { $0.filter(predicateFormat, argumentArray: arguments) }
    }

    /// ``filter(_:_:)`` for a predicate from outside the program; see ``Results/filter(validating:_:)``.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the problem and its offset.
    public func filter(validating predicateFormat: String, _ arguments: Any...) throws -> FrozenResults<T> {
        try refined { try $0.filter(validating: predicateFormat, argumentArray: arguments) }
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
    func refined(_ operation: (Results<T>) throws -> Results<T>) rethrows -> FrozenResults<T> {
        // The query evaluated at the snapshot's version holds exactly `keys`, so refining it
        // refines them, and the refined query is what `thaw` continues live.
        let refined = try operation(Results(realm: snapshot.handle(), query: query))
        return FrozenResults(snapshot: snapshot, table: table, keys: refined.keys(), query: refined.query)
    }
}
