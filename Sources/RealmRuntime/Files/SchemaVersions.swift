
/// The schema of each version of one file that a handle may still begin at, so that a handle
/// always pairs a version with that version's own schema.
///
/// A handle must never pair a version with a schema whose tables are not in it (reading a table
/// tree the version lacks traps as a damaged file), and a commit's schema is known here from when
/// it is prepared, before it is durable; so handles take their version and their schema together,
/// from ``beginRead()``, never "the newest schema". See ``SchemaHistory`` for why this holds.
package final class SchemaVersions: Sendable {
    private let database: Database
    /// Guarded by its own lock, under which a reader also begins its read (see ``beginRead()``).
    private let history: Lock<SchemaHistory>

    /// The history of a file just opened, whose newest version `transaction` has `schema`.
    init(database: Database, schema: SchemaCatalog, at transaction: TransactionID) {
        self.database = database
        history = Lock(SchemaHistory(entries: [(transaction, schema)]))
    }

    /// Begins a read of the newest durable version, with the schema recorded in that version.
    package func beginRead() throws -> (reader: ReadTransaction, schema: SchemaCatalog) {
        try history.withLock { history in
            // Under the history's lock, so the entry of this version cannot be pruned first.
            let reader = try database.beginRead()
            history.dropDiscarded(database)
            if database.versionsComeFromOtherProcesses { try history.noteSchema(of: reader) }
            return (reader, history.schema(at: reader.transaction, pruningOlder: true))
        }
    }

    /// The schema a write transaction builds on: that of the newest prepared commit (durable or
    /// not) that a failed flush did not discard. Beside other writing processes, the transaction
    /// may build on another process's commit: its schema is recorded first (it may have added a
    /// class or migrated; writing this process's older schema over it would lose that).
    ///
    /// - Precondition: the caller holds the file's write lock and began its transaction after
    ///   acquiring it (``WritePipeline`` does both).
    func schemaForWrite() throws -> SchemaCatalog {
        try history.withLock { history in
            history.dropDiscarded(database)
            if database.sharesWriting, database.newestForeignVersion > history.checked?.transaction ?? 0 {
                // Another process's commit since the last check. This process owns writing: the
                // newest durable version is the one the transaction builds on, or older than this
                // process's pending commits (whose entries are newer, so nothing is noted).
                try history.noteSchema(of: try database.beginRead())
            }
            return history.entries[history.entries.count - 1].catalog
        }
    }

    /// Records the schema of commit `transaction`, which changed it.
    ///
    /// - Precondition: the caller holds the file's write lock and has just prepared the commit
    ///   (so it is the newest).
    func didPrepare(_ schema: SchemaCatalog, at transaction: TransactionID) {
        history.withLock { history in
            history.dropDiscarded(database)
            precondition(transaction > history.entries[history.entries.count - 1].since, "Schemas are recorded in commit order")
            history.entries.append((transaction, schema))
        }
    }
}

/// The schema of a file's versions, by the transaction of each commit that changed it.
///
/// Invariant: a version's schema is that of the newest entry at or below its transaction, and it
/// names exactly the tables in that version. It holds because
/// - an entry is added (``SchemaVersions/didPrepare(_:at:)``) only by the holder of the write
///   lock, after its commit is prepared and before it releases the lock, so entries are in commit
///   order and each next writer sees the schema of the version it builds on;
/// - readers begin at the newest *durable* version (``SchemaVersions/beginRead()``), so an entry
///   of a commit still waiting for its sync is above every version they can read: its tables are
///   never paired with a version that lacks them;
/// - an entry whose commit a failed flush discarded is dropped by the next writer, which must
///   begin (and look here) before any later version can exist; transaction ids are not reused,
///   so until then no version is above it.
/// In a process that follows another's versions (a read-only open beside a writing process),
/// commits arrive from elsewhere: there, ``noteSchema(of:)`` adds an entry when a reader begins at
/// a version whose schema tree changed — before the version is paired with any schema.
/// Entries older than the one the newest reader uses are pruned: a new read is never older.
/// Guarded by the mutex of ``SchemaVersions``, which a reader's `beginRead` runs under.
private struct SchemaHistory {
    /// Oldest first; never empty (the first entry is at or below the newest durable version).
    var entries: [(since: TransactionID, catalog: SchemaCatalog)]

    /// In a process that follows another's versions: the schema tree's root in the newest version
    /// whose schema was checked, and that version. Nil before the first check.
    var checked: (transaction: TransactionID, root: TreeRoot?)?

    /// Records the schema of `reader`'s version if it differs from the newest entry's: in a
    /// process that follows another's versions, commits (migrations, new classes) arrive without
    /// a local `didPrepare`. Compares the schema tree's root first, so a version whose schema did
    /// not change costs one catalog lookup.
    mutating func noteSchema(of reader: ReadTransaction) throws {
        guard reader.transaction > checked?.transaction ?? 0, reader.transaction > entries[entries.count - 1].since else { return }
        let root = try reader.treeIDs().contains(StoredSchema.metadataTree) ? reader.root(of: StoredSchema.metadataTree) : nil
        defer { checked = (reader.transaction, root) }
        guard let checked, checked.root == root else {
            try Database.verify([StoredSchema.metadataTree], at: reader, treeNames: [StoredSchema.metadataTree: "the schema"])
            entries.append((reader.transaction, try reader.storedSchema().map(SchemaCatalog.init) ?? .empty))
            return
        }
    }

    /// Drops entries of commits that will never be durable. A failed flush discards every
    /// commit not yet durable, so these are always the newest entries.
    mutating func dropDiscarded(_ database: Database) {
        while entries.count > 1, database.durability(of: entries[entries.count - 1].since) == false {
            entries.removeLast()
        }
    }

    /// The schema of version `transaction`; with `pruningOlder`, forgets the entries no later
    /// read can need (every later read is at this version or newer).
    mutating func schema(at transaction: TransactionID, pruningOlder: Bool) -> SchemaCatalog {
        guard let index = entries.lastIndex(where: { $0.since <= transaction }) else {
            preconditionFailure("No schema recorded for version \(transaction)")
        }
        let catalog = entries[index].catalog
        if pruningOlder && index > 0 { entries.removeFirst(index) }
        return catalog
    }
}
