/// The tables of one schema version, by class name.
package final class SchemaCatalog: Sendable {
    package let stored: StoredSchema
    package let tables: [String: Table]

    /// Per class name, the link columns that may point at its objects: `(table, column)` of every
    /// `.object` property targeting it and of every `AnyRealmValue` property.
    package let inboundLinks: [String: [(table: Table, column: Int)]]
    /// Per class name, whether its objects are embedded (owned by the object linking to them).
    package let embeddedClasses: Set<String>

    /// The column layout of every table tree: what a compacted copy needs to rebuild the rows
    /// (``Database/writeCompactCopy(of:tables:to:replacing:)``).
    package var tableLayouts: [TreeID: [ColumnSpec]] {
        Dictionary(tables.values.map { ($0.tree, $0.layout) }) { first, _ in first }
    }

    /// The columns of every table tree, as the integrity check compares table leaves with them
    /// (``Database/verify(treeNames:tableColumns:contents:)``): each live property's layout, nil
    /// for the column of a removed property (whose old values keep their kind).
    package var tableColumns: [TreeID: [ColumnSpec?]] {
        Dictionary(tables.values.map { table in (table.tree, table.stored.columns.map { $0?.columnSpec }) }) { first, _ in first }
    }

    package init(_ stored: StoredSchema) {
        self.stored = stored
        let tables = Dictionary(uniqueKeysWithValues: stored.tables.map { ($0.schema.className, Table($0)) })
        self.tables = tables
        var inbound: [String: [(table: Table, column: Int)]] = [:]
        let mixed = tables.values.flatMap { table in
            table.columns.values.filter { table.property($0)?.kind == .mixed }.map { (table: table, column: $0) }
        }
        for table in tables.values {
            for column in table.columns.values.sorted() {
                guard let property = table.property(column), property.kind == .object, let target = property.objectClassName else { continue }
                inbound[target, default: []].append((table, column))
            }
        }
        for name in tables.keys { inbound[name, default: []] += mixed }
        inboundLinks = inbound
        embeddedClasses = Set(stored.tables.filter(\.schema.isEmbedded).map(\.schema.className))
    }

    package static let empty = SchemaCatalog(StoredSchema(version: 0, tables: []))
    package var version: UInt64 { stored.version }
}
