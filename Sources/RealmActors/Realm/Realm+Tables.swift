import Foundation
internal import RealmRuntime

// The tables of a handle's schema and the columns of classes' properties in them, with the caches
// that make a managed property access two identity comparisons (reset whenever `catalog` changes).
extension Realm {
    /// The table of a class at this handle's version, if it exists.
    func table(for type: ObjectBase.Type) -> Table? {
        catalog.tables[ObjectSchemaDiscovery.className(of: type)]
    }

    /// The table of a class, created in the current write transaction if the class is new, with
    /// the tables of the classes it links to (directly or not).
    func tableCreatingIfNeeded(for type: ObjectBase.Type) throws -> Table {
        if let checked = checkedTables[ObjectIdentifier(type)] { return checked }
        for linked in ObjectSchemaDiscovery.linkedClosure(of: type) {
            let schema = ObjectSchemaDiscovery.schema(for: linked)
            try schema.validateLinkingObjects { name in
                ObjectSchemaDiscovery.registeredType(named: name).map(ObjectSchemaDiscovery.schema(for:))
            }
            if let table = catalog.tables[schema.className] {
                try SchemaMigration.checkMatches(table, schema, opened: openedCatalog?.tables[schema.className]?.schema, configuration: configuration)
                if table.schema.linkingObjects != schema.linkingObjects, writer != nil {
                    // A file written before linking objects were recorded: record them now.
                    var next = catalog.stored
                    if let index = next.tables.firstIndex(where: { $0.schema.className == schema.className }) {
                        next.tables[index].schema.linkingObjects = schema.linkingObjects
                    }
                    replaceCatalog(next)
                }
                continue
            }
            let stored = try requireWrite().createTable(schema)
            var next = catalog.stored
            next.tables.append(stored)
            catalog = SchemaCatalog(next)
            catalogChanged = true
        }
        let table = catalog.tables[type.className()]!
        checkedTables[ObjectIdentifier(type)] = table
        return table
    }

    func replaceCatalog(_ stored: StoredSchema) {
        catalog = SchemaCatalog(stored)
        catalogChanged = true
    }

    /// The column of the property at a `@Persisted` storage key path if already resolved for
    /// `table`. Inlined into `ObjectBase.knownColumn` (every managed property access), where the
    /// common case is then two comparisons and no call or retain.
    @inline(__always)
    func knownColumn(for keyPath: AnyKeyPath, in table: Table) -> Int? {
        let id = ObjectIdentifier(keyPath), tableID = ObjectIdentifier(table)
        if let column = recentColumns.column(id, tableID) { return column }
        return knownColumnSlowly(for: keyPath, in: table)
    }

    /// `knownColumn` past `recentColumns`: the dictionary, whose hits are then remembered.
    @inline(never)
    private func knownColumnSlowly(for keyPath: AnyKeyPath, in table: Table) -> Int? {
        let id = ObjectIdentifier(keyPath), tableID = ObjectIdentifier(table)
        guard let entry = columnCache[id], entry.keyPath === keyPath, entry.table === table else { return nil }
        recentColumns.remember(id, tableID, entry.column)
        return entry.column
    }

    /// `type`'s field layout and the column of `table` each field stores into (nil where the
    /// table lacks the property); nil if the runtime cannot enumerate the class's fields. One
    /// lookup after the first object of the class.
    func fieldColumns(of type: ObjectBase.Type, in table: Table) -> (layout: PersistedFieldLayout, columns: [Int?])? {
        let id = ObjectIdentifier(type)
        if let entry = fieldColumnCache[id], entry.table === table { return (entry.layout, entry.columns) }
        guard let layout = PersistedFieldLayout.of(type) else { return nil }
        let columns = layout.fields.map { table.columns[$0.name] }
        fieldColumnCache[id] = (table, layout, columns)
        return (layout, columns)
    }

    /// The column of the property at a `@Persisted` storage key path, for a table; `resolve`
    /// finds it the first time.
    func column(for keyPath: AnyKeyPath, in table: Table, resolve: () -> Int) -> Int {
        let id = ObjectIdentifier(keyPath)
        if let entry = columnCache[id], entry.keyPath === keyPath, entry.table === table { return entry.column }
        let column = resolve()
        columnCache[id] = (keyPath, table, column)
        recentColumns.remember(id, ObjectIdentifier(table), column)
        return column
    }

    /// Whether `table` belongs to the current schema (it may come from a rolled-back write).
    /// An identity check in the common case; a name lookup only after the schema changed.
    func isCurrent(_ table: Table) -> Bool {
        if let known = currentTables[ObjectIdentifier(table)], known === table { return true }
        guard catalog.tables[table.name]?.tree == table.tree else { return false }
        currentTables[ObjectIdentifier(table)] = table
        return true
    }
}
