import Foundation
internal import RealmRuntime

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
        current = query.keys(at: snapshot)
        delivered = current
    }

    /// The predicate's plan under the snapshot's schema (bound once per schema).
    private var boundPlan: (catalog: SchemaCatalog, plan: QueryPlan?)?

    private func plan(in version: VersionContext) -> QueryPlan? {
        let catalog = version.snapshot.catalog
        if let boundPlan, boundPlan.catalog === catalog { return boundPlan.plan }
        let plan = query.predicate.flatMap { predicate in
            catalog.tables[query.className].map { version.snapshot.queries().plan(predicate, in: $0) }
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
            ?? query.keys(at: version.snapshot)
        if silent {
            delivered = current
            modified = []
            return false
        }
        let before = modified.count
        if changes != nil, let table = snapshot.catalog.tables[query.className] {
            // Only objects these results hold: a change elsewhere in the table is not theirs.
            let keys = version.modifiedKeys(in: table, filter: filter)
            let ascending = query.query.isInKeyOrder
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
