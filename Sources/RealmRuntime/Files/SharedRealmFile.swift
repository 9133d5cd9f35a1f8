import Foundation

/// What every realm handle on one file (or one in-memory identifier) shares in this process:
/// the open database, the schema of its versions, its writer (``WritePipeline``: the write lock,
/// commits in order, group commit) and the path from commits to observers (``ChangeFeed``).
///
/// A process-wide registry hands out one instance per file, held weakly: when the last handle
/// goes, the file is closed and an in-memory realm's data is dropped.
///
/// Shared state and what guards it: the registry and the fault injectors below, each by its own
/// `Lock`; everything else is immutable here and guards its own state (see each type).
package final class SharedRealmFile: Sendable {
    /// How a realm is identified: a file path or an in-memory identifier.
    package enum Identity: Hashable, Sendable {
        case file(String)
        case inMemory(String)
    }

    package let identity: Identity
    package let database: Database
    /// The schema of each version a handle may still begin at; see ``SchemaVersions``.
    package let schemas: SchemaVersions
    /// Every write transaction of the file, from the write lock to durability; see ``WritePipeline``.
    package let writes: WritePipeline
    /// Follows another process's commits when this process reads the file beside a writing one.
    private let watcher: CommitWatcher?
    /// Whom to tell when a new version is durable (actor-isolated handles that refresh).
    package let versionObservers = VersionObservers()
    /// Commits' change logs on their way to the notifier; see ``ChangeFeed``.
    package let changeFeed: ChangeFeed

    private init(identity: Identity, database: Database, schema: SchemaCatalog, at transaction: TransactionID,
                 instrumentation: FileInstrumentation?) {
        self.identity = identity
        self.database = database
        // Reports the file's flushes, space, held versions and notifier lag (through the writer
        // and the feed), if the first handle to open the file gave an instrumentation.
        let monitor = instrumentation.map { FileMonitor($0, database: database) }
        let schemas = SchemaVersions(database: database, schema: schema, at: transaction)
        self.schemas = schemas
        let feed = ChangeFeed(database: database, versionObservers: versionObservers, monitor: monitor)
        changeFeed = feed
        let label: String
        switch identity {
        case .file(let path): label = path
        case .inMemory(let identifier): label = "memory:\(identifier)"
        }
        writes = WritePipeline(database: database, schemas: schemas, changeFeed: feed, label: label, monitor: monitor)
        // Read-only beside a writing process, or writing beside others: their commits arrive
        // through the lock file.
        watcher = database.versionsComeFromOtherProcesses ? CommitWatcher(database: database, feed: feed) : nil
    }

    deinit {
        watcher?.stop()
        try? database.close()  // wakes the watcher, which then ends
    }

    /// Begins a read of the newest durable version, with the schema recorded in that version
    /// (``SchemaVersions/beginRead()``).
    package func beginRead() throws -> (reader: ReadTransaction, schema: SchemaCatalog) {
        try schemas.beginRead()
    }

    /// Traps for damage that a read which cannot throw found (Realm Swift raises there too),
    /// naming the file and what the storage layer found: the page and what was wrong with it.
    /// Reads that can throw report the same as an `invalidDatabase` error.
    package func fileIsDamaged(_ error: any Error) -> Never {
        fileIsDamaged((error as? StorageError)?.message ?? "\(error)")
    }

    /// ``fileIsDamaged(_:)-(any Error)`` with the problem in words.
    package func fileIsDamaged(_ problem: String) -> Never {
        let name = switch identity {
        case .file(let path): path
        case .inMemory(let identifier): "in memory '\(identifier)'"
        }
        // The storage layer's messages say it already ("Realm file is damaged: page 7 …").
        let prefix = "Realm file is damaged: "
        let detail = problem.hasPrefix(prefix) ? problem.dropFirst(prefix.count) : Substring(problem)
        fatalError("The realm file \(name) is damaged: \(detail)")
    }

    /// The open files of the process: an entry per identity, whose own lock is held while that
    /// file is opened, so two handles opening one file at once share one instance — while files
    /// with other identities open meanwhile (an open can take long: a log to replay, a lock file
    /// another process holds for a moment). Guarded by its own lock, held only to find or add an
    /// entry. Lock order: the registry's, then an entry's; never the other way.
    private static let registry = Lock<[Identity: Entry]>([:])

    /// Test hook: I/O faults for the file at a (standardized) path, installed before the first
    /// handle opens it; tests of the public API simulate a full disk, a failed sync or a torn
    /// write through it. Production code installs none. Guarded by its own lock.
    private static let faultInjectors = Lock<[String: any IOFaultInjector]>([:])

    /// Runs `body` while no handle in any process has the realm file at `path` (standardized)
    /// open, and none can open it; nil, without running it, while one has (see
    /// `LockFile.whileDetached`).
    package static func whileNotOpen<T>(path: String, _ body: () throws -> T) throws -> T? {
        try LockFile.whileDetached(path: path + AuxiliaryFile.lock.suffix, body)
    }

    /// Installs (or, with nil, removes) the test hook's faults for the file at `path`.
    package static func injectFaults(_ faults: (any IOFaultInjector)?, forPath path: String) {
        faultInjectors.withLock { $0[path] = faults }
    }

    /// Compaction on launch: opens the file at `path` (which no handle of this process has open),
    /// skips it if another process has the file open (Realm does the same; `shouldCompact` is
    /// not asked), asks `shouldCompact`
    /// with its total and used bytes, and if it answers true replaces the file with a compacted
    /// copy of its newest version (``Database/writeCompactCopy(of:tables:to:replacing:)``: the
    /// copy is synced before it is renamed over the file, so a crash leaves the old file or the
    /// new one). A missing file is left to the open that follows. A file with a valid
    /// replication slot (or change records) is not compacted: the copy would hold only the
    /// newest version, and the slots' consumers need the versions they have not confirmed yet.
    /// Slots a retention limit invalidated keep nothing: they are carried into the copy.
    ///
    /// Runs with the file to itself (`DatabaseOptions.keepsOthersOut`): skipped, as Realm skips
    /// it, while another process has the file open (the copy would be renamed over a file it
    /// reads), and another process opening the file meanwhile waits until the copy has replaced
    /// it, then opens the new file.
    private static func compact(path: String, encryptionKey: [UInt8]?, if shouldCompact: @Sendable (Int, Int) -> Bool,
                                instrumentation: FileInstrumentation?) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var options = Self.options(readOnly: false, faults: nil, encryptionKey: encryptionKey)
        options.keepsOthersOut = true
        let database: Database
        do {
            database = try Database.open(path: path, options: options)
        } catch let error as StorageError where error.code == .alreadyOpen {
            return
        }
        do {
            let usage = database.spaceUsage
            let newest = try database.beginRead()
            let slots = try newest.replicationSlots()
            let retainsVersions = !newest.meta.changeRecords.isEmpty || slots.horizon != nil
            withExtendedLifetime(newest) {}
            if !retainsVersions, shouldCompact(Int(clamping: usage.fileBytes), Int(clamping: usage.liveBytes)) {
                let start = ContinuousClock.now
                let read = try database.beginRead()
                let catalog = try read.storedSchema().map(SchemaCatalog.init) ?? .empty
                let layouts = catalog.tableLayouts
                try Database.writeCompactCopy(of: read, tables: layouts, to: path, replacing: true, encryptionKey: encryptionKey,
                                              invalidatedSlots: slots)
                withExtendedLifetime(read) {}  // pinned until the copy is written; released before close
                let after = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.uint64Value ?? 0
                instrumentation?.sink(.compacted(bytesBefore: usage.fileBytes, bytesAfter: after, duration: ContinuousClock.now - start))
            }
        } catch {
            try? database.close()
            throw error
        }
        try database.close()
    }

    /// How the runtime opens a file: writable opens write beside other writing processes
    /// (`sharesWriting`: write ownership passes between them through the lock file), encrypted
    /// or not.
    private static func options(readOnly: Bool, faults: (any IOFaultInjector)?, encryptionKey: [UInt8]?) -> DatabaseOptions {
        var options = DatabaseOptions(readOnly: readOnly, faults: faults, encryptionKey: encryptionKey)
        options.sharesWriting = !readOnly
        return options
    }

    private struct WeakFile: Sendable {
        weak var file: SharedRealmFile?
    }

    /// A registry entry: the open file of one identity, held weakly, guarded by a lock of its own
    /// under which the file is opened.
    private final class Entry: Sendable {
        let file = Lock(WeakFile())
    }

    /// The registry's entry for `identity`, added if there is none.
    private static func entry(_ identity: Identity) -> Entry {
        registry.withLock { entries in
            if let entry = entries[identity] { return entry }
            let entry = Entry()
            entries[identity] = entry
            return entry
        }
    }

    /// The shared state for `identity` if a handle of this process has it open (either way of
    /// opening), else nil. Waits for an open of the same identity under way.
    package static func alreadyOpen(_ identity: Identity) -> SharedRealmFile? {
        registry.withLock { $0[identity] }?.file.withLock { $0.file }
    }

    /// The shared state for `identity`, opening the file (and reading its schema) if no handle
    /// in this process has it open.
    ///
    /// A file is opened one way per process, as in Realm: a second open with the other
    /// `readOnly`, or another `encryptionKey`, throws `.alreadyOpen`. In-memory realms ignore
    /// the key (nothing reaches a disk).
    ///
    /// `shouldCompact`, when given, is asked on the first open of a file in the process (not for
    /// in-memory or read-only realms) with the file's total and used bytes; if it answers true, the
    /// file is first rewritten compactly (see ``compact(path:)``).
    ///
    /// `instrumentation`, like `maximumActiveVersions`, is the first opening handle's: it gets the
    /// file's events (``FileEvent``) while the file is open in the process.
    package static func open(_ identity: Identity, readOnly: Bool, encryptionKey: [UInt8]? = nil, maximumActiveVersions: Int? = nil,
                             shouldCompact: (@Sendable (Int, Int) -> Bool)? = nil,
                             instrumentation: FileInstrumentation? = nil) throws -> SharedRealmFile {
        try entry(identity).file.withLock { opened in
            if let file = opened.file {
                // One file, one way of opening it in a process, as in Realm.
                guard file.database.options.readOnly == readOnly else {
                    let path = if case .file(let path) = identity { path } else { "" }
                    throw StorageError(.alreadyOpen, "Realm at path '\(path)' already opened with different read permissions", path: path)
                }
                if case .file(let path) = identity, !file.database.isOpened(withKey: encryptionKey) {
                    throw StorageError(.alreadyOpen, "Realm at path '\(path)' already opened with different encryption key", path: path)
                }
                return file
            }
            let database: Database
            switch identity {
            case .file(let path):
                let faults = faultInjectors.withLock { $0[path] }
                if let shouldCompact, !readOnly {
                    try compact(path: path, encryptionKey: encryptionKey, if: shouldCompact, instrumentation: instrumentation)
                }
                database = try Database.open(path: path, options: Self.options(readOnly: readOnly, faults: faults,
                                                                               encryptionKey: encryptionKey))
            case .inMemory: database = try Database.inMemory()
            }
            database.maximumActiveVersions = maximumActiveVersions
            let read = try database.beginRead()
            // The catalog's pages and the schema's are checked (checksums, kinds, counts) before
            // anything is read through them: damage there is a thrown `invalidDatabase` naming
            // the page, never garbage decoded into a schema. (A few pages: the catalog has one
            // entry per tree.) The meta pages were checked by `Database.open`.
            try Database.verify([StoredSchema.metadataTree], at: read, treeNames: [StoredSchema.metadataTree: "the schema"])
            let schema = try read.storedSchema().map(SchemaCatalog.init) ?? .empty
            let file = SharedRealmFile(identity: identity, database: database, schema: schema, at: read.transaction,
                                       instrumentation: instrumentation)
            opened.file = file
            return file
        }
    }
}
