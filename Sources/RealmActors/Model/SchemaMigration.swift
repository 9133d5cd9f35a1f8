import Foundation
internal import RealmRuntime

/// Reconciles the classes a program declares with the schema recorded in the file.
///
/// - New classes are always added (they change nothing that exists).
/// - At the same `schemaVersion`, any other difference is `schemaMismatch`, with Realm's wording
///   for each difference ("Property 'Dog.age' has been added.").
/// - At a higher `schemaVersion`, added and removed properties and index changes are migrated
///   automatically; type, optionality and primary-key changes need a migration block (issue 8).
/// - A lower `schemaVersion` than the file's is an error.
enum SchemaMigration {
    /// Runs when a realm opens: checks and migrates the classes listed in `objectTypes`.
    static func prepare(_ realm: Realm) throws {
        let configuration = realm.configuration
        let desired = try declaredSchemas(configuration)
        guard try needsWrite(realm.catalog, desired, configuration) else { return }
        guard !configuration.readOnly else {
            throw Realm.Error(.schemaMismatch, "The realm file's schema differs from the classes, and the realm is read-only", fileURL: configuration.fileURL)
        }
        var madeByOther: TransactionID?
        try realm.write {
            // Decide again on the version the write builds on: handles opening the file at once
            // all see it without the classes, and the first to take the write lock creates them;
            // the others find them here and write nothing (no second table for a class).
            guard try needsWrite(realm.catalog, desired, configuration) else {
                madeByOther = realm.file.database.preparedTransaction
                realm.cancelWrite()
                return
            }
            var next = realm.catalog.stored
            next.version = max(configuration.schemaVersion, next.version)
            let write = realm.requireWrite()
            for schema in desired ?? [] {
                if let index = next.tables.firstIndex(where: { $0.schema.className == schema.className }) {
                    next.tables[index] = try migrate(next.tables[index], to: schema, in: write)
                } else {
                    next.tables.append(try write.createTable(schema))
                }
            }
            realm.replaceCatalog(next)
        }
        guard let madeByOther else { return }
        // The change is in a commit that may still wait for its sync, so not yet in the version
        // this handle reads: it opens once that commit is durable (when the commit failed, nothing
        // of it is visible, and this handle checks again from the durable version).
        do {
            try realm.file.writes.waitUntilDurableBlocking(madeByOther)
        } catch {
            realm.advance()
            return try prepare(realm)
        }
        realm.advance()
    }

