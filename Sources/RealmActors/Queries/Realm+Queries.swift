import Foundation
internal import RealmRuntime

/// Evaluating queries at a handle's version: the glue between `Results` and the object store's
/// query engine.
extension Realm {
    /// An evaluator over what this handle sees (its write transaction, or its read version).
    func queryEvaluator() -> QueryEvaluator {
        if let writer { return QueryEvaluator(source: writer) { try writer.root(of: $0) } }
        let reader = reader
        return QueryEvaluator(source: reader) { try reader.root(of: $0) }
    }

    /// Parses a Realm Query Language predicate and checks it against the class's table; returns
    /// its plan too (nil while the class has no table).
    func parseQuery(_ text: String, arguments: [Any], className: String) throws -> (QueryExpression, QueryPlan?) {
        do {
            let expression = try QueryParser.parse(text, arguments: try arguments.map(QueryArguments.argument))
            guard let table = catalog.tables[className] else { return (expression, nil) }
            return (expression, try QueryPlan.bind(expression, to: table, catalog: catalog, linkingObjects: ObjectSchemaDiscovery.linkingObjects))
        } catch let error as QueryError {
            throw Realm.Error(.invalidInput, "Invalid predicate '\(text)': \(error.message) at offset \(error.position)")
        }
    }

    /// The plan of a built (type-safe) query; traps with the binder's message if it does not fit
    /// the table.
    func checkQuery(_ expression: QueryExpression, in table: Table) -> QueryPlan {
        do {
            return try QueryPlan.bind(expression, to: table, catalog: catalog, linkingObjects: ObjectSchemaDiscovery.linkingObjects)
        } catch {
            fatalError("Invalid query on '\(table.name)': \(error)")
        }
    }

    /// Traps with a precise message if `keyPath` is not a property path of `table` (sorting and
    /// distinct on a missing property are programmer errors in Realm).
    func checkKeyPath(_ keyPath: String, in table: Table) {
        do {
            _ = try BoundPath.resolve(keyPath, in: table, catalog: catalog, linkingObjects: ObjectSchemaDiscovery.linkingObjects)
        } catch let error as QueryError {
            fatalError("Cannot sort or distinct on key path '\(keyPath)': \(error.message)")
        } catch {
            fatalError("\(error)")
        }
    }

    /// The plan of `expression` at the current schema; nil (no match) if it no longer fits
    /// (after a migration removed a property it uses).
    func plan(_ expression: QueryExpression, in table: Table) -> QueryPlan {
        (try? QueryPlan.bind(expression, to: table, catalog: catalog, linkingObjects: ObjectSchemaDiscovery.linkingObjects)) ?? .constant(false)
    }

    func count(matching plan: QueryPlan, in table: Table) -> Int {
        do {
            return try queryEvaluator().count(plan, in: table)
        } catch {
            fileIsDamaged(error)
        }
    }

    /// The keys of the base objects matching `plan` (all of them if nil), in base order.
    func baseKeys(_ base: ResultsBase, plan: QueryPlan?, in table: Table, limit: Int?) -> [UInt64] {
        do {
            let evaluator = queryEvaluator()
            switch base {
            case .table:
                guard let plan else { return keys(of: table) }
                return try evaluator.matchingKeys(plan, in: table)
            case .keys, .list, .linkingObjects:
                let candidates = objectKeys(of: base)
                guard let plan else { return candidates }
                var matching: [UInt64] = []
                for key in candidates where try evaluator.matches(plan, key: key, in: table) {
                    matching.append(key)
                    if let limit, matching.count >= limit { break }
                }
                return matching
            }
        } catch {
            fileIsDamaged(error)
        }
    }

    /// The objects a non-table base holds now, in its order (none once the list's owner or the
    /// linked object is deleted). Traps if a `LinkingObjects` origin property is not a link.
    func objectKeys(of base: ResultsBase) -> [UInt64] {
        switch base {
        case .table:
            return []  // not used: tables are scanned
        case .keys(let keys):
            return keys
        case .list(let ownerClass, let ownerKey, let property):
            guard let owner = catalog.tables[ownerClass], let column = owner.columns[property],
                  let (leaf, row) = locate(owner, ownerKey),
                  let value = try? queryEvaluator().source.value(leaf, row: row, column: column, spec: owner.layout[column]) else { return [] }
            return owner.linkedKeys(value, column: column)
        case .linkingObjects(let targetClass, let targetKey, let originClass, let property):
            guard let target = catalog.tables[targetClass], let source = catalog.tables[originClass],
                  locate(target, targetKey) != nil else { return [] }
            guard let column = source.columns[property], source.property(column)?.canLink == true else {
                fatalError("Property '\(originClass).\(property)' declared as origin of linking objects is not a link")
            }
            return linkingObjectKeys(to: targetKey, of: target, from: source, column: column)
        }
    }

