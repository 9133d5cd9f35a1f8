package import RealmStorage

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