    /// The schemas of the classes in `objectTypes` and every class they link to, validated; nil
    /// without `objectTypes`.
    private static func declaredSchemas(_ configuration: Realm.Configuration) throws -> [ObjectSchemaInfo]? {
        guard let types = configuration.objectTypes else { return nil }
        var desired: [ObjectSchemaInfo] = []
        var seen = Set<ObjectIdentifier>()
        let closure = types.flatMap { ObjectSchemaDiscovery.linkedClosure(of: $0) }.filter { seen.insert(ObjectIdentifier($0)).inserted }
        for type in closure {
            let schema = ObjectSchemaDiscovery.schema(for: type)
            do { try schema.validate() } catch { throw Realm.Error.from(error, configuration: configuration) }
            desired.append(schema)
        }
        do {
            for schema in desired { try schema.validateLinkingObjects { name in desired.first { $0.className == name } } }
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
        return desired
    }

    /// Whether the schema `catalog` must change to hold the `desired` classes at the
    /// configuration's `schemaVersion`; throws if it cannot without a migration block.
    private static func needsWrite(_ catalog: SchemaCatalog, _ desired: [ObjectSchemaInfo]?,
                                   _ configuration: Realm.Configuration) throws -> Bool {
        let stored = catalog.stored
        let fileHasSchema = !stored.tables.isEmpty || stored.version > 0
        if fileHasSchema && stored.version > configuration.schemaVersion {
            throw Realm.Error(.schemaMismatch,
                              "Provided schema version \(configuration.schemaVersion) is less than last set version \(stored.version).",
                              fileURL: configuration.fileURL)
        }
        guard let desired else { return false }
        var problems: [String] = []
        var automatic: [String] = []
        for schema in desired {
            guard let table = catalog.tables[schema.className] else { continue }
            let (breaking, additive) = differences(table.schema, schema)
            problems += breaking
            automatic += additive
        }
        let bump = configuration.schemaVersion > stored.version || !fileHasSchema
        if !problems.isEmpty || (!automatic.isEmpty && !bump) {
            let all = (automatic + problems).map { "\n- \($0)" }.joined()
            throw Realm.Error(.schemaMismatch, "Migration is required due to the following errors:\(all)", fileURL: configuration.fileURL)
        }
        let newTables = desired.contains { catalog.tables[$0.className] == nil }
        let indexChanges = desired.contains { schema in
            catalog.tables[schema.className].map { indexDifferences($0.schema, schema) } ?? false
        }
        // Linking-objects declarations need no migration; they are recorded when the handle can
        // write (a read-only handle of an older file binds only the declarations it finds).
        let linkingChanges = !configuration.readOnly && desired.contains { schema in
            catalog.tables[schema.className].map { $0.schema.linkingObjects != schema.linkingObjects } ?? false
        }
        return newTables || !automatic.isEmpty || indexChanges || linkingChanges || (bump && fileHasSchema)
            || (!fileHasSchema && !desired.isEmpty)
    }

    /// At first use of a class (no `objectTypes`): the class must match its stored table.
    static func checkMatches(_ table: Table, _ schema: ObjectSchemaInfo, configuration: Realm.Configuration) throws {
        let (breaking, additive) = differences(table.schema, schema)
        guard !(breaking + additive).isEmpty else { return }
        let all = (additive + breaking).map { "\n- \($0)" }.joined()
        throw Realm.Error(.schemaMismatch,
                          "Migration is required due to the following errors:\(all)\nList the class in `objectTypes` and raise `schemaVersion` to migrate.",
                          fileURL: configuration.fileURL)
    }

    /// Differences between the stored and declared class, split into those a version bump
    /// migrates automatically and those that need a migration block.
    static func differences(_ old: ObjectSchemaInfo, _ new: ObjectSchemaInfo) -> (breaking: [String], additive: [String]) {
        var breaking: [String] = []
        var additive: [String] = []
        let className = new.className
        let oldByName = Dictionary(uniqueKeysWithValues: old.properties.map { ($0.name, $0) })
        let newByName = Dictionary(uniqueKeysWithValues: new.properties.map { ($0.name, $0) })
        for property in new.properties where oldByName[property.name] == nil {
            additive.append("Property '\(className).\(property.name)' has been added.")
        }
        for property in old.properties where newByName[property.name] == nil {
            additive.append("Property '\(className).\(property.name)' has been removed.")
        }
        for property in new.properties {
            guard let previous = oldByName[property.name] else { continue }
            if previous.kind != property.kind || previous.objectClassName != property.objectClassName
                || previous.collection != property.collection {
                breaking.append("Property '\(className).\(property.name)' has been changed from '\(previous.typeName)' to '\(property.typeName)'.")
            } else if previous.isOptional != property.isOptional {
                breaking.append("Property '\(className).\(property.name)' has been made \(property.isOptional ? "optional" : "required").")
            }
        }
        if old.primaryKey?.name != new.primaryKey?.name {
            switch (old.primaryKey, new.primaryKey) {
            case (nil, let key?): breaking.append("Primary Key for class '\(className)' has been added ('\(key.name)').")
            case (let key?, nil): breaking.append("Primary Key for class '\(className)' has been removed ('\(key.name)').")
            case (let from?, let to?): breaking.append("Primary Key for class '\(className)' has changed from '\(from.name)' to '\(to.name)'.")
            default: break
            }
        }
        return (breaking, additive)
    }

    private static func indexDifferences(_ old: ObjectSchemaInfo, _ new: ObjectSchemaInfo) -> Bool {
        let oldIndexed = Set(old.properties.filter(\.isIndexed).map(\.name))
        let newIndexed = Set(new.properties.filter(\.isIndexed).map(\.name))
        return oldIndexed != newIndexed
    }

    /// Applies added and removed properties and index changes to a stored table.
    private static func migrate(_ stored: StoredTable, to schema: ObjectSchemaInfo, in write: WriteTransaction) throws -> StoredTable {
        var table = stored
        let names = Set(schema.properties.map(\.name))
        // Removed properties keep their physical column (so later columns do not move), unnamed.
        for (column, property) in table.columns.enumerated() {
            if let property, !names.contains(property.name) { table.columns[column] = nil }
        }
        for property in schema.properties where !table.columns.contains(where: { $0?.name == property.name }) {
            table.columns.append(property)
        }
        // Columns keep the declared flags (indexing may change at any version).
        for (column, old) in table.columns.enumerated() {
            if let old, let new = schema.properties.first(where: { $0.name == old.name }) { table.columns[column] = new }
        }
        for (name, tree) in table.indexes where !(schema.properties.contains { $0.name == name && $0.hasIndexTree }) {
            try write.dropTree(tree)
            table.indexes[name] = nil
        }
        table.schema = schema
        let view = Table(table)
        for property in schema.properties where property.hasIndexTree && table.indexes[property.name] == nil {
            let tree = try write.createTree()
            table.indexes[property.name] = tree
            let column = view.columns[property.name]!
            var entries: [[UInt8]] = []
            try write.forEachCluster(in: write.root(of: table.tree)) { leaf in
                for row in 0..<leaf.count {
                    let value = try write.value(leaf, row: row, column: column, spec: view.layout[column])
                    for encoded in view.indexValues(value, column: column) {
                        entries.append(IndexKey.key(encoded, objectKey: leaf.key(row)))
                    }
                }
                return true
            }
            for entry in entries { try write.indexInsert(tree, key: entry) }
        }
        return table
    }
}
