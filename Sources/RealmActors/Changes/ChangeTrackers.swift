import Foundation
internal import RealmRuntime

/// What a collection stream observes: a query (a class, where its objects come from, a
/// predicate, sorting, distinct), described without a handle so the notifier can evaluate it
/// at every version.
struct ObservedQuery: Sendable {
    let className: String
    let base: ResultsBase
    let predicate: QueryExpression?
    let sortDescriptors: [SortDescriptor]
    let distinctKeyPaths: [String]

    init<T: Object>(_ results: Results<T>) {
        className = results.className
        base = results.base
        predicate = results.predicate
        sortDescriptors = results.sortDescriptors
        distinctKeyPaths = results.distinctKeyPaths
    }

    /// The objects' keys, in order, at the version `handle` (frozen) reads.
    func keys<T: Object>(in handle: Realm, as type: T.Type) -> [UInt64] {
        guard handle.catalog.tables[className] != nil else { return [] }
        return Results<T>(realm: handle, className: className, base: base, predicate: predicate,
                          sortDescriptors: sortDescriptors, distinctKeyPaths: distinctKeyPaths).keys()
    }

    /// The keys after `changes`, from the keys before them (`previous`), re-checking only the
    /// objects the changes touched — or nil when that does not apply: the query is distinct, its
    /// objects are not a whole table, another table changed too, its predicate looks at other
    /// objects than each object and what it links to, or (sorted) more than a few objects changed.
    ///
    /// Cost: O(n) to copy the keys plus one predicate check per touched object, instead of
    /// evaluating the query over the whole table.
    func keys(updating previous: [UInt64], with changes: RowChanges, in version: VersionContext,
              plan: QueryPlan?) -> [UInt64]? {
        let snapshot = version.snapshot
        guard case .table = base, distinctKeyPaths.isEmpty, changes.droppedTrees.isEmpty,
              let table = snapshot.catalog.tables[className] else { return nil }
        guard changes.trees.keys.allSatisfy({ $0 == table.tree || !changes.touches($0) }),
              let tree = changes.trees[table.tree], !tree.isEmpty else { return nil }
        if let plan, !plan.dependsOnlyOnOutgoingLinks { return nil }
        let handle = version.handle
        let edited = tree.inserted.union(tree.updated.keys)
        let evaluator = handle.queryEvaluator()
        func matches(_ key: UInt64) -> Bool {
            guard let plan else { return true }
            return (try? evaluator.matches(plan, key: key, in: table)) ?? false
        }
        guard sortDescriptors.isEmpty else {
            // Sorted, and only a few objects edited: take them out and put the matching ones back
            // where the order puts them (binary search), instead of sorting everything again.
            var sortColumns: ColumnMask = []
            for descriptor in sortDescriptors {
                guard let column = table.columns[descriptor.keyPath] else { return nil }  // a path through links
                sortColumns.insert(column)
            }
            guard edited.count + tree.removed.count <= 16 else { return nil }
            let matching = edited.filter(matches)
            // The commonest case: objects modified, not in a sort property, and still in (or out of)
            // the results — nothing moves.
            if tree.inserted.isEmpty, tree.removed.isEmpty,
               tree.updated.values.allSatisfy({ $0.isDisjoint(with: sortColumns) }),
               edited.allSatisfy({ previous.contains($0) == matching.contains($0) }) {
                return previous
            }
            var result = previous
            for key in tree.removed.union(edited) {
                if let index = result.firstIndex(of: key) { result.remove(at: index) }
            }
            // Whether `a` comes before `b`: by the sort properties, ties in key order (as a full
            // evaluation orders them, sorting the table's keys stably).
            func precedes(_ a: UInt64, _ b: UInt64) -> Bool {
                handle.sorted([min(a, b), max(a, b)], by: sortDescriptors, in: table)[0] == a
            }
            for key in matching.sorted() {
                var (low, high) = (0, result.count)
                while low < high {
                    let middle = (low + high) / 2
                    if precedes(result[middle], key) { low = middle + 1 } else { high = middle }
                }
                result.insert(key, at: low)
            }
            return result
        }
        let matching = edited.filter(matches).sorted()
        // Unsorted: the previous keys without the removed and edited objects, then the edited ones that
        // match now merged in — by binary search and slice copies, so a change to a few objects
        // of a large result costs a copy, not a hash lookup per object.
        // The common case — objects of the result modified and still matching — keeps the keys
        // as they are (no copy).
        if matching.count == edited.count, edited.allSatisfy({ previous.ascendingIndex(of: $0) != nil }),
           tree.removed.allSatisfy({ previous.ascendingIndex(of: $0) == nil }) {
            return previous
        }
        let dropped = tree.removed.union(edited).compactMap(previous.ascendingIndex(of:)).sorted()
        var kept: [UInt64] = []
        kept.reserveCapacity(previous.count)
        var start = 0
        for index in dropped {
            kept.append(contentsOf: previous[start..<index])
            start = index + 1
        }
        kept.append(contentsOf: previous[start...])
        var result: [UInt64] = []
        result.reserveCapacity(kept.count + matching.count)
        start = 0
        for key in matching {
            let index = kept.insertionIndex(of: key, from: start)
            result.append(contentsOf: kept[start..<index])
            result.append(key)
            start = index
        }
        result.append(contentsOf: kept[start...])
        return result
    }

