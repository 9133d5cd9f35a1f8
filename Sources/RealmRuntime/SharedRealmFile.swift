import Dispatch
import Synchronization

/// What every realm handle on one file (or one in-memory identifier) shares in this process:
/// the open database, the current schema, the write lock and the commit pipeline — together the
/// file's writer: one writer at a time (``WriteLock``), each commit prepared under the lock and
/// made durable by the pipeline after it, several per sync (``CommitPipeline``).
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
    private let schemaState: Mutex<SchemaCatalog>
    /// One write transaction at a time, over every handle of the file in the process.
    package let writeLock = WriteLock()
    /// Makes prepared commits durable; see ``CommitPipeline``.
    package let pipeline: CommitPipeline
    /// Whom to tell when a new version is durable (actor-isolated handles that refresh).
    package let versionObservers = VersionObservers()
    /// Commits' change logs on their way to the notifier; see ``ChangeFeed``.
    package let changeFeed: ChangeFeed

    private init(identity: Identity, database: Database, schema: SchemaCatalog) {
        self.identity = identity
        self.database = database
        schemaState = Mutex(schema)
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

    /// The newest schema any handle has committed.
    package var schema: SchemaCatalog {
        get { schemaState.withLock { $0 } }
        set { schemaState.withLock { $0 = newValue } }
    }

    /// Re-reads the schema of the newest durable version (after a commit that changed the schema
    /// failed to reach the disk).
    package func reloadSchema() {
        guard let read = try? database.beginRead(), let stored = try? read.storedSchema() else { return }
        schema = SchemaCatalog(stored)
    }

    private static let registry = Mutex<[Identity: WeakFile]>([:])

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
            case .file(let path): database = try Database.open(path: path, options: DatabaseOptions(readOnly: readOnly))
            case .inMemory: database = try Database.inMemory()
            }
            database.maximumActiveVersions = maximumActiveVersions
            let read = try database.beginRead()
            let schema = try read.storedSchema().map(SchemaCatalog.init) ?? .empty
            let file = SharedRealmFile(identity: identity, database: database, schema: schema)
            files[identity] = WeakFile(file: file)
            return file
        }
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
