package import RealmStorage

/// Creating, changing and deleting objects: table rows plus the index entries that must follow.
extension WriteTransaction {
    /// The key a new object gets: its integer primary key, or one past the table's greatest key.
    package func newObjectKey(in table: Table, values: [ColumnValue]) throws -> UInt64 {
        if table.primaryKeyIsObjectKey, let column = table.primaryKeyColumn {
            switch values[column] {
            case .int(let value): return UInt64(bitPattern: value)
            case .null: return UInt64(bitPattern: Int64.min)  // the one key a nil primary key can have
            default: throw StorageError(.invalidInput, "Primary key of '\(table.name)' must be an integer")
            }
        }
        return try lastRowKey(in: table.tree).map { $0 + 1 } ?? 0
    }

    /// Inserts an object with every physical column's value. Throws `.invalidInput` (Realm's
    /// "duplicate primary key" error) if the primary key is taken.
    package func insertObject(into table: Table, key: UInt64, values: [ColumnValue]) throws {
        if let column = table.primaryKeyColumn, let index = table.indexes[column] {
            let encoded = try IndexKey.encode(values[column], table.layout[column], kind: table.property(column)?.kind)
            if try !indexObjectKeys(root(of: index), matching: encoded).isEmpty {
                throw duplicatePrimaryKey(table, values[column])
            }
        }
        do {
            try insertRow(table.tree, key: key, values: values, layout: table.layout)
        } catch let error as StorageError where error.code == .invalidInput && table.primaryKeyIsObjectKey
            && (try? row(in: root(of: table.tree), key: key)) != nil {
            throw duplicatePrimaryKey(table, values[table.primaryKeyColumn ?? 0])
        }
        for (column, index) in table.indexes {
            for encoded in table.indexValues(values[column], column: column) {
                try indexInsert(index, value: encoded, objectKey: key)
            }
        }
    }

    private func duplicatePrimaryKey(_ table: Table, _ value: ColumnValue) -> StorageError {
        StorageError(.invalidInput,
                     "Attempting to create an object of type '\(table.name)' with an existing primary key value '\(value.displayText)'.")
    }

    /// The current value of one property of an object.
    package func value(column: Int, of key: UInt64, in table: Table) throws -> ColumnValue {
        guard let (leaf, row) = try row(in: root(of: table.tree), key: key) else {
            throw StorageError(.invalidInput, "The object has been deleted")
        }
        return try value(leaf, row: row, column: column, spec: table.layout[column])
    }

    /// Changes one property of an object, keeping its index entries in step. Embedded objects the
    /// property no longer links to are deleted (an embedded object lives only through its owner).
    ///
    /// - Parameter position: where the row is known to be (see ``updateValue(_:key:column:value:layout:at:)``).
    package func setValue(_ value: ColumnValue, column: Int, of key: UInt64, in table: Table, catalog: SchemaCatalog,
                          at position: (leaf: ClusterLeaf, row: Int)? = nil) throws {
        if table.storesOnlyInRow[column] {
            return try updateValue(table.tree, key: key, column: column, value: value, layout: table.layout, at: position)
        }
        let ownsEmbedded = table.property(column)?.objectClassName.map { catalog.embeddedClasses.contains($0) } ?? false
        guard table.indexes[column] != nil || ownsEmbedded else {
            return try updateValue(table.tree, key: key, column: column, value: value, layout: table.layout, at: position)
        }
        let old = try self.value(column: column, of: key, in: table)
        guard old != value else { return }
        if let index = table.indexes[column] {
            let before = Set(table.indexValues(old, column: column))
            let after = Set(table.indexValues(value, column: column))
            for removed in before.subtracting(after) { try indexRemove(index, key: IndexKey.key(removed, objectKey: key)) }
            for added in after.subtracting(before) { try indexInsert(index, value: added, objectKey: key) }
        }
        try updateValue(table.tree, key: key, column: column, value: value, layout: table.layout)
        if ownsEmbedded, let name = table.property(column)?.objectClassName, let target = catalog.tables[name] {
            let kept = Set(table.linkedKeys(value, column: column))
            for orphan in Set(table.linkedKeys(old, column: column)).subtracting(kept) {
                try deleteObject(orphan, from: target, catalog: catalog)
            }
        }
    }

    /// Deletes an object with its index entries, removes every link to it (to-one links become
    /// nil, collections drop it) and deletes the embedded objects it owns. Returns false if it
    /// did not exist.
    @discardableResult
    package func deleteObject(_ key: UInt64, from table: Table, catalog: SchemaCatalog) throws -> Bool {
        guard let (leaf, row) = try row(in: root(of: table.tree), key: key) else { return false }
        var owned: [(Table, UInt64)] = []
        for (column, index) in table.indexes {
            let old = try value(leaf, row: row, column: column, spec: table.layout[column])
            for encoded in table.indexValues(old, column: column) {
                try indexRemove(index, key: IndexKey.key(encoded, objectKey: key))
            }
            if let name = table.property(column)?.objectClassName, catalog.embeddedClasses.contains(name),
               let target = catalog.tables[name] {
                owned += table.linkedKeys(old, column: column).map { (target, $0) }
            }
        }
        guard try removeRow(table.tree, key: key) else { return false }
        for (source, column) in catalog.inboundLinks[table.name] ?? [] {
            guard let index = source.indexes[column] else { continue }
            for sourceKey in try linkingObjects(to: key, of: table, from: source, column: column, indexRoot: root(of: index)) {
                let current = try value(column: column, of: sourceKey, in: source)
                try setValue(source.unlinking(current, column: column, from: key, in: table), column: column,
                             of: sourceKey, in: source, catalog: catalog)
            }
        }
        for (target, child) in owned { try deleteObject(child, from: target, catalog: catalog) }
        return true
    }

}
