import Dispatch
import Synchronization

/// What every realm handle on one file (or one in-memory identifier) shares in this process:
/// the open database, the current schema, and the write lock.
///
/// A process-wide registry hands out one instance per file, held weakly: when the last handle
/// goes, the file is closed and an in-memory realm's data is dropped.
///
/// The write lock is a semaphore (not a thread-owned mutex) so that it can be released by a
/// different thread than the one that took it; the writer actor of issue 5 replaces it with a
/// FIFO of cancellable waiters.
package final class SharedRealmFile: Sendable {
    /// How a realm is identified: a file path or an in-memory identifier.
    package enum Identity: Hashable, Sendable {
        case file(String)
        case inMemory(String)
    }

    package let identity: Identity
    package let database: Database
    private let schemaState: Mutex<SchemaCatalog>
    private let writeLock = DispatchSemaphore(value: 1)

    private init(identity: Identity, database: Database, schema: SchemaCatalog) {
        self.identity = identity
        self.database = database
        schemaState = Mutex(schema)
    }

    deinit {
        try? database.close()
    }

    /// The newest schema any handle has committed.
    package var schema: SchemaCatalog {
        get { schemaState.withLock { $0 } }
        set { schemaState.withLock { $0 = newValue } }
    }

    /// Blocks until this thread may write. Every write transaction holds it from begin to end.
    package func lockForWriting() { writeLock.wait() }
    package func unlockForWriting() { writeLock.signal() }

    private static let registry = Mutex<[Identity: WeakFile]>([:])

    private struct WeakFile: @unchecked Sendable {
        // @unchecked: `file` is only read and written under `registry`'s lock.
        weak var file: SharedRealmFile?
    }

    /// The shared state for `identity`, opening the file (and reading its schema) if no handle
    /// in this process has it open.
    package static func open(_ identity: Identity, readOnly: Bool) throws -> SharedRealmFile {
        try registry.withLock { files in
            if let file = files[identity]?.file { return file }
            let database: Database
            switch identity {
            case .file(let path): database = try Database.open(path: path, options: DatabaseOptions(readOnly: readOnly))
            case .inMemory: database = try Database.inMemory()
            }
            let read = try database.beginRead()
            let schema = try read.storedSchema().map(SchemaCatalog.init) ?? .empty
            let file = SharedRealmFile(identity: identity, database: database, schema: schema)
            files[identity] = WeakFile(file: file)
            return file
        }
    }
}