    /// The value at `keyPath` of each object (nil for a missing object or value). Properties of
    /// the object itself are read straight from its row; paths through links are followed.
    private func sortValues(_ keys: [UInt64], _ keyPath: String, in table: Table) -> [ColumnValue] {
        do {
            let path = try BoundPath.resolve(keyPath, in: table, catalog: catalog, linkingObjects: ObjectSchemaDiscovery.linkingObjects)
            let evaluator = queryEvaluator()
            let source = evaluator.source
            let root = try evaluator.root(table.tree)
            let direct = path.hops.isEmpty && path.last.property.collection == nil
            let spec = table.layout[path.last.column]
            if direct && keys.count == Int(root.count) && zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) {
                // Every object of the table, in key order (how unfiltered keys come; a list with
                // the same objects in another order fails the check): one pass over the leaves
                // instead of a lookup per key.
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
        } catch {
            fatalError("Cannot read '\(keyPath)' of '\(table.name)': \(error)")
        }
    }

    /// `keys` sorted by the descriptors; stable. With a `limit`, only the first `limit` (or more).
    func sorted(_ keys: [UInt64], by descriptors: [SortDescriptor], in table: Table, limit: Int? = nil) -> [UInt64] {
        let first = sortColumn(keys, descriptors[0], in: table)
        if let limit, let candidates = first.candidates(count: keys.count, limit: limit) {
            // Only the candidates can come first: read the other keys and sort for them alone.
            let candidateKeys = candidates.map { keys[$0] }
            return Array(sorted(candidateKeys, by: descriptors, in: table).prefix(limit))
        }
        let columns = [first] + descriptors.dropFirst().map { sortColumn(keys, $0, in: table) }
        return SortKeyColumn.order(columns, count: keys.count).map { keys[$0] }
    }

    /// The sort keys of `keys` for one descriptor. Properties of the object itself of the common
    /// kinds are read straight from the leaves (in one pass when `keys` is the whole table in key
    /// order); decimals, mixed values and paths through links compare their decoded values.
    private func sortColumn(_ keys: [UInt64], _ descriptor: SortDescriptor, in table: Table) -> SortKeyColumn {
        do {
            let path = try BoundPath.resolve(descriptor.keyPath, in: table, catalog: catalog, linkingObjects: ObjectSchemaDiscovery.linkingObjects)
            let kind = path.last.property.kind
            guard path.hops.isEmpty, path.last.property.collection == nil, SortKeyColumn.canReadDirectly(kind) else {
                let values = sortValues(keys, descriptor.keyPath, in: table)
                if kind == .decimal128 {
                    let decimals = values.map { value -> Decimal128? in
                        if case .fixed(let bytes) = value { return Decimal128(storedBytes: bytes) }
                        return nil
                    }
                    return SortKeyColumn(ascending: descriptor.ascending, count: keys.count) { a, b in
                        switch (decimals[a], decimals[b]) {
                        case (nil, nil): 0
                        case (nil, _): -1
                        case (_, nil): 1
                        case (let x?, let y?): x < y ? -1 : (x == y ? 0 : 1)
                        }
                    }
                }
                return SortKeyColumn(ascending: descriptor.ascending, values: values)
            }
            let evaluator = queryEvaluator()
            let source = evaluator.source
            let root = try evaluator.root(table.tree)
            let column = path.last.column
            var sortColumn = SortKeyColumn(ascending: descriptor.ascending)
            sortColumn.reserveCapacity(keys.count)
            if keys.count == Int(root.count) && zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) {
                // Every object of the table, in key order (how unfiltered keys come; a list with
                // the same objects in another order fails the check): one pass over the leaves
                // instead of a lookup per key.
                try source.forEachCluster(in: root, prefetching: [column]) { leaf in
                    try sortColumn.appendRows(of: leaf, column: column, kind: kind, source: source)
                    return true
                }
            } else {
                for key in keys {
                    guard let (leaf, row) = try source.row(in: root, key: key) else {
                        fileIsDamaged("object \(key) of '\(table.name)' is missing from its table")
                    }
                    try sortColumn.append(leaf, row, column: column, kind: kind, source: source)
                }
            }
            return sortColumn
        } catch {
            fatalError("Cannot read '\(descriptor.keyPath)' of '\(table.name)': \(error)")
        }
    }

    /// The first key of each distinct combination of values at `keyPaths`.
    func distinct(_ keys: [UInt64], by keyPaths: [String], in table: Table) -> [UInt64] {
        let columns = keyPaths.map { sortValues(keys, $0, in: table) }
        var seen = Set<[ColumnValue]>()
        return keys.indices.filter { index in seen.insert(columns.map { $0[index] }).inserted }.map { keys[$0] }
    }

    /// `@min`/`@max`/`@sum`/`@avg` of a property over `keys` (nil: every object of the table).
    func aggregate(_ aggregate: QueryAggregate, of property: String, keys: [UInt64]?, in table: Table) -> ColumnValue {
        guard let column = table.columns[property], let info = table.property(column), info.collection == nil,
              [.int, .float, .double, .date, .decimal128].contains(info.kind) else {
            fatalError("Cannot compute \(aggregate.rawValue) of '\(property)' on '\(table.name)': it must be a numeric or date property")
        }
        let values = (keys ?? self.keys(of: table)).map { key -> ColumnValue in
            guard let (leaf, row) = locate(table, key) else { return .null }
            return (try? (writer as (any PageSource)? ?? reader).value(leaf, row: row, column: column, spec: table.layout[column])) ?? .null
        }
        return QueryComparisons.aggregate(aggregate, of: values, kind: info.kind, isCollection: true)
    }
}
