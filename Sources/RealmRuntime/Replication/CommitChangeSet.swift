package import Foundation

/// One commit kept for replication, in the object store's terms: the version it made and the
/// version before it (both pinned, as ``FrozenVersion``s), when it was made, and, per class, the
/// keys of the objects it inserted, modified (with the properties written) and deleted.
///
/// Computed from the commit's ``ChangeRecord`` (its row change log) and the two versions'
/// schemas, after the commit, by whoever reads it — never on the writers' path.
package struct CommitChangeSet: Sendable {
    /// The objects one commit changed in one class.
    package struct ClassChanges: Sendable {
        package var className: String
        /// Objects that did not exist before the commit, in key order.
        package var inserted: [UInt64]
        /// Objects that existed before and still do, in key order, with the names of the
        /// properties the commit wrote (every property for an object deleted and created again).
        package var modified: [(key: UInt64, properties: [String])]
        /// Objects that existed before and no longer do (read them at ``CommitChangeSet/base``).
        package var deleted: [UInt64]
    }

    /// The version the commit made.
    package let version: FrozenVersion
    /// The version it was built on: where deleted objects are still found.
    package let base: FrozenVersion
    /// When the commit was prepared.
    package let commitTime: Date
    /// The classes whose objects the commit changed, by class name.
    package let classes: [ClassChanges]

    /// Reads the commits after `version` that the file's change records hold, oldest first, at
    /// most `limit`: those a replication slot has not confirmed.
    ///
    /// - Throws: `StorageError` if `version` is not retained (older than every slot's position)
    ///   or the file is damaged.
    package static func commits(of file: SharedRealmFile, after version: TransactionID, limit: Int) throws -> [CommitChangeSet] {
        let newest = try file.database.beginRead()
        var previous: FrozenVersion?
        var changeSets: [CommitChangeSet] = []
        for (transaction, record) in try newest.changeRecords(after: version, limit: limit) {
            let base = try previous.flatMap { $0.transaction >= record.baseTransaction ? $0 : nil }
                ?? frozenVersion(of: file, at: record.baseTransaction, reusing: previous)
            let made = try frozenVersion(of: file, at: transaction, reusing: base)
            changeSets.append(CommitChangeSet(version: made, base: base, record: record))
            previous = made
        }
        return changeSets
    }

    /// `file` at `version` (the newest, or one a slot retains), with the schema of that version:
    /// `known`'s, when that version's schema record is the same tree (most commits change no
    /// schema; decoding it for each would cost more than the commit's changes), else decoded.
    static func frozenVersion(of file: SharedRealmFile, at version: TransactionID, reusing known: FrozenVersion?) throws -> FrozenVersion {
        let reader = try file.database.beginRead(atVersion: version)
        if let known, let root = try? reader.root(of: StoredSchema.metadataTree),
           root == (try? known.reader.root(of: StoredSchema.metadataTree)) {
            return FrozenVersion(file: file, reader: reader, catalog: known.catalog)
        }
        let catalog = try reader.storedSchema().map(SchemaCatalog.init) ?? .empty
        return FrozenVersion(file: file, reader: reader, catalog: catalog)
    }

    init(version: FrozenVersion, base: FrozenVersion, record: ChangeRecord) {
        self.version = version
        self.base = base
        commitTime = Date(timeIntervalSince1970: Double(record.commitTime) / 1e9)
        // Tree ids to tables: a table created by the commit is in the new schema only, one
        // dropped by it in the old one only.
        var tables: [TreeID: (new: Table?, old: Table?)] = [:]
        for table in version.catalog.tables.values { tables[table.tree, default: (nil, nil)].new = table }
        for table in base.catalog.tables.values { tables[table.tree, default: (nil, nil)].old = table }
        var classes: [ClassChanges] = []
        for (tree, changes) in RowChanges(record.changes).trees.sorted(by: { $0.key < $1.key }) {
            guard let (new, old) = tables[tree], let table = new ?? old else { continue }  // not a table: an index
            let modified = changes.updated.keys.sorted().map { key -> (key: UInt64, properties: [String]) in
                let mask = changes.updated[key]!
                let properties = table.layout.indices.filter { mask.contains($0) }.compactMap { table.property($0)?.name }
                return (key, properties)
            }
            classes.append(ClassChanges(className: table.name, inserted: changes.inserted.sorted(), modified: modified,
                                        deleted: changes.removed.sorted()))
        }
        self.classes = classes
    }
}
