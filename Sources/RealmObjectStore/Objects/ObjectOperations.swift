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
        return try lastKey(in: root(of: table.tree)).map { $0 + 1 } ?? 0
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
                try indexInsert(index, key: IndexKey.key(encoded, objectKey: key))
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
    package func setValue(_ value: ColumnValue, column: Int, of key: UInt64, in table: Table, catalog: SchemaCatalog) throws {
        let ownsEmbedded = table.property(column)?.objectClassName.map { catalog.embeddedClasses.contains($0) } ?? false
        guard table.indexes[column] != nil || ownsEmbedded else {
            return try updateValue(table.tree, key: key, column: column, value: value, layout: table.layout)
        }
        let old = try self.value(column: column, of: key, in: table)
        guard old != value else { return }
        if let index = table.indexes[column] {
            let before = Set(table.indexValues(old, column: column))
            let after = Set(table.indexValues(value, column: column))
            for removed in before.subtracting(after) { try indexRemove(index, key: IndexKey.key(removed, objectKey: key)) }
            for added in after.subtracting(before) { try indexInsert(index, key: IndexKey.key(added, objectKey: key)) }
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

extension PageSource {
    /// The objects of `source` whose property `column` links to object `key` of `target`, in
    /// object-key order (the order Realm's `LinkingObjects` has), found in the column's link
    /// index (whose root at this version is `indexRoot`).
    package func linkingObjects(to key: UInt64, of target: Table, from source: Table, column: Int,
                                indexRoot: TreeRoot) throws -> [UInt64] {
        try indexObjectKeys(indexRoot, matching: source.linkIndexValue(column: column, to: key, in: target))
    }

    /// The object key of the object whose primary key is `value`, if there is one.
    package func objectKey(forPrimaryKey value: ColumnValue, in table: Table, root: TreeRoot, index: TreeRoot?) throws -> UInt64? {
        guard let column = table.primaryKeyColumn else { return nil }
        if table.primaryKeyIsObjectKey {
            let key: UInt64
            switch value {
            case .int(let int): key = UInt64(bitPattern: int)
            case .null: key = UInt64(bitPattern: Int64.min)
            default: return nil
            }
            guard let (leaf, row) = try row(in: root, key: key) else { return nil }
            // Int64.min is both a real key and the key of a nil primary key: tell them apart.
            if value == .null { return leaf.isNull(row, column) ? key : nil }
            return leaf.isNull(row, column) ? nil : key
        }
        guard let index else { return nil }
        let encoded = try IndexKey.encode(value, table.layout[column], kind: table.property(column)?.kind)
        return try indexObjectKeys(index, matching: encoded).first
    }
}

extension IndexKey {
    /// The order-preserving encoding of a stored value.
    package static func encode(_ value: ColumnValue, _ spec: ColumnSpec, kind: PropertyKind?) throws -> [UInt8] {
        switch value {
        case .null: return null()
        case .int(let value): return int(value)
        case .bool(let value): return bool(value)
        case .double(let value): return double(value)
        case .float(let value): return double(Double(value))
        case .bytes(let value): return bytes(value)
        case .fixed(let value): return fixed(value)
        }
    }
}

extension ColumnValue {
    /// A short rendering for error messages.
    package var displayText: String {
        switch self {
        case .null: "null"
        case .int(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .float(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bytes(let value): String(decoding: value, as: UTF8.self)
        case .fixed(let value): value.map { String(format: "%02x", $0) }.joined()
        }
    }
}
