/// The tracker of `object.changes`: the object's stored values when last delivered (so a
/// change is a value that differs, whatever the log says), plus the log for changes of linked
/// objects.
package final class ObjectChangeTracker: ChangeTracker {
    private let className: String
    private let key: UInt64
    private let filter: ChangeFilter
    private var snapshot: FrozenVersion
    /// Stored values by column at the last delivered (or silently skipped) version.
    private var values: [Int: ColumnValue]
    /// Properties changed since the last element, in the order found, with their old values.
    private var pending: [(column: Int, old: ColumnValue?)] = []
    private var deleted = false

    package init(className: String, key: UInt64, filter: ChangeFilter, snapshot: FrozenVersion) {
        self.className = className
        self.key = key
        self.filter = filter
        self.snapshot = snapshot
        values = Self.values(of: key, in: className, at: snapshot) ?? [:]
    }

    private static func values(of key: UInt64, in className: String, at snapshot: FrozenVersion) -> [Int: ColumnValue]? {
        guard let table = snapshot.catalog.tables[className],
              let (leaf, row) = try? snapshot.reader.row(in: snapshot.reader.root(of: table.tree), key: key) else { return nil }
        var values: [Int: ColumnValue] = [:]
        for column in table.columns.values {
            values[column] = try? snapshot.reader.value(leaf, row: row, column: column, spec: table.layout[column])
        }
        return values
    }

    package func initialElement() -> ChangeElement? { nil }

    package func advance(_ version: VersionContext, silent: Bool) -> Bool {
        let snapshot = version.snapshot, changes = version.changes
        guard !deleted else { return false }
        guard let table = snapshot.catalog.tables[className] else { deleted = true; return true }
        self.snapshot = snapshot  // the newest version, touched or not (see CollectionChangeTracker)
        let modified = changes.map { ModifiedObjects(changes: $0, snapshot: snapshot) }
        if let modified, !modified.touches(table, filter: filter) { return false }
        guard let newValues = Self.values(of: key, in: className, at: snapshot) else {
            deleted = true  // reported even when silenced: the stream ends with it
            return true
        }
        var changed: [Int] = []
        let counted = filter.columns(of: table)
        for column in newValues.keys.sorted() where counted.contains(column) && newValues[column] != values[column] {
            changed.append(column)
        }
        // A property linking to objects that changed (as the filter follows links).
        if modified != nil {
            for (column, linkedFilter) in filter.links(of: table) where !changed.contains(column) {
                guard let targetName = table.property(column)?.objectClassName, let target = snapshot.catalog.tables[targetName] else { continue }
                let linked = version.modifiedKeys(in: target, filter: linkedFilter)
                guard !linked.isEmpty, let value = newValues[column] else { continue }
                if table.linkedKeys(value, column: column).contains(where: linked.contains) { changed.append(column) }
            }
        }
        if !silent {
            for column in changed where !pending.contains(where: { $0.column == column }) { pending.append((column, values[column])) }
        }
        values = newValues
        return !silent && !changed.isEmpty
    }

    package func takeElement() -> (element: ChangeElement, isLast: Bool)? {
        if deleted { return (.objectDeleted, true) }
        guard !pending.isEmpty, let table = snapshot.catalog.tables[className] else { return nil }
        let changes = pending.compactMap { column, old -> PropertyValueChange? in
            guard table.property(column) != nil else { return nil }
            return PropertyValueChange(column: column, old: old, new: values[column])
        }
        pending = []
        return (.object(version: snapshot, table: table, key: key, changes: changes), false)
    }

    package func errorElement(_ error: RuntimeError) -> ChangeElement? { .failure(error) }
}
