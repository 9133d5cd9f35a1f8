package import RealmStorage

/// Queries at one version of a file — a read snapshot or a write transaction — with that
/// version's schema: binding predicates and key paths, the keys of a query's objects, counting,
/// sorting, distinct, aggregates and table scans. Every query of the API layer (live results,
/// frozen results) and of the notifier runs here.
///
/// A value for one use: it reads through the transaction it was made from, which must stay
/// open (and, for a write transaction, unchanged) while it is used. Methods throw the storage
/// layer's errors (a damaged page) and ``QueryError`` for a predicate or key path that does not
/// fit the schema; callers that cannot throw trap with them.
package struct QueryContext {
    /// Evaluates bound predicates at the version.
    package let evaluator: QueryEvaluator
    /// The schema of the version.
    package let catalog: SchemaCatalog

    /// Queries at the version `reader` reads, whose schema is `catalog`.
    package init(reader: ReadTransaction, catalog: SchemaCatalog) {
        evaluator = QueryEvaluator(source: reader) { try reader.root(of: $0) }
        self.catalog = catalog
    }

    /// Queries at what `writer` sees (its own changes included), whose schema is `catalog`.
    package init(writer: WriteTransaction, catalog: SchemaCatalog) {
        evaluator = QueryEvaluator(source: writer) { try writer.root(of: $0) }
        self.catalog = catalog
    }

    /// What the version's pages are read through.
    package var source: any PageSource { evaluator.source }

    // MARK: Binding

    /// Binds `expression` to `table` under this schema (linking-objects properties as the stored
    /// schema declares them). Throws ``QueryError`` naming the problem and its offset.
    package func bind(_ expression: QueryExpression, to table: Table) throws -> QueryPlan {
        try QueryPlan.bind(expression, to: table, catalog: catalog)
    }

    /// The plan of `expression` under this schema; a plan matching nothing if it no longer fits
    /// (a migration removed a property it uses).
    package func plan(_ expression: QueryExpression, in table: Table) -> QueryPlan {
        (try? bind(expression, to: table)) ?? .constant(false)
    }

    /// Resolves a key path (`age`, `owner.name`) of `table`, for sorting, distinct and aggregates.
    package func resolve(_ keyPath: String, in table: Table) throws -> BoundPath {
        try BoundPath.resolve(keyPath, in: table, catalog: catalog)
    }

    /// Resolves a key path to sort or distinct by: a property of the object, or of an object
    /// reached through to-one links. Throws ``QueryError`` naming the problem for an unknown
    /// property, and for a path into or through a collection (a list, set or map, or linking
    /// objects), which has no single value to order by.
    package func resolveOrdering(_ keyPath: String, in table: Table) throws -> BoundPath {
        let path = try resolve(keyPath, in: table)
        let steps = path.hops + [path.last]
        if let index = steps.firstIndex(where: { $0.property.collection != nil || $0.backlinkFrom != nil }) {
            let step = steps[index]
            let name = keyPath.split(separator: ".")[index]
            let (owner, what) = step.backlinkFrom.map { ($0.name, "linking objects") }
                ?? (step.table.name, "a \(step.property.collection!.rawValue)")
            throw QueryError("Property '\(owner).\(name)' is \(what): it has no single value to sort or distinct by", at: 0)
        }
        return path
    }

    // MARK: Tables

    /// Every object key of `table`, in order.
    ///
    /// - Complexity: O(n), one pass over the leaves.
    package func keys(of table: Table) throws -> [UInt64] {
        let root = try evaluator.root(table.tree)
        var keys: [UInt64] = []
        // The count comes from the catalog; bounded so a damaged one cannot ask for terabytes.
        keys.reserveCapacity(Int(clamping: min(root.count, 1 << 28)))
        try source.forEachCluster(in: root) { leaf in
            leaf.appendKeys(to: &keys)
            return true
        }
        return keys
    }

    /// The leaf pages of `table` (valid while the transaction this reads stays open and, for a
    /// write transaction, unchanged): for iterating a whole table without copying its keys.
    package func leaves(of table: Table) throws -> [UnsafeRawPointer] {
        var leaves: [UnsafeRawPointer] = []
        try source.forEachCluster(in: evaluator.root(table.tree)) { leaves.append($0.base); return true }
        return leaves
    }

    /// The key of the object at `position` of `table`, in key order, or nil past the end.
    ///
    /// - Complexity: O(log n), by the tree's subtree counts.
    package func key(atPosition position: UInt64, in table: Table) throws -> UInt64? {
        try source.row(atPosition: position, in: evaluator.root(table.tree)).map { $0.0.key($0.1) }
    }

    /// How many objects of `table` match `plan`, without collecting their keys.
    package func count(matching plan: QueryPlan, in table: Table) throws -> Int {
        try evaluator.count(plan, in: table)
    }

    /// The objects of `source` whose property `column` links to object `key` of `target`, in key
    /// order, from the column's link index.
    package func linkingObjectKeys(to key: UInt64, of target: Table, from source: Table, column: Int) throws -> [UInt64] {
        guard let index = source.indexes[column] else { return [] }
        return try self.source.linkingObjects(to: key, of: target, from: source, column: column,
                                              indexRoot: evaluator.root(index))
    }

    // MARK: A query's objects

    /// The keys of `query`'s objects, in order: the base's objects matching `plan` (the
    /// predicate bound under this schema; nil for none), then each descriptor of the ordering in
    /// turn. A scan stops early where the ordering allows: at a leading limit, and (with a
    /// `limit` here) after `limit` matches of a query with no ordering but limits — the result is
    /// then the first ones, and only a result shorter than `limit` (or any result of a query
    /// that sorts or distincts) is known to hold them all. A sort followed by a limit selects
    /// the first ones without sorting everything.
    ///
    /// - Complexity: one scan (or index lookup) of the base, then O(n log n) per sort and O(n)
    ///   per distinct, on the objects still there.
    package func keys(of query: ObjectQuery, plan: QueryPlan?, in table: Table, limit: Int? = nil) throws -> [UInt64] {
        let ordering = query.ordering
        var scanLimit: Int?
        if let only = query.onlyLimit {
            scanLimit = Swift.min(only, limit ?? only)
        } else if case .limit(let count) = ordering.first {
            scanLimit = count
        }
        var keys = try baseKeys(query.base, plan: plan, in: table, limit: scanLimit)
        for (position, descriptor) in ordering.enumerated() {
            switch descriptor {
            case .sort(let sortKeys):
                var next: Int?
                if position + 1 < ordering.count, case .limit(let count) = ordering[position + 1], count > 0 { next = count }
                keys = try sorted(keys, by: sortKeys, in: table, limit: next)
            case .distinct(let keyPaths):
                keys = try distinct(keys, by: keyPaths, in: table)
            case .limit(let count):
                if keys.count > count { keys.removeSubrange(count...) }
            }
        }
        return keys
    }

    /// The keys of the base objects matching `plan` (all of them if nil), in base order.
    package func baseKeys(_ base: QueryBase, plan: QueryPlan?, in table: Table, limit: Int?) throws -> [UInt64] {
        switch base {
        case .table:
            guard let plan else { return try keys(of: table) }
            return try evaluator.matchingKeys(plan, in: table, limit: limit)
        case .keys, .collection, .linkingObjects:
            let candidates = try objectKeys(of: base)
            guard let plan else { return candidates }
            var matching: [UInt64] = []
            for key in candidates where try evaluator.matches(plan, key: key, in: table) {
                matching.append(key)
                if let limit, matching.count >= limit { break }
            }
            return matching
        }
    }

    /// The objects a non-table base holds at this version, in its order (none once the list's
    /// owner or the linked object is deleted). Traps if a `LinkingObjects` origin property is not
    /// a link (a programmer error in the class declaration).
    package func objectKeys(of base: QueryBase) throws -> [UInt64] {
        switch base {
        case .table:
            return []  // not used: tables are scanned
        case .keys(let keys):
            return keys
        case .collection(let ownerClass, let ownerKey, let property):
            guard let owner = catalog.tables[ownerClass], let column = owner.columns[property],
                  let (leaf, row) = try source.row(in: evaluator.root(owner.tree), key: ownerKey),
                  let value = try? source.value(leaf, row: row, column: column, spec: owner.layout[column]) else { return [] }
            return owner.linkedKeys(value, column: column)
        case .linkingObjects(let targetClass, let targetKey, let originClass, let property):
            guard let target = catalog.tables[targetClass], let origin = catalog.tables[originClass],
                  try source.row(in: evaluator.root(target.tree), key: targetKey) != nil else { return [] }
            guard let column = origin.columns[property], origin.property(column)?.canLink == true else {
                fatalError("Property '\(originClass).\(property)' declared as origin of linking objects is not a link")
            }
            let origins = try linkingObjectKeys(to: targetKey, of: target, from: origin, column: column)
            guard origin.property(column)?.collection != nil else { return origins }
            // Realm keeps a backlink per link: an origin whose list holds the object twice is
            // among its linking objects twice. (The link index lists each origin once.)
            let originRoot = try evaluator.root(origin.tree)
            var keys: [UInt64] = []
            keys.reserveCapacity(origins.count)
            for key in origins {
                guard let (leaf, row) = try source.row(in: originRoot, key: key) else { continue }
                let value = try source.value(leaf, row: row, column: column, spec: origin.layout[column])
                let links = origin.linkedKeys(value, column: column).reduce(0) { $0 + ($1 == targetKey ? 1 : 0) }
                keys.append(contentsOf: repeatElement(key, count: max(links, 1)))
            }
            return keys
        }
    }

    // MARK: Sorting and distinct

    /// `keys` sorted by `sort` (the first key decides, later ones break ties); stable. With a
    /// `limit`, only the first `limit` (or more) are returned, sorting only the objects that can
    /// be among them (``SortKeyColumn/candidates(count:limit:)``).
    ///
    /// - Complexity: O(n log n) comparisons of precomputed keys; O(n) to select with a small limit.
    package func sorted(_ keys: [UInt64], by sort: [SortKey], in table: Table, limit: Int? = nil) throws -> [UInt64] {
        let first = try sortColumn(keys, sort[0], in: table)
        if let limit, let candidates = first.candidates(count: keys.count, limit: limit) {
            // Only the candidates can come first: read the other keys and sort for them alone.
            let candidateKeys = candidates.map { keys[$0] }
            return Array(try sorted(candidateKeys, by: sort, in: table).prefix(limit))
        }
        let columns = try [first] + sort.dropFirst().map { try sortColumn(keys, $0, in: table) }
        return SortKeyColumn.order(columns, count: keys.count).map { keys[$0] }
    }

    /// The first key of each distinct combination of values at `keyPaths`.
    package func distinct(_ keys: [UInt64], by keyPaths: [String], in table: Table) throws -> [UInt64] {
        let columns = try keyPaths.map { try values(of: keys, at: $0, in: table) }
        var seen = Set<[ColumnValue]>()
        return keys.indices.filter { index in seen.insert(columns.map { $0[index] }).inserted }.map { keys[$0] }
    }

    /// The sort keys of `keys` for one sort key. Properties of the object itself of the common
    /// kinds are read straight from the leaves (in one pass when `keys` is the whole table in key
    /// order); decimals, mixed values and paths through links compare their decoded values.
    private func sortColumn(_ keys: [UInt64], _ sortKey: SortKey, in table: Table) throws -> SortKeyColumn {
        let path = try resolve(sortKey.keyPath, in: table)
        let kind = path.last.property.kind
        guard path.hops.isEmpty, path.last.property.collection == nil, SortKeyColumn.canReadDirectly(kind) else {
            let values = try values(of: keys, at: sortKey.keyPath, in: table)
            if kind == .decimal128 {
                let decimals = values.map { value -> UInt128? in
                    if case .fixed(let bytes) = value { return DecimalEncoding.bits(storedBytes: bytes) }
                    return nil
                }
                return SortKeyColumn(ascending: sortKey.ascending, count: keys.count) { a, b in
                    switch (decimals[a], decimals[b]) {
                    case (nil, nil): 0
                    case (nil, _): -1
                    case (_, nil): 1
                    case (let x?, let y?): DecimalEncoding.compare(x, y)
                    }
                }
            }
            return SortKeyColumn(ascending: sortKey.ascending, values: values)
        }
        let root = try evaluator.root(table.tree)
        let column = path.last.column
        var sortColumn = SortKeyColumn(ascending: sortKey.ascending)
        sortColumn.reserveCapacity(keys.count)
        if Self.isWholeTable(keys, root) {
            try source.forEachCluster(in: root, prefetching: [column]) { leaf in
                try sortColumn.appendRows(of: leaf, column: column, kind: kind, source: source)
                return true
            }
        } else {
            for key in keys {
                guard let (leaf, row) = try source.row(in: root, key: key) else {
                    throw StorageError(.invalidDatabase, "object \(key) of '\(table.name)' is missing from its table")
                }
                try sortColumn.append(leaf, row, column: column, kind: kind, source: source)
            }
        }
        return sortColumn
    }

    /// The value at `keyPath` of each object (nil for a missing object or value). Properties of
    /// the object itself are read straight from its row; paths through links are followed.
    private func values(of keys: [UInt64], at keyPath: String, in table: Table) throws -> [ColumnValue] {
        let path = try resolve(keyPath, in: table)
        let root = try evaluator.root(table.tree)
        let direct = path.hops.isEmpty && path.last.property.collection == nil
        let spec = table.layout[path.last.column]
        if direct && Self.isWholeTable(keys, root) {
            var values: [ColumnValue] = []
            values.reserveCapacity(keys.count)
            try source.forEachCluster(in: root) { leaf in
                for row in 0..<leaf.count { values.append(try source.value(leaf, row: row, column: path.last.column, spec: spec)) }
                return true
            }
            return values
        }
        return try keys.map { key in
            guard let (leaf, row) = try source.row(in: root, key: key) else { return .null }
            if direct { return try source.value(leaf, row: row, column: path.last.column, spec: spec) }
            return try evaluator.values(at: path, leaf, row).first ?? .null
        }
    }

    /// Whether `keys` are every object of the table, in key order (how unfiltered keys come; a
    /// list with the same objects in another order fails the check): then one pass over the
    /// leaves reads them, instead of a lookup per key.
    private static func isWholeTable(_ keys: [UInt64], _ root: TreeRoot) -> Bool {
        keys.count == Int(root.count) && zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
    }

    // MARK: Aggregates

    /// `@min`/`@max`/`@sum`/`@avg` of a property over `keys` (nil: every object of the table).
    /// Traps unless the property is a numeric or date property of the object (a programmer error,
    /// as in Realm).
    package func aggregate(_ aggregate: QueryAggregate, of property: String, keys: [UInt64]?, in table: Table) throws -> ColumnValue {
        guard let column = table.columns[property], let info = table.property(column), info.collection == nil,
              [.int, .float, .double, .date, .decimal128].contains(info.kind) else {
            fatalError("Cannot compute \(aggregate.rawValue) of '\(property)' on '\(table.name)': it must be a numeric or date property")
        }
        let root = try evaluator.root(table.tree)
        let values = try (keys ?? self.keys(of: table)).map { key -> ColumnValue in
            guard let (leaf, row) = try source.row(in: root, key: key) else { return .null }
            return (try? source.value(leaf, row: row, column: column, spec: table.layout[column])) ?? .null
        }
        return QueryComparisons.aggregate(aggregate, of: values, kind: info.kind, isCollection: true)
    }
}
