/// Which objects of a table a span of commits modified, by a ``ChangeFilter``: the rows whose
/// counted columns were written, plus the objects linking (through followed link properties) to
/// objects so modified — found through the link indexes, one lookup per modified linked object,
/// never by reading every observed object's links.
struct ModifiedObjects {
    let changes: RowChanges
    let snapshot: FrozenVersion

    /// The keys of `table`'s objects that count as modified under `filter`.
    func keys(in table: Table, filter: ChangeFilter) -> Set<UInt64> {
        var result = Set<UInt64>()
        if let tree = changes.trees[table.tree] {
            let counted = filter.columns(of: table)
            for (key, columns) in tree.updated where !columns.isDisjoint(with: counted) { result.insert(key) }
        }
        for (column, linkedFilter) in filter.links(of: table) {
            guard let targetName = table.property(column)?.objectClassName, let target = snapshot.catalog.tables[targetName],
                  let index = table.indexes[column] else { continue }
            let linked = keys(in: target, filter: linkedFilter)
            guard !linked.isEmpty, let indexRoot = try? snapshot.reader.root(of: index) else { continue }
            for key in linked {
                let sources = (try? snapshot.reader.linkingObjects(to: key, of: target, from: table, column: column, indexRoot: indexRoot)) ?? []
                result.formUnion(sources)
            }
        }
        return result
    }

    /// Whether the commits touched `table` or a table its followed links reach.
    func touches(_ table: Table, filter: ChangeFilter) -> Bool {
        if changes.touches(table.tree) { return true }
        return filter.links(of: table).contains { column, linkedFilter in
            guard let targetName = table.property(column)?.objectClassName, let target = snapshot.catalog.tables[targetName] else { return false }
            return touches(target, filter: linkedFilter)
        }
    }
}