    /// Whether `changes` may have changed what the query holds or reports: they touched the
    /// objects' table, the list's owner or the linking objects' origin, a table the objects
    /// link to (as deep as the filter follows links, and four links deep for predicates on
    /// linked objects, whatever the filter), or a table linking to them (predicates on
    /// `LinkingObjects`).
    func isAffected(by changes: RowChanges, at snapshot: FrozenSnapshot, filter: ChangeFilter) -> Bool {
        let catalog = snapshot.catalog
        func touched(_ name: String) -> Bool { catalog.tables[name].map { changes.touches($0.tree) } ?? false }
        guard let table = catalog.tables[className] else { return true }
        let modified = ModifiedObjects(changes: changes, snapshot: snapshot)
        if modified.touches(table, filter: filter) { return true }
        if case .properties = filter, modified.touches(table, filter: .everything(depth: ChangeFilter.defaultLinkDepth)) { return true }
        switch base {
        case .list(let ownerClass, _, _): if touched(ownerClass) { return true }
        case .linkingObjects(_, _, let originClass, _): if touched(originClass) { return true }
        case .table, .keys: break
        }
        return (catalog.inboundLinks[className] ?? []).contains { touched($0.table.name) }
    }
}

/// The tracker of `results.changes`, `list.changes` and `linkingObjects.changes`: the keys
/// last delivered, the newest keys, and the objects modified in between.
final class CollectionChangeTracker<T: Object>: ChangeTracker {
    private let query: ObservedQuery
    private let filter: ChangeFilter
    private var snapshot: FrozenSnapshot
    private var delivered: [UInt64]
    private var current: [UInt64]
    private var modified: Set<UInt64> = []

    init(query: ObservedQuery, filter: ChangeFilter, snapshot: FrozenSnapshot) {
        self.query = query
        self.filter = filter
        self.snapshot = snapshot
        current = query.keys(in: snapshot.handle(), as: T.self)
        delivered = current
    }

    /// The predicate's plan under the snapshot's schema (bound once per schema).
    private var boundPlan: (catalog: SchemaCatalog, plan: QueryPlan?)?

    private func plan(in version: VersionContext) -> QueryPlan? {
        let catalog = version.snapshot.catalog
        if let boundPlan, boundPlan.catalog === catalog { return boundPlan.plan }
        let plan = query.predicate.flatMap { predicate in
            catalog.tables[query.className].map { version.handle.plan(predicate, in: $0) }
        }
        boundPlan = (catalog, plan)
        return plan
    }

    private var frozen: FrozenResults<T> {
        FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[query.className], keys: current)
    }

    func initialElement() -> (any Sendable)? {
        RealmCollectionChange<FrozenResults<T>>.initial(frozen)
    }

    func advance(_ version: VersionContext, silent: Bool) -> Bool {
        let snapshot = version.snapshot, changes = version.changes
        // Always hold the newest version (an untouched query's objects are the same there), so an
        // idle observer never pins an old version's pages.
        self.snapshot = snapshot
        if let changes, !query.isAffected(by: changes, at: snapshot, filter: filter) { return false }
        let previous = current
        current = changes.flatMap { query.keys(updating: current, with: $0, in: version, plan: plan(in: version)) }
            ?? query.keys(in: version.handle, as: T.self)
        if silent {
            delivered = current
            modified = []
            return false
        }
        let before = modified.count
        if changes != nil, let table = snapshot.catalog.tables[query.className] {
            // Only objects these results hold: a change elsewhere in the table is not theirs.
            let keys = version.modifiedKeys(in: table, filter: filter)
            let ascending = query.sortDescriptors.isEmpty && query.distinctKeyPaths.isEmpty && query.base.isTable
            modified.formUnion(keys.filter { ascending ? current.ascendingIndex(of: $0) != nil : current.contains($0) })
        } else {
            modified.formUnion(current)  // no log for these versions: everything may have changed
        }
        return modified.count != before || current != previous
    }

    func takeElement() -> (element: any Sendable, isLast: Bool)? {
        let diff = CollectionDiff(old: delivered, new: current, modified: modified)
        delivered = current
        modified = []
        guard !diff.isEmpty else { return nil }
        let change = RealmCollectionChange<FrozenResults<T>>.update(frozen, deletions: diff.deletions,
                                                                    insertions: diff.insertions, modifications: diff.modifications)
        return (change, false)
    }

    func errorElement(_ error: Realm.Error) -> (any Sendable)? {
        RealmCollectionChange<FrozenResults<T>>.error(error)
    }
}

/// The tracker of `object.changes`: the object's stored values when last delivered (so a
/// change is a value that differs, whatever the log says), plus the log for changes of linked
/// objects.
final class ObjectChangeTracker<T: Object>: ChangeTracker {
    private let className: String
    private let key: UInt64
    private let filter: ChangeFilter
    private var snapshot: FrozenSnapshot
    /// Stored values by column at the last delivered (or silently skipped) version.
    private var values: [Int: ColumnValue]
    /// Properties changed since the last element, in the order found, with their old values.
    private var pending: [(column: Int, old: ColumnValue?)] = []
    private var deleted = false

