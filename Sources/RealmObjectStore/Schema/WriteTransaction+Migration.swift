package import RealmStorage

/// The table-wide edits a schema migration makes: copying a column, building an index, giving
/// the objects their integer primary keys as object keys, and counting an embedded class's
/// parents. Each is one pass over the table inside the migration's write transaction.
extension WriteTransaction {
    /// Every object key of a table, in key order (8 bytes per object: the snapshot a migration
    /// enumerates while it edits the same tree).
    package func objectKeys(of table: Table) throws -> [UInt64] {
        var keys: [UInt64] = []
        keys.reserveCapacity(Int(try count(of: table.tree)))
        try forEachCluster(in: root(of: table.tree)) { leaf in
            for row in 0..<leaf.count { keys.append(leaf.key(row)) }
            return true
        }
        return keys
    }

    /// Writes `convert(value of column from)` (read with `fromSpec`) into column `to` of every
    /// object of `table`. The table must keep no index tree for `to` (one is built afterwards).
    package func copyColumn(of table: Table, from: Int, spec fromSpec: ColumnSpec, to: Int,
                            _ convert: (ColumnValue) -> ColumnValue) throws {
        for key in try objectKeys(of: table) {
            guard let (leaf, row) = try row(in: root(of: table.tree), key: key) else { continue }
            let value = convert(try value(leaf, row: row, column: from, spec: fromSpec))
            try updateValue(table.tree, key: key, column: to, value: value, layout: table.layout)
        }
    }

    /// Creates and fills the index tree of `column` of `table` from its values. With
    /// `unique`, throws `.invalidInput` with Realm's message if two objects share a value (a
    /// primary key added or changed by a migration).
    package func buildIndex(of table: Table, column: Int, unique: Bool) throws -> TreeID {
        let tree = try createTree()
        var entries: [[UInt8]] = []
        var seen = Set<ColumnValue>()
        try forEachCluster(in: root(of: table.tree)) { leaf in
            for row in 0..<leaf.count {
                let value = try value(leaf, row: row, column: column, spec: table.layout[column])
                if unique, !seen.insert(value).inserted {
                    throw StorageError(.invalidInput,
                                       "Primary key property '\(table.name).\(table.property(column)?.name ?? "")' has duplicate values after migration.")
                }
                for encoded in table.indexValues(value, column: column) {
                    entries.append(IndexKey.key(encoded, objectKey: leaf.key(row)))
                }
            }
            return true
        }
        for entry in entries { try indexInsert(tree, key: entry) }
        return tree
    }

    /// Moves every object of `table`, whose integer primary key is `column`, to the object key
    /// its primary key gives (``Table/primaryKeyIsObjectKey``), and rewrites the links to them
    /// from every column of `catalog` that can link (`AnyRealmValue` links name the table's
    /// tree, which is kept). Throws Realm's duplicate-values error if two objects share a key.
    /// `table` must have no index trees (their entries hold object keys: build them afterwards).
    /// Holds every row of the table in memory (a primary key added by a migration is rare).
    package func rekeyByPrimaryKey(_ table: Table, column: Int, catalog: SchemaCatalog) throws {
        var rows: [(old: UInt64, new: UInt64, values: [ColumnValue])] = []
        var taken = Set<UInt64>()
        try forEachCluster(in: root(of: table.tree)) { leaf in
            for row in 0..<leaf.count {
                let values = try table.layout.indices.map { try value(leaf, row: row, column: $0, spec: table.layout[$0]) }
                let key: UInt64 = switch values[column] {
                case .int(let int): UInt64(bitPattern: int)
                default: UInt64(bitPattern: Int64.min)
                }
                guard taken.insert(key).inserted else {
                    throw StorageError(.invalidInput,
                                       "Primary key property '\(table.name).\(table.property(column)?.name ?? "")' has duplicate values after migration.")
                }
                rows.append((leaf.key(row), key, values))
            }
            return true
        }
        let moved = Dictionary(uniqueKeysWithValues: rows.lazy.filter { $0.old != $0.new }.map { ($0.old, $0.new) })
        guard !moved.isEmpty else { return }
        for row in rows { try removeRow(table.tree, key: row.old) }
        for row in rows { try insertRow(table.tree, key: row.new, values: row.values, layout: table.layout) }
        try remapLinks(to: table, moved, catalog: catalog)
    }

    /// Rewrites every link to a moved object of `target` (old key → new key).
    private func remapLinks(to target: Table, _ moved: [UInt64: UInt64], catalog: SchemaCatalog) throws {
        for (source, column) in catalog.inboundLinks[target.name] ?? [] {
            guard let property = source.property(column) else { continue }
            func remap(_ element: ColumnValue) -> ColumnValue {
                if property.kind == .mixed {
                    if case .link(let tree, let key) = MixedValue(stored: element), tree == target.tree, let new = moved[key] {
                        return MixedValue.link(table: tree, key: new).stored
                    }
                    return element
                }
                if case .int(let key) = element, let new = moved[UInt64(bitPattern: key)] { return .int(Int64(bitPattern: new)) }
                return element
            }
            for key in try objectKeys(of: source) {
                let old = try value(column: column, of: key, in: source)
                let new: ColumnValue = switch (property.collection, old) {
                case (nil, _): remap(old)
                case (.map?, .bytes(let bytes)):
                    .bytes(PackedCollection.encode(PackedCollection.mapElements(
                        PackedCollection.entries(PackedCollection.decode(bytes)).map { (key: $0.key, value: remap($0.value)) })))
                case (_, .bytes(let bytes)): .bytes(PackedCollection.encode(PackedCollection.decode(bytes).map(remap)))
                default: old
                }
                if new != old { try setValue(new, column: column, of: key, in: source, catalog: catalog) }
            }
        }
    }

    /// How many links point at each object of `target` from the `.object` columns of `catalog`
    /// (a list holding an object twice counts twice): what converting a class to embedded checks.
    package func parentCounts(of target: Table, catalog: SchemaCatalog) throws -> [UInt64: Int] {
        var counts: [UInt64: Int] = [:]
        for (source, column) in catalog.inboundLinks[target.name] ?? [] where source.property(column)?.kind == .object {
            try forEachCluster(in: root(of: source.tree)) { leaf in
                for row in 0..<leaf.count {
                    let value = try value(leaf, row: row, column: column, spec: source.layout[column])
                    for key in source.linkedKeys(value, column: column) { counts[key, default: 0] += 1 }
                }
                return true
            }
        }
        return counts
    }
}
