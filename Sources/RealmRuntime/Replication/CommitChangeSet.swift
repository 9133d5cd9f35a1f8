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
        /// Whether the commit dropped the class's table (a migration that deleted the class),
        /// deleting every object it had before, none of which is in ``deleted``; a class the
        /// commit created again has its new objects in ``inserted``.
        package var deletedAll: Bool
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
    /// The commit's random id (``ChangeRecord/commitID``): with ``version``, the position a
    /// consumer keeps, which names this commit in this file's history alone.
    package let commitID: UInt64
    /// What the commit changed in the schema (empty for most commits): see ``SchemaChange``.
    package let schemaChanges: [SchemaChange]
    /// The top-level classes whose objects the commit changed, in table order (classes the
    /// commit dropped first). An embedded object is not listed: its change is a modification of
    /// the top-level object it lives in, in the property leading to it.
    package let classes: [ClassChanges]

    /// Reads the commits after `version` that the file's change records hold, oldest first, at
    /// most `limit`: those a replication slot has not confirmed.
    ///
    /// - Throws: `StorageError` (`invalidInput`) if `version` is not retained — older than every
    ///   slot's position, or newer than the newest version: the commits after it cannot all be
    ///   read, and a consumer must not go on past a gap — or if the file is damaged.
    package static func commits(of file: SharedRealmFile, after version: TransactionID, limit: Int) throws -> [CommitChangeSet] {
        let newest = try file.database.beginRead()
        guard version <= newest.transaction, let horizon = try newest.replicationSlots().horizon, version >= horizon else {
            throw StorageError(.invalidInput, "Version \(version) is not retained: only the versions from the oldest replication slot's position to the newest (\(newest.transaction)) can be read from", path: file.database.path)
        }
        var previous: FrozenVersion?
        var changeSets: [CommitChangeSet] = []
        for (transaction, record) in try newest.changeRecords(after: version, limit: limit) {
            let base = try previous.flatMap { $0.transaction >= record.baseTransaction ? $0 : nil }
                ?? frozenVersion(of: file, at: record.baseTransaction, reusing: previous)
            let made = try frozenVersion(of: file, at: transaction, reusing: base)
            changeSets.append(try CommitChangeSet(version: made, base: base, record: record))
            previous = made
        }
        return changeSets
    }

    /// `file` at `version` (the newest, or one a slot retains), with the schema of that version:
    /// `known`'s, when that version's schema record is the same tree (most commits change no
    /// schema; decoding it for each would cost more than the commit's changes), else decoded.
    package static func frozenVersion(of file: SharedRealmFile, at version: TransactionID, reusing known: FrozenVersion?) throws -> FrozenVersion {
        let reader = try file.database.beginRead(atVersion: version)
        if let known, let root = try? reader.root(of: StoredSchema.metadataTree),
           root == (try? known.reader.root(of: StoredSchema.metadataTree)) {
            return FrozenVersion(file: file, reader: reader, catalog: known.catalog)
        }
        let catalog = try reader.storedSchema().map(SchemaCatalog.init) ?? .empty
        return FrozenVersion(file: file, reader: reader, catalog: catalog)
    }

    init(version: FrozenVersion, base: FrozenVersion, record: ChangeRecord) throws {
        self.version = version
        self.base = base
        commitTime = Date(timeIntervalSince1970: Double(record.commitTime) / 1e9)
        commitID = record.commitID
        schemaChanges = version.catalog === base.catalog ? [] : SchemaChange.changes(from: base.catalog.stored, to: version.catalog.stored)
        // Tree ids to tables: a table created by the commit is in the new schema only, one
        // dropped by it in the old one only.
        var tables: [TreeID: (new: Table?, old: Table?)] = [:]
        for table in version.catalog.tables.values { tables[table.tree, default: (nil, nil)].new = table }
        for table in base.catalog.tables.values { tables[table.tree, default: (nil, nil)].old = table }
        // The record's runs cut to the keys the two versions hold (a damaged record's claims
        // cost nothing); index trees' runs, which name no table, go.
        func keys(at frozen: FrozenVersion, of side: KeyPath<(new: Table?, old: Table?), Table?>) -> RowChangeLog.TableKeys {
            { tree, lower, upper, body in
                guard tables[tree]?[keyPath: side] != nil else { return }
                try frozen.reader.forEachKey(in: frozen.reader.root(of: tree), from: lower, through: upper) { body($0); return true }
            }
        }
        let rowChanges = RowChanges(try record.changes.clipped(keysBefore: keys(at: base, of: \.old), keysAfter: keys(at: version, of: \.new)))
        // Per top-level class (by its tree, for a stable order): the changes being gathered.
        var gathered: [TreeID: (table: Table, inserted: Set<UInt64>, modified: [UInt64: Set<String>], deleted: Set<UInt64>)] = [:]
        var emptied: [String: TreeID] = [:]  // classes whose table the commit dropped, by name
        for tree in rowChanges.droppedTrees {
            guard let old = tables[tree]?.old, tables[tree]?.new == nil, !old.schema.isEmbedded else { continue }
            emptied[old.name] = tree
        }
        var embeddedUpdates: [(table: Table, key: UInt64)] = []
        for (tree, changes) in rowChanges.trees {
            // A tree the commit edited to no effect (its only new objects deleted again) is
            // absent: a class the commit did not change is not listed.
            guard !changes.isEmpty else { continue }
            guard let (new, old) = tables[tree], let table = new ?? old else { continue }  // not a table: an index
            if table.schema.isEmbedded {
                // Created and deleted embedded objects come with a write of their owner's link
                // property; a modified one is reported as a modification of its owner, below.
                if new != nil { embeddedUpdates += changes.updated.keys.map { (table, $0) } }
                continue
            }
            let modified = changes.updated.mapValues { mask in
                Set(table.layout.indices.filter { mask.contains($0) }.compactMap { table.property($0)?.name })
            }
            gathered[tree] = (table, changes.inserted, modified, changes.removed)
        }
        // An embedded object lives in one top-level object, through a chain of embedded ones:
        // its change is a modification of that object's property that leads to it.
        let queries = version.queries()
        for (table, key) in embeddedUpdates {
            guard let (owner, ownerKey, property) = try Self.topLevelOwner(of: key, in: table, at: version, queries: queries) else { continue }
            if gathered[owner.tree] == nil { gathered[owner.tree] = (owner, [], [:], []) }
            guard !gathered[owner.tree]!.inserted.contains(ownerKey) else { continue }  // reported whole
            gathered[owner.tree]!.modified[ownerKey, default: []].insert(property)
        }
        var classes: [ClassChanges] = []
        for changes in gathered.sorted(by: { $0.key < $1.key }).map(\.value) {
            let names = changes.table.layout.indices.compactMap { changes.table.property($0)?.name }  // in column order
            let modified = changes.modified.keys.sorted().map { key in
                (key: key, properties: names.filter { changes.modified[key]!.contains($0) })
            }
            classes.append(ClassChanges(className: changes.table.name, deletedAll: emptied.removeValue(forKey: changes.table.name) != nil,
                                        inserted: changes.inserted.sorted(), modified: modified, deleted: changes.deleted.sorted()))
        }
        // Dropped classes the commit did not create again: before every other change.
        classes.insert(contentsOf: emptied.sorted { $0.value < $1.value }.map {
            ClassChanges(className: $0.key, deletedAll: true, inserted: [], modified: [], deleted: [])
        }, at: 0)
        self.classes = classes
    }

    /// The top-level object that embedded object `key` of `table` lives in at `version`, and
    /// that object's property leading to it; nil if it has none (an orphan, which no valid
    /// version holds).
    ///
    /// - Complexity: per level of embedding, one link-index lookup per property that can hold
    ///   the level's class.
    static func topLevelOwner(of key: UInt64, in table: Table, at version: FrozenVersion,
                              queries: QueryContext) throws -> (table: Table, key: UInt64, property: String)? {
        var (table, key) = (table, key)
        for _ in 0..<100 {  // embedding is acyclic; the bound only guards a damaged schema
            var found: (table: Table, key: UInt64, property: String)?
            search: for owner in version.catalog.tables.values {
                for column in owner.layout.indices {
                    guard let property = owner.property(column), property.kind == .object,
                          property.objectClassName == table.name else { continue }
                    if let ownerKey = try queries.linkingObjectKeys(to: key, of: table, from: owner, column: column).first {
                        found = (owner, ownerKey, property.name)
                        break search
                    }
                }
            }
            guard let found else { return nil }
            if !found.table.schema.isEmbedded { return found }
            (table, key) = (found.table, found.key)
        }
        return nil
    }
}