    init(className: String, key: UInt64, filter: ChangeFilter, snapshot: FrozenSnapshot) {
        self.className = className
        self.key = key
        self.filter = filter
        self.snapshot = snapshot
        values = Self.values(of: key, in: className, at: snapshot) ?? [:]
    }

    private static func values(of key: UInt64, in className: String, at snapshot: FrozenSnapshot) -> [Int: ColumnValue]? {
        guard let table = snapshot.catalog.tables[className],
              let (leaf, row) = try? snapshot.reader.row(in: snapshot.reader.root(of: table.tree), key: key) else { return nil }
        var values: [Int: ColumnValue] = [:]
        for column in table.columns.values {
            values[column] = try? snapshot.reader.value(leaf, row: row, column: column, spec: table.layout[column])
        }
        return values
    }

    func initialElement() -> (any Sendable)? { nil }

    func advance(_ version: VersionContext, silent: Bool) -> Bool {
        let snapshot = version.snapshot, changes = version.changes
        guard !deleted else { return false }
        guard let table = snapshot.catalog.tables[className] else { deleted = true; return true }
        self.snapshot = snapshot  // the newest version, touched or not (see CollectionChangeTracker)
        let modified = changes.map { ModifiedObjects(changes: $0, snapshot: snapshot) }
        if let modified, !modified.touches(table, filter: filter) { return false }
        guard let newValues = Self.values(of: key, in: className, at: snapshot) else {
            deleted = true  // reported even when silenced: the stream ends with it
            return true
        }
        var changed: [Int] = []
        let counted = filter.columns(of: table)
        for column in newValues.keys.sorted() where counted.contains(column) && newValues[column] != values[column] {
            changed.append(column)
        }
        // A property linking to objects that changed (as the filter follows links).
        if modified != nil {
            for (column, linkedFilter) in filter.links(of: table) where !changed.contains(column) {
                guard let targetName = table.property(column)?.objectClassName, let target = snapshot.catalog.tables[targetName] else { continue }
                let linked = version.modifiedKeys(in: target, filter: linkedFilter)
                guard !linked.isEmpty, let value = newValues[column] else { continue }
                if table.linkedKeys(value, column: column).contains(where: linked.contains) { changed.append(column) }
            }
        }
        if !silent {
            for column in changed where !pending.contains(where: { $0.column == column }) { pending.append((column, values[column])) }
        }
        values = newValues
        return !silent && !changed.isEmpty
    }

    func takeElement() -> (element: any Sendable, isLast: Bool)? {
        if deleted { return (ObjectChange<T>.deleted, true) }
        guard !pending.isEmpty, let table = snapshot.catalog.tables[className] else { return nil }
        let changes = pending.compactMap { column, old -> PropertyChange? in
            guard let property = table.property(column) else { return nil }
            return PropertyChange(name: property.name, oldValue: Self.sendableValue(old, property),
                                  newValue: Self.sendableValue(values[column], property))
        }
        pending = []
        return (ObjectChange<T>.change(Frozen(snapshot: snapshot, table: table, key: key), changes), false)
    }

    /// A scalar's Swift value; nil for links and collections (which have no `Sendable` value).
    private static func sendableValue(_ value: ColumnValue?, _ property: PropertyInfo) -> (any Sendable)? {
        guard let value, property.collection == nil, property.kind != .object, property.kind != .mixed else { return nil }
        switch property.swiftValue(value) {
        case let value as Bool: return value
        case let value as Int: return value
        case let value as Float: return value
        case let value as Double: return value
        case let value as String: return value
        case let value as Data: return value
        case let value as Date: return value
        case let value as ObjectId: return value
        case let value as UUID: return value
        case let value as Decimal128: return value
        default: return nil
        }
    }

    func errorElement(_ error: Realm.Error) -> (any Sendable)? { ObjectChange<T>.error(error) }
}

/// The tracker of `realm.changes`: one frozen realm per new version (coalesced when the
/// consumer is slower than the commits).
final class RealmChangeTracker: ChangeTracker {
    private var snapshot: FrozenSnapshot
    private var deliveredVersion: TransactionID

    init(snapshot: FrozenSnapshot) {
        self.snapshot = snapshot
        deliveredVersion = snapshot.reader.transaction
    }

    func initialElement() -> (any Sendable)? { nil }

    func advance(_ version: VersionContext, silent: Bool) -> Bool {
        snapshot = version.snapshot
        if silent { deliveredVersion = version.snapshot.reader.transaction }
        return !silent
    }

    func takeElement() -> (element: any Sendable, isLast: Bool)? {
        guard snapshot.reader.transaction > deliveredVersion else { return nil }
        deliveredVersion = snapshot.reader.transaction
        return (FrozenRealm(snapshot: snapshot), false)
    }

    func errorElement(_ error: Realm.Error) -> (any Sendable)? { nil }  // the stream just ends
}
