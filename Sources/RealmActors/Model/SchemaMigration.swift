import Foundation
internal import RealmRuntime

/// Reconciles the classes a program declares with the schema recorded in the file.
///
/// - New classes are always added (they change nothing that exists).
/// - At the same `schemaVersion`, any other difference is `schemaMismatch`, with Realm's wording
///   for each difference ("Property 'Dog.age' has been added.").
/// - At a higher `schemaVersion`, every change is applied, in one write transaction with the
///   configuration's migration block (``Migration``): before the block, new classes and
///   properties are added (a changed type or optionality is a new column; the old one stays
///   readable through `oldObject` until the end), and after it the old columns are dropped,
///   primary keys and indexes are built and checked, and classes that became embedded are
///   checked to have exactly one parent per object.
/// - A lower `schemaVersion` than the file's is an error.
/// - With `deleteRealmIfMigrationNeeded`, a file that would need a migration is emptied instead.
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
            do {
                try apply(desired, in: realm)
            } catch {
                throw Realm.Error.from(error, configuration: configuration)
            }
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
        guard let desired else {
            guard fileHasSchema, configuration.schemaVersion > stored.version else { return false }
            if configuration.deleteRealmIfMigrationNeeded { return true }
            if configuration.migrationBlock != nil {
                // Without the list the new schema is unknown (a program's classes are met only at
                // first use), so the block cannot run.
                throw Realm.Error(.schemaMismatch,
                                  "A migration block needs the classes of the new schema: list them in `objectTypes`.",
                                  fileURL: configuration.fileURL)
            }
            return false
        }
        var problems: [String] = []
        var automatic: [String] = []
        for schema in desired {
            guard let table = catalog.tables[schema.className] else { continue }
            let (breaking, additive) = differences(table.schema, schema)
            problems += breaking
            automatic += additive
        }
        let bump = configuration.schemaVersion > stored.version || !fileHasSchema
        if configuration.deleteRealmIfMigrationNeeded && fileHasSchema
            && (configuration.schemaVersion > stored.version || !problems.isEmpty || !automatic.isEmpty) {
            return true
        }
        if !bump && !(problems.isEmpty && automatic.isEmpty) {
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

    /// At first use of a class (no `objectTypes`): the class must match its stored table, as
    /// `opened` (its table when the handle opened, if it had one) matched it. Properties another
    /// handle or process added since the handle opened need not be declared: an open handle
    /// follows additive changes, as Realm's do (a new object gets their default values).
    static func checkMatches(_ table: Table, _ schema: ObjectSchemaInfo, opened: ObjectSchemaInfo?,
                             configuration: Realm.Configuration) throws {
        var stored = table.schema
        if let opened, opened != stored {
            let declared = Set(schema.properties.map(\.name)), known = Set(opened.properties.map(\.name))
            stored.properties.removeAll { !declared.contains($0.name) && !known.contains($0.name) }
        }
        let (breaking, additive) = differences(stored, schema)
        guard !(breaking + additive).isEmpty else { return }
        let all = (additive + breaking).map { "\n- \($0)" }.joined()
        throw Realm.Error(.schemaMismatch,
                          "Migration is required due to the following errors:\(all)\nList the class in `objectTypes` and raise `schemaVersion` to migrate.",
                          fileURL: configuration.fileURL)
    }

    /// Differences between the stored and declared class, split into those a version bump
    /// migrates automatically and those that need a migration block.
    static func differences(_ old: ObjectSchemaInfo, _ new: ObjectSchemaInfo) -> (breaking: [String], additive: [String]) {
        let differences = SchemaDifferences(from: old, to: new)
        return (differences.breaking, differences.added + differences.removed)
    }

    private static func indexDifferences(_ old: ObjectSchemaInfo, _ new: ObjectSchemaInfo) -> Bool {
        let oldIndexed = Set(old.properties.filter(\.isIndexed).map(\.name))
        let newIndexed = Set(new.properties.filter(\.isIndexed).map(\.name))
        return oldIndexed != newIndexed
        }

    // MARK: Applying a schema change

    /// Changes the schema of the open write transaction of `realm` to `desired` at the
    /// configuration's version, running the migration block around the change when the version
    /// rises on a file that has a schema. Throws (and the caller rolls everything back) if the
    /// block failed or the result breaks a rule.
    private static func apply(_ desired: [ObjectSchemaInfo]?, in realm: Realm) throws {
        let configuration = realm.configuration
        let write = realm.requireWrite()
        let old = realm.catalog
        let fileHasSchema = !old.stored.tables.isEmpty || old.version > 0
        var migrating = fileHasSchema && configuration.schemaVersion > old.version
        var next = old.stored
        next.version = max(configuration.schemaVersion, next.version)
        if configuration.deleteRealmIfMigrationNeeded && fileHasSchema {
            migrating = false
            // Empty the file in this transaction: the same as deleting it, but atomic, and safe
            // while other handles of the process have it open.
            for table in next.tables {
                try write.dropTree(table.tree)
                for tree in table.indexes.values { try write.dropTree(tree) }
            }
            next.tables = []
        }
        var copies: [(table: String, from: Int, spec: ColumnSpec, to: Int, required: Bool)] = []
        for schema in desired ?? [] {
            if let index = next.tables.firstIndex(where: { $0.schema.className == schema.className }) {
                let (table, moves) = try prepareTable(next.tables[index], for: schema, in: write)
                next.tables[index] = table
                copies += moves.map { (schema.className, $0.from, $0.spec, $0.to, $0.required) }
            } else {
                next.tables.append(try write.createTable(schema))
            }
        }
        realm.replaceCatalog(next)
        // Optionality changes keep their values (a nil becomes the zero value when the property
        // becomes required), before the block sees them.
        for copy in copies {
            guard let table = realm.catalog.tables[copy.table] else { continue }
            let zero = table.layout[copy.to].defaultValue
            try write.copyColumn(of: table, from: copy.from, spec: copy.spec, to: copy.to) { value in
                copy.required && value == .null ? zero : value
            }
        }
        let target = Dictionary(uniqueKeysWithValues: (desired ?? old.stored.tables.map(\.schema)).map { ($0.className, $0) })
        let start = ContinuousClock.now
        if migrating {
            realm.report(.migrationStarted(fromSchemaVersion: old.version, toSchemaVersion: configuration.schemaVersion))
        }
        if migrating, let block = configuration.migrationBlock {
            let migration = Migration(realm: realm, oldCatalog: old, target: target)
            block(migration, old.version)
            if let error = migration.error { throw error }
        }
        try finish(target, old: old, in: realm)
        if migrating { realm.report(.migrationFinished(duration: ContinuousClock.now - start)) }
    }

    /// The name a column gets while a migration runs when its property is gone from the new
    /// schema (removed, retyped or renamed): still laid out with its type, so the old objects stay
    /// readable and rebuilt leaves keep its values, and no property name can reach it.
    static func hidden(_ property: PropertyInfo, column: Int) -> PropertyInfo {
        var hidden = property
        hidden.name = "\u{0}\(column)"
        hidden.isPrimaryKey = false
        hidden.isIndexed = false
        return hidden
    }

    private static func isHidden(_ property: PropertyInfo) -> Bool { property.name.hasPrefix("\u{0}") }

    /// Whether a value of `old` can stay in its column as a value of `new`.
    private static func sameStorage(_ old: PropertyInfo, _ new: PropertyInfo) -> Bool {
        old.kind == new.kind && old.objectClassName == new.objectClassName && old.collection == new.collection
            && old.isOptional == new.isOptional
    }

    /// Whether the primary key changes (then the table has none while the block runs, and the new
    /// one is checked afterwards).
    private static func primaryKeyChanges(_ old: ObjectSchemaInfo, _ new: ObjectSchemaInfo) -> Bool {
        guard let from = old.primaryKey, let to = new.primaryKey else { return (old.primaryKey == nil) != (new.primaryKey == nil) }
        return from.name != to.name || !sameStorage(from, to)
    }

    /// The table as the migration block sees it: unchanged properties keep their columns (and
    /// index trees), properties gone or changed keep theirs hidden, new and changed properties get
    /// new columns; the class keeps its kind (top-level or embedded) until the end. Returns the
    /// columns whose values move because only their optionality changed.
    private static func prepareTable(_ stored: StoredTable, for schema: ObjectSchemaInfo, in write: WriteTransaction)
        throws -> (StoredTable, [(from: Int, spec: ColumnSpec, to: Int, required: Bool)]) {
        var table = stored
        let pkChanges = primaryKeyChanges(stored.schema, schema)
        func duringBlock(_ property: PropertyInfo) -> PropertyInfo {
            var property = property
            if pkChanges { property.isPrimaryKey = false }
            return property
        }
        let newByName = Dictionary(uniqueKeysWithValues: schema.properties.map { ($0.name, $0) })
        var optionality: [String: (from: Int, spec: ColumnSpec)] = [:]
        for (column, property) in table.columns.enumerated() {
            guard let property, !isHidden(property) else { continue }
            if let new = newByName[property.name], sameStorage(property, new) {
                table.columns[column] = duringBlock(new)
                continue
            }
            if let new = newByName[property.name], sameStorage(property, PropertyInfo(name: new.name, kind: new.kind, isOptional: property.isOptional,
                                                                                       objectClassName: new.objectClassName, collection: new.collection)) {
                optionality[property.name] = (column, property.columnSpec)
            }
            if let tree = table.indexes.removeValue(forKey: property.name) { try write.dropTree(tree) }
            table.columns[column] = hidden(property, column: column)
        }
        var moves: [(from: Int, spec: ColumnSpec, to: Int, required: Bool)] = []
        for property in schema.properties where !table.columns.contains(where: { $0?.name == property.name }) {
            table.columns.append(duringBlock(property))
            if let from = optionality[property.name] {
                moves.append((from.from, from.spec, table.columns.count - 1, !property.isOptional))
            }
        }
        // Index trees stay only for unchanged columns (the block's writes maintain them); the
        // others are built after the block.
        table.schema = ObjectSchemaInfo(className: schema.className, properties: schema.properties.map(duringBlock),
                                        isEmbedded: stored.schema.isEmbedded, linkingObjects: schema.linkingObjects)
        return (table, moves)
    }

    /// After the block: drops the hidden columns, gives every table its new schema, moves objects
    /// of a new integer primary key to their keys, builds missing index trees (checking new
    /// primary keys for duplicates) and checks the parents of classes that became embedded.
    private static func finish(_ target: [String: ObjectSchemaInfo], old: SchemaCatalog, in realm: Realm) throws {
        let write = realm.requireWrite()
        var next = realm.catalog.stored
        for (index, stored) in next.tables.enumerated() {
            guard let schema = target[stored.schema.className] else { continue }
            var table = stored
            for (column, property) in table.columns.enumerated() {
                guard let property else { continue }
                table.columns[column] = isHidden(property) ? nil : schema.properties.first { $0.name == property.name }
            }
            table.schema = schema
            let oldSchema = old.tables[schema.className]?.schema
            let pkChanged = oldSchema.map { primaryKeyChanges($0, schema) } ?? false
            // A new primary key's index is rebuilt, to check it for duplicates.
            for (name, tree) in table.indexes where !schema.properties.contains(where: { $0.name == name && $0.hasIndexTree })
                || (pkChanged && schema.primaryKey?.name == name) {
                try write.dropTree(tree)
                table.indexes[name] = nil
            }
            if pkChanged, let key = schema.primaryKey, key.kind == .int, let column = table.columns.firstIndex(where: { $0?.name == key.name }) {
                // Integer primary keys are the object keys: move the objects, then refill every
                // index tree (their entries name object keys).
                for tree in table.indexes.values { try write.dropTree(tree) }
                table.indexes = [:]
                next.tables[index] = table
                try write.rekeyByPrimaryKey(Table(table), column: column, catalog: SchemaCatalog(next))
            }
            let view = Table(table)
            for property in schema.properties where property.hasIndexTree && table.indexes[property.name] == nil {
                let unique = pkChanged && property.isPrimaryKey
                table.indexes[property.name] = try write.buildIndex(of: view, column: view.columns[property.name]!, unique: unique)
            }
            next.tables[index] = table
        }
        realm.replaceCatalog(next)
        for schema in target.values where schema.isEmbedded && old.tables[schema.className].map({ !$0.schema.isEmbedded }) == true {
            guard let table = realm.catalog.tables[schema.className] else { continue }
            let parents = try write.parentCounts(of: table, catalog: realm.catalog)
            for key in try write.objectKeys(of: table) {
                switch parents[key] ?? 0 {
                case 0: throw Realm.Error(.schemaMismatch, "At least one object does not have a backlink (data would get lost).",
                                          fileURL: realm.configuration.fileURL)
                case 1: continue
                default: throw Realm.Error(.schemaMismatch, "At least one object does have multiple backlinks.",
                                           fileURL: realm.configuration.fileURL)
                }
            }
        }
    }
}
