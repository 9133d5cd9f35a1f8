import Foundation

/// What a collection stream observes: a query (see ``ObjectQuery``), evaluated by the notifier at
/// every version, with the work it saves by looking only at what a version's changes touched.
package struct ObservedQuery: Sendable {
    package let query: ObjectQuery

    package init(query: ObjectQuery) {
        self.query = query
    }

    var className: String { query.className }
    var base: QueryBase { query.base }
    var predicate: QueryExpression? { query.predicate }

    /// The objects' keys, in order, at `snapshot`'s version.
    func keys(at snapshot: FrozenVersion) -> [UInt64] {
        guard let table = snapshot.catalog.tables[className] else { return [] }
        return snapshot.query { queries in
            try queries.keys(of: query, plan: predicate.map { queries.plan($0, in: table) }, in: table)
        }
    }

    /// The keys after `changes`, from the keys before them (`previous`), re-checking only the
    /// objects the changes touched — or nil when that does not apply: the query has an ordering
    /// other than one sort (a distinct or a limit), its objects are not a whole table, another table changed too, its predicate looks at other
    /// objects than each object and what it links to, or (sorted) more than a few objects changed.
    ///
    /// Cost: O(n) to copy the keys plus one predicate check per touched object, instead of
    /// evaluating the query over the whole table.
    func keys(updating previous: [UInt64], with changes: RowChanges, in version: VersionContext,
              plan: QueryPlan?) -> [UInt64]? {
        let snapshot = version.snapshot
        guard case .table = base, query.ordering.isEmpty || query.onlySort != nil, changes.droppedTrees.isEmpty,
              let table = snapshot.catalog.tables[className] else { return nil }
        guard changes.trees.keys.allSatisfy({ $0 == table.tree || !changes.touches($0) }),
              let tree = changes.trees[table.tree], !tree.isEmpty else { return nil }
        if let plan, !plan.dependsOnlyOnOutgoingLinks { return nil }
        let queries = snapshot.queries()
        let edited = tree.inserted.union(tree.updated.keys)
        func matches(_ key: UInt64) -> Bool {
            guard let plan else { return true }
            return (try? queries.evaluator.matches(plan, key: key, in: table)) ?? false
        }
        if let sort = query.onlySort {
            // Sorted, and only a few objects edited: take them out and put the matching ones back
            // where the order puts them (binary search), instead of sorting everything again.
            var sortColumns: ColumnMask = []
            for sortKey in sort {
                guard let column = table.columns[sortKey.keyPath] else { return nil }  // a path through links
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
                snapshot.query { try $0.sorted([min(a, b), max(a, b)], by: sort, in: table) }[0] == a
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
    func isAffected(by changes: RowChanges, at snapshot: FrozenVersion, filter: ChangeFilter) -> Bool {
        let catalog = snapshot.catalog
        func touched(_ name: String) -> Bool { catalog.tables[name].map { changes.touches($0.tree) } ?? false }
        guard let table = catalog.tables[className] else { return true }
        let modified = ModifiedObjects(changes: changes, snapshot: snapshot)
        if modified.touches(table, filter: filter) { return true }
        if case .properties = filter, modified.touches(table, filter: .everything(depth: ChangeFilter.defaultLinkDepth)) { return true }
        switch base {
        case .collection(let ownerClass, _, _): if touched(ownerClass) { return true }
        case .linkingObjects(_, _, let originClass, _): if touched(originClass) { return true }
        case .table, .keys: break
        }
        return (catalog.inboundLinks[className] ?? []).contains { touched($0.table.name) }
    }
}
