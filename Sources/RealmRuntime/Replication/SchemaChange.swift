/// A change one commit made to the schema, as a replication consumer must apply it to its own
/// copy: found by comparing the tables of the commit's base version with those of the version it
/// made, by tree (a table) and physical column (a property's storage; see `StoredTable`).
///
/// A migration writes no row for most of what it does: a property added to existing objects, a
/// property renamed, a column dropped. Only these tell a consumer what the objects it has not
/// been sent a change for now hold.
package enum SchemaChange: Sendable, Hashable {
    /// The commit created the class's table (its objects, if any, are the commit's inserts).
    case classAdded(String)
    /// The commit dropped the class's table (``CommitChangeSet/ClassChanges/deletedAll``).
    case classRemoved(String)
    /// The class's table stayed but changed in a way no column change expresses: its primary
    /// key, or whether it is embedded. A consumer reloads the class from the new version.
    case classRestructured(String)
    /// A property with a column of its own is new: existing objects hold the column's default
    /// (unless the commit wrote them: then they are among its modifications).
    case propertyAdded(className: String, property: String)
    /// A property is gone, and its values with it.
    case propertyRemoved(className: String, property: String)
    /// A property kept its values under another name (`Migration.renameProperty`).
    case propertyRenamed(className: String, from: String, to: String)
    /// A property's values are stored anew, in another column: its type, optionality or
    /// collection changed. Objects the commit wrote are among its modifications; the others
    /// hold the new column's default.
    case propertyTypeChanged(className: String, property: String)

    /// The changes from `old` to `new`, classes in `new`'s table order (removed ones first).
    ///
    /// - Complexity: O(tables + columns) of the two schemas; O(1) when they are the same record.
    package static func changes(from old: StoredSchema, to new: StoredSchema) -> [SchemaChange] {
        guard old != new else { return [] }
        let oldTables = Dictionary(old.tables.map { ($0.tree, $0) }, uniquingKeysWith: { first, _ in first })
        let newTrees = Set(new.tables.map(\.tree))
        var changes: [SchemaChange] = old.tables.filter { !newTrees.contains($0.tree) }.map { .classRemoved($0.schema.className) }
        for table in new.tables {
            let name = table.schema.className
            guard let before = oldTables[table.tree] else {
                changes.append(.classAdded(name))
                continue
            }
            if before.schema.isEmbedded != table.schema.isEmbedded
                || before.schema.properties.first(where: \.isPrimaryKey)?.name != table.schema.properties.first(where: \.isPrimaryKey)?.name {
                changes.append(.classRestructured(name))
                continue
            }
            changes += propertyChanges(of: name, from: before, to: table)
        }
        return changes
    }

    /// Property changes of one table, by physical column.
    private static func propertyChanges(of className: String, from old: StoredTable, to new: StoredTable) -> [SchemaChange] {
        func live(_ table: StoredTable, _ column: Int) -> PropertyInfo? {
            guard column < table.columns.count, let property = table.columns[column], !property.name.hasPrefix("\u{0}") else { return nil }
            return property
        }
        func column(of name: String, in table: StoredTable) -> Int? {
            table.columns.firstIndex { $0?.name == name }
        }
        var changes: [SchemaChange] = []
        for index in 0..<max(old.columns.count, new.columns.count) {
            let before = live(old, index), after = live(new, index)
            switch (before, after) {
            case let (before?, after?) where before.name != after.name:
                changes.append(.propertyRenamed(className: className, from: before.name, to: after.name))
            case (let before?, nil):
                // Its name lives on in another column: the values were stored anew there.
                if let moved = column(of: before.name, in: new), live(new, moved) != nil {
                    changes.append(.propertyTypeChanged(className: className, property: before.name))
                } else {
                    changes.append(.propertyRemoved(className: className, property: before.name))
                }
            case (nil, let after?):
                if let previous = column(of: after.name, in: old), live(old, previous) != nil {
                    continue  // the other side of a type change, reported above
                }
                changes.append(.propertyAdded(className: className, property: after.name))
            default:
                continue
            }
        }
        return changes
    }
}
