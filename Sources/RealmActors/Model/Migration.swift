public import Foundation
internal import RealmRuntime

/// The block that migrates a realm's data when it is opened at a higher
/// ``Realm/Configuration/schemaVersion``: it gets the migration and the file's old version.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// An object seen by a migration: a ``DynamicObject``, read and written by property name.
public typealias MigrationObject = DynamicObject

/// The block ``Migration/enumerateObjects(ofType:_:)`` calls for each object: the object under
/// the old schema (read it only) and under the new one (write it).
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// The schema version recorded in the realm file at `fileURL`, read without opening a handle
/// (a file with no schema yet reports 0).
///
/// - Throws: ``Realm/Error`` with ``Realm/Error/Code/fileNotFound`` if there is no file, or the
///   errors of opening it.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    guard FileManager.default.fileExists(atPath: fileURL.path) else {
        throw Realm.Error(.fileNotFound, "No realm file at '\(fileURL.path)'", fileURL: fileURL)
    }
    let configuration = Realm.Configuration(fileURL: fileURL, encryptionKey: encryptionKey, readOnly: true)
    // Read through the handles of this process if they have the file open (a read-only open
    // beside them would be refused: one way of opening per file and process).
    let file = try SharedRealmFile.alreadyOpen(.file(fileURL.standardizedFileURL.path)) ?? Realm.openFile(configuration)
    do {
        return try file.beginRead().schema.version
    } catch {
        throw Realm.Error.from(error, configuration: configuration)
    }
}

extension Realm {
    /// Migrates the realm of `configuration` (running its ``Realm/Configuration/migrationBlock``
    /// if its ``Realm/Configuration/schemaVersion`` is higher than the file's) without handing
    /// out a handle. Opening the realm migrates it too; call this to choose when.
    ///
    /// - Throws: ``Realm/Error`` as ``init(configuration:)``.
    public static func performMigration(for configuration: Realm.Configuration = .defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }
}

/// A migration in progress, handed to the ``MigrationBlock``: the old and new schemas, and the
/// operations that move the data from one to the other, as in Realm Swift.
///
/// Everything a migration does happens in one write transaction with the schema change: if an
/// operation fails (an unknown class or property, a rename onto an existing property) or the
/// result breaks a rule (a duplicate primary key, an embedded object without exactly one
/// parent), the realm does not open, the error names the problem, and the file keeps its old
/// version and data. The methods do not throw, so that the block matches ``MigrationBlock``:
/// after a failed operation the others do nothing and opening throws the first error.
///
/// The migration is valid only inside the block; it belongs to the opening thread.
public final class Migration {
    /// The classes as the file stored them before the migration.
    public let oldSchema: Schema
    /// The classes the realm is being migrated to.
    public let newSchema: Schema

    /// Called by ``enumerateObjects(ofType:_:)`` after every ``progressInterval`` objects and
    /// after the last, with the class name, the objects done and the total: a way to report the
    /// progress of a long migration (set it in the block, before enumerating).
    public var progressHandler: ((_ typeName: String, _ completed: Int, _ total: Int) -> Void)?

    /// How many objects ``enumerateObjects(ofType:_:)`` visits between calls of
    /// ``progressHandler`` (default 100 000).
    public var progressInterval = 100_000

    let realm: Realm
    /// The schema of the version the migration starts from.
    let oldCatalog: SchemaCatalog
    /// The classes of the new schema, by name.
    let target: [String: ObjectSchemaInfo]
    /// The first failure of an operation; opening throws it.
    private(set) var error: Realm.Error?

    init(realm: Realm, oldCatalog: SchemaCatalog, target: [String: ObjectSchemaInfo]) {
        self.realm = realm
        self.oldCatalog = oldCatalog
        self.target = target
        oldSchema = Schema(oldCatalog)
        newSchema = Schema(Array(target.values))
    }

    private func fail(_ message: String) {
        if error == nil { error = Realm.Error(.schemaMismatch, message, fileURL: realm.configuration.fileURL) }
    }

