/// The tracker of `results.changes`, `list.changes` and `linkingObjects.changes`: the keys
/// last delivered, the newest keys, and the objects modified in between.
package final class CollectionChangeTracker: ChangeTracker {
    private let query: ObservedQuery
    private let filter: ChangeFilter
    private var snapshot: FrozenVersion
    private var delivered: [UInt64]
    private var current: [UInt64]
    private var modified: Set<UInt64> = []

    package init(query: ObservedQuery, filter: ChangeFilter, snapshot: FrozenVersion) {
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

    /// The current keys at the newest version, with `diff` from the last element.
    private func element(diff: CollectionDiff?) -> ChangeElement {
        .collection(version: snapshot, table: snapshot.catalog.tables[query.className], keys: current, diff: diff)
    }

    package func initialElement() -> ChangeElement? {
        element(diff: nil)
    }

    package func advance(_ version: VersionContext, silent: Bool) -> Bool {
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

    package func takeElement() -> (element: ChangeElement, isLast: Bool)? {
        let diff = CollectionDiff(old: delivered, new: current, modified: modified)
        delivered = current
        modified = []
        guard !diff.isEmpty else { return nil }
        return (element(diff: diff), false)
    }

    package func errorElement(_ error: RuntimeError) -> ChangeElement? {
        .failure(error)
    }
}
