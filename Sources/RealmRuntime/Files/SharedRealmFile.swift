import Dispatch
import Synchronization

/// What every realm handle on one file (or one in-memory identifier) shares in this process:
/// the open database, the schema of its versions, the write lock and the commit pipeline —
/// together the file's writer: one writer at a time (``WriteLock``), each commit prepared under
/// the lock and made durable by the pipeline after it, several per sync (``CommitPipeline``).
///
/// A process-wide registry hands out one instance per file, held weakly: when the last handle
/// goes, the file is closed and an in-memory realm's data is dropped.
package final class SharedRealmFile: Sendable {
    /// How a realm is identified: a file path or an in-memory identifier.
    package enum Identity: Hashable, Sendable {
        case file(String)
        case inMemory(String)
    }

    package let identity: Identity
    package let database: Database
    /// The schema of each version a handle may still begin at; see ``SchemaHistory``.
    private let schemas: Mutex<SchemaHistory>
    /// One write transaction at a time, over every handle of the file in the process.
    package let writeLock = WriteLock()
    /// Makes prepared commits durable; see ``CommitPipeline``.
    package let pipeline: CommitPipeline
    /// Whom to tell when a new version is durable (actor-isolated handles that refresh).
    package let versionObservers = VersionObservers()
    /// Commits' change logs on their way to the notifier; see ``ChangeFeed``.
    package let changeFeed: ChangeFeed

    private init(identity: Identity, database: Database, schema: SchemaCatalog, at transaction: TransactionID) {
        self.identity = identity
        self.database = database
        schemas = Mutex(SchemaHistory(entries: [(transaction, schema)]))
        let feed = ChangeFeed(database: database, versionObservers: versionObservers)
        changeFeed = feed
        let label: String
        switch identity {
        case .file(let path): label = path
        case .inMemory(let identifier): label = "memory:\(identifier)"
        }
        pipeline = CommitPipeline(database: database, label: label) { version in
            feed.versionDidBecomeDurable(version)
        }
    }

    deinit {
        try? database.close()
    }

    /// Begins a read of the newest durable version, with the schema recorded in that version.
    ///
    /// A handle must never pair a version with a schema whose tables are not in it (reading a
    /// table tree the version lacks traps as a damaged file), and a commit's schema is known here
    /// from when it is prepared, before it is durable; so handles take their version and their
    /// schema together, from here, never "the newest schema".
    package func beginRead() throws -> (reader: ReadTransaction, schema: SchemaCatalog) {
        try schemas.withLock { history in
            // Under the history's lock, so the entry of this version cannot be pruned first.
            let reader = try database.beginRead()
            history.dropDiscarded(database)
            return (reader, history.schema(at: reader.transaction, pruningOlder: true))
        }
    }

    /// The schema a write transaction builds on: that of the newest prepared commit (durable or
    /// not) that a failed flush did not discard. The caller holds ``writeLock`` and began its
    /// transaction after acquiring it.
    package func schemaForWrite() -> SchemaCatalog {
        schemas.withLock { history in
            history.dropDiscarded(database)
            return history.entries[history.entries.count - 1].catalog
        }
    }

    /// Records the schema of commit `transaction`, which changed it. The caller holds
    /// ``writeLock`` and has just prepared the commit (so it is the newest).
    package func didPrepare(_ schema: SchemaCatalog, at transaction: TransactionID) {
        schemas.withLock { history in
            history.dropDiscarded(database)
            precondition(transaction > history.entries[history.entries.count - 1].since, "Schemas are recorded in commit order")
            history.entries.append((transaction, schema))
        }
    }

    private static let registry = Mutex<[Identity: WeakFile]>([:])

    /// Test hook: I/O faults for the file at a (standardized) path, installed before the first
    /// handle opens it; tests of the public API simulate a full disk, a failed sync or a torn
    /// write through it. Production code installs none. Guarded by its own lock.
    private static let faultInjectors = Mutex<[String: any IOFaultInjector]>([:])

    /// Installs (or, with nil, removes) the test hook's faults for the file at `path`.
    package static func injectFaults(_ faults: (any IOFaultInjector)?, forPath path: String) {
        faultInjectors.withLock { $0[path] = faults }
    }

    private struct WeakFile: @unchecked Sendable {
        // @unchecked: `file` is only read and written under `registry`'s lock.
        weak var file: SharedRealmFile?
    }

    /// The shared state for `identity`, opening the file (and reading its schema) if no handle
    /// in this process has it open.
    package static func open(_ identity: Identity, readOnly: Bool, maximumActiveVersions: Int? = nil) throws -> SharedRealmFile {
        try registry.withLock { files in
            if let file = files[identity]?.file { return file }
            let database: Database
            switch identity {
            case .file(let path):
                let faults = faultInjectors.withLock { $0[path] }
                database = try Database.open(path: path, options: DatabaseOptions(readOnly: readOnly, faults: faults))
            case .inMemory: database = try Database.inMemory()
            }
            database.maximumActiveVersions = maximumActiveVersions
            let read = try database.beginRead()
            let schema = try read.storedSchema().map(SchemaCatalog.init) ?? .empty
            let file = SharedRealmFile(identity: identity, database: database, schema: schema, at: read.transaction)
            files[identity] = WeakFile(file: file)
            return file
        }
    }
}

/// The schema of a file's versions, by the transaction of each commit that changed it.
///
/// Invariant: a version's schema is that of the newest entry at or below its transaction, and it
/// names exactly the tables in that version. It holds because
/// - an entry is added (``SharedRealmFile/didPrepare(_:at:)``) only by the holder of the write
///   lock, after its commit is prepared and before it releases the lock, so entries are in commit
///   order and each next writer sees the schema of the version it builds on;
/// - readers begin at the newest *durable* version (``SharedRealmFile/beginRead()``), so an entry
///   of a commit still waiting for its sync is above every version they can read: its tables are
///   never paired with a version that lacks them;
/// - an entry whose commit a failed flush discarded is dropped by the next writer, which must
///   begin (and look here) before any later version can exist; transaction ids are not reused,
///   so until then no version is above it.
/// Entries older than the one the newest reader uses are pruned: a new read is never older.
/// Guarded by the mutex of ``SharedRealmFile``, which the reader's `beginRead` runs under.
private struct SchemaHistory {
    /// Oldest first; never empty (the first entry is at or below the newest durable version).
    var entries: [(since: TransactionID, catalog: SchemaCatalog)]

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

/// Something told when a new version of a file is durable (called on the commit queue or the
/// committing thread: it must only schedule work, not do it).
package protocol VersionObserver: Sendable {
    func versionDidBecomeDurable(_ version: TransactionID)
}

/// The observers of a file's new versions, by registration token.
package final class VersionObservers: Sendable {
    private let observers = Mutex<[UInt64: any VersionObserver]>([:])
    private let nextID = Atomic<UInt64>(0)

    /// Registers an observer; returns the token to remove it with.
    package func add(_ observer: any VersionObserver) -> UInt64 {
        let id = nextID.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[id] = observer }
        return id
    }

    package func remove(_ id: UInt64) {
        _ = observers.withLock { $0.removeValue(forKey: id) }
    }

    func notify(_ version: TransactionID) {
        for observer in observers.withLock({ Array($0.values) }) { observer.versionDidBecomeDurable(version) }
    }
}