    /// Calls `block` for every object of the class named `typeName` that existed when the
    /// migration began: `oldObject` reads its properties under the old schema (including
    /// removed properties, with their old types), `newObject` reads and writes them under the new
    /// one. For a class new in this version, `oldObject` is nil and the objects created so far
    /// are enumerated; for a class the new schema drops, `newObject` is nil. Objects deleted
    /// during the enumeration are skipped. Memory stays bounded: only the object keys (8 bytes
    /// an object) are held, and each pair of objects is released after its call.
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        guard error == nil else { return }
        let oldTable = oldCatalog.tables[typeName]
        guard let current = realm.catalog.tables[typeName] else {
            if oldTable == nil { fail("Cannot enumerate objects of type '\(typeName)' because it is not in the Realm.") }
            return
        }
        let newTable = target[typeName] == nil ? nil : current
        let keys: [UInt64]
        do {
            keys = try realm.requireWrite().objectKeys(of: current)
        } catch {
            realm.fileIsDamaged(error)
        }
        let interval = max(1, progressInterval)
        var catalog = realm.catalog
        var table = catalog.tables[typeName]
        for (index, key) in keys.enumerated() {
            if realm.catalog !== catalog {  // the block renamed or deleted: look the class up again
                catalog = realm.catalog
                table = catalog.tables[typeName]
            }
            guard let table, let (leaf, row) = realm.locate(table, key) else { continue }
            // Both objects start at the row just found, so neither looks it up again before the
            // block's first write.
            let oldObject = oldTable.map { object(table: $0, leaf: leaf, row: row) }
            let newObject = newTable.map { _ in object(table: table, leaf: leaf, row: row) }
            block(oldObject, newObject)
            if (index + 1) % interval == 0 || index + 1 == keys.count {
                progressHandler?(typeName, index + 1, keys.count)
            }
        }
    }

    private func object(table: Table, leaf: ClusterLeaf, row: Int) -> DynamicObject {
        let object = DynamicObject()
        object.attach(to: realm, table: table, leaf: leaf, row: row)
        return object
    }

    /// Creates an object of the class named `typeName` in the new schema from a dictionary, an
    /// array of values in property order, or an object, and returns it. An unknown class fails
    /// the migration (and returns an unmanaged object).
    @discardableResult
    public func create(_ typeName: String, value: Any = [Any]()) -> MigrationObject {
        guard error == nil, realm.catalog.tables[typeName] != nil, target[typeName] != nil else {
            if error == nil { fail("Cannot create an object of type '\(typeName)' because it is not in the new schema.") }
            return DynamicObject()
        }
        if let values = value as? [Any], values.isEmpty {
            return realm.dynamicCreate(typeName, value: [String: Any]())
        }
        return realm.dynamicCreate(typeName, value: value)
    }

    /// Deletes an object (an `oldObject` or `newObject` of ``enumerateObjects(ofType:_:)``, or
    /// one ``create(_:value:)`` returned), also while enumerating its class.
    public func delete(_ object: MigrationObject) {
        guard error == nil else { return }
        guard let state = object.realmState, let table = realm.catalog.tables[state.table.name] else {
            return fail("Can only delete an object of the Realm being migrated.")
        }
        realm.delete(realm.managedObject(DynamicObject.self, table: table, key: state.key))
    }

    /// Deletes every object of the class named `typeName`; if the new schema no longer has the
    /// class, its table is removed from the file too. Returns whether the realm had the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard error == nil, let table = realm.catalog.tables[typeName] else { return false }
        let write = realm.requireWrite()
        do {
            for key in try write.objectKeys(of: table) {
                try write.deleteObject(key, from: table, catalog: realm.catalog)
            }
            if target[typeName] == nil {
                try write.dropTree(table.tree)
                for tree in table.stored.indexes.values { try write.dropTree(tree) }
                var stored = realm.catalog.stored
                stored.tables.removeAll { $0.schema.className == typeName }
                realm.replaceCatalog(stored)
            }
        } catch {
            realm.fileIsDamaged(error)
        }
        realm.touch()
        return true
    }

    /// Renames the property `oldName` of the class `typeName` to `newName`, keeping its data:
    /// `oldName` must be a property of the old schema only, `newName` one of the new schema
    /// only, of the same type (it may become optional, not required); the new property's
    /// index setting applies. Call it outside ``enumerateObjects(ofType:_:)``.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard error == nil else { return }
        guard let oldTable = oldCatalog.tables[typeName] else {
            return fail("Cannot rename properties for type '\(typeName)' because it does not exist.")
        }
        guard let final = target[typeName], let index = realm.catalog.stored.tables.firstIndex(where: { $0.schema.className == typeName }) else {
            return fail("Cannot rename properties for type '\(typeName)' because it has been removed from the Realm.")
        }
        if final.properties.contains(where: { $0.name == oldName }) {
            return fail("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the source property still exists.")
        }
        guard let oldProperty = oldTable.schema.properties.first(where: { $0.name == oldName }),
              let fromColumn = oldTable.columns[oldName] else {
            return fail("Cannot rename property '\(typeName).\(oldName)' because it does not exist.")
        }
        if oldTable.schema.properties.contains(where: { $0.name == newName }) {
            return fail("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the destination property already exists.")
        }
        guard let newProperty = final.properties.first(where: { $0.name == newName }) else {
            return fail("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because '\(typeName).\(newName)' is not in the new schema.")
        }
        if oldProperty.kind != newProperty.kind || oldProperty.objectClassName != newProperty.objectClassName
            || oldProperty.collection != newProperty.collection {
            return fail("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from type '\(oldProperty.typeName)' to '\(newProperty.typeName)'.")
        }
        if oldProperty.isOptional && !newProperty.isOptional {
            return fail("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from optional to required.")
        }
        var stored = realm.catalog.stored
        guard let toColumn = stored.tables[index].columns.firstIndex(where: { $0?.name == newName }) else { return }
        if oldProperty.isOptional == newProperty.isOptional {
            // Same storage: the old column becomes the new property; the empty new one is dropped.
            let renamed = stored.tables[index].columns[toColumn]!
            stored.tables[index].columns[toColumn] = SchemaMigration.hidden(renamed, column: toColumn)
            stored.tables[index].columns[fromColumn] = renamed
            realm.replaceCatalog(stored)
        } else {
            // Required to optional: the values move to the new (optional) column.
            do {
                try realm.requireWrite().copyColumn(of: Table(stored.tables[index]), from: fromColumn,
                                                   spec: oldProperty.columnSpec, to: toColumn) { $0 }
            } catch {
                realm.fileIsDamaged(error)
            }
        }
        realm.touch()
    }
}
