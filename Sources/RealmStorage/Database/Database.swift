#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a database is opened.
package struct DatabaseOptions: Sendable {
    /// Never write: no write transactions, no lock-file writes beyond the shared lock.
    package var readOnly = false
    /// Whether a flush waits for the disk. `.none` keeps data safe from a process crash but not
    /// from a power cut; it exists for tests and for comparison with non-syncing peers.
    package var durability: Durability = .full
    /// Test hook for failing I/O.
    package var faults: (any IOFaultInjector)?
    /// The 64-byte key of an encrypted file (see `PageCipher`); nil for an unencrypted one. A
    /// new file is created encrypted when a key is given.
    package var encryptionKey: [UInt8]?
    /// Whether small batches go through the write-ahead log `<file>.log` (see `WriteAheadLog`):
    /// one contiguous write and one sync per batch instead of a write per run of pages. Only
    /// with full durability. Off, every batch is written in place; a log left with records is
    /// still replayed on open.
    package var writeAheadLog = true

    package enum Durability: Sendable { case full, none }

    package init(readOnly: Bool = false, durability: Durability = .full, faults: (any IOFaultInjector)? = nil,
                 encryptionKey: [UInt8]? = nil, writeAheadLog: Bool = true) {
        self.readOnly = readOnly
        self.durability = durability
        self.faults = faults
        self.encryptionKey = encryptionKey
        self.writeAheadLog = writeAheadLog
    }
}

/// One open database: a file (or anonymous memory), its versions, readers and the single writer.
///
/// - Readers call ``beginRead()`` and get the newest durable version, pinned until released.
/// - One writer at a time calls ``beginWrite()``; a write transaction builds on the newest
///   *prepared* version, so the writer can run transaction N+1 while N is being flushed.
/// - ``WriteTransaction/prepare()`` seals a transaction; ``flush()`` writes every prepared commit
///   with one sync and then publishes the newest to readers ("group commit").
///
/// Commit protocol (one sync per batch): data pages, then the meta page in the slot not holding
/// the newest durable version. A batch of at most `WriteAheadLog.recordLimit` bytes is appended
/// to the write-ahead log in one write and one `fdatasync`, then written to its places without a
/// sync (see `WriteAheadLog` for why that is safe); a larger one is written in place, in one
/// series of writes followed by one `fdatasync`. Each child pointer records the transaction of
/// the page it points to, and each meta records the newest transaction that was durable before
/// its batch, so on open the pages of the newest batch are verified (checksum and transaction),
/// and if any is torn or missing the previous meta is used.
///
/// The log's invariant (see `WriteAheadLog`) — every write to the data file since its last sync
/// is a page of a record durable in the log, or a data page at a number no recoverable version
/// uses — is kept here: a logged batch's meta page goes home only after the log's sync, and
/// whatever writes the data file outside the log (a large batch, a meta-only checkpoint) first
/// calls ``checkpointLogLocked()``.
///
/// Thread safety: `state` is guarded by a mutex; flushes are serialized by `flushLock`; the page
/// map is written only under `state`'s lock.
package final class Database: Sendable {
    package let path: String?
    package let options: DatabaseOptions
    /// The version the file was opened at: the one recovery chose. (The first write transaction
    /// re-publishes it under a new transaction id; see ``idReserve``.)
    package let openedVersion: TransactionID
    let map: PageMap
    let file: PageFile?
    /// The write-ahead log, when small batches go through one (a file opened for writing with
    /// full durability and `writeAheadLog`).
    let log: WriteAheadLog?
    /// How many write-ahead log records the open replayed — commits a crash left only in the
    /// log: onto the file (a writable open), or into memory (a read-only one).
    package let recordsReplayed: Int
    private let lockDescriptor: Int32

    struct State {
        /// The newest durable version: what readers get.
        var published: MetaPage
        var publishedTip: VersionTip
        /// Which meta slot (0 or 1) holds `published`.
        var publishedSlot: Int
        /// Prepared but unflushed commits, oldest first.
        var pending: [PreparedCommit] = []
        /// What the next write transaction builds on.
        var tip: VersionTip
        var generation: UInt64 = 0
        /// The lowest transaction id never given to a commit. Ids are never reused: a failed flush
        /// may have left its meta page (naming pages stamped with its id) in the file, and a retry
        /// under the same id could then pass recovery's checks with a mix of both batches' pages.
        var nextTransaction: TransactionID
        /// The newest transaction a failed flush discarded (0 if none): a commit with an id up to
        /// this that is not durable never will be.
        var discardedThrough: TransactionID = 0
        /// Why the last failed flush discarded its commits (reported to transactions built on them).
        var discardReason: StorageError?
        /// The most versions that may be live at once (nil: no limit); see ``checkVersionLimit()``.
        var maximumActiveVersions: Int?
        var writerActive = false
        /// Free pages whose memory an anonymous map may give back (see ``FreePageMemory``).
        var freePageMemory = FreePageMemory()
        /// Pinned versions and their reader counts.
        var pins: [TransactionID: Int] = [:]
        /// Set after a failed sync: the file's state in the page cache is unknown, so nothing
        /// more may be written through this instance.
        var failure: StorageError?
        var isClosed = false

        /// The id the next write transaction gets.
        var nextID: TransactionID { max(tip.meta.transaction + 1, nextTransaction) }
    }

    private let state: Lock<State>
    private let flushLock = Lock(())

    private init(path: String?, options: DatabaseOptions, map: PageMap, file: PageFile?, log: WriteAheadLog? = nil,
                 recordsReplayed: Int = 0, lockDescriptor: Int32, meta: MetaPage, slot: Int, tip: VersionTip,
                 nextTransaction: TransactionID) {
        self.path = path
        self.options = options
        openedVersion = meta.transaction
        self.map = map
        self.file = file
        self.log = log
        self.recordsReplayed = recordsReplayed
        self.lockDescriptor = lockDescriptor
        state = Lock(State(published: meta, publishedTip: tip, publishedSlot: slot, tip: tip,
                            nextTransaction: nextTransaction))
    }

    /// How far transaction ids may run ahead of the newest durable version.
    ///
    /// Recovery tells a page a commit really wrote from stale bytes at a reused page number by the
    /// transaction id its parent expects, so an id must never be stamped on two different pages
    /// at the same number — not even across a crash. A process that dies leaves behind, at free
    /// page numbers, the pages of the batch it was writing (and of batches whose write failed),
    /// stamped with ids above the newest durable version *P*, and no meta records them. The
    /// writer therefore never hands out an id above `P + idReserve` (``beginWrite()`` flushes
    /// first when it would), and an open continues at `newest meta + idReserve + 1`, above every
    /// id the previous process can have stamped. Without the jump, a process reopened after a
    /// torn batch would write the same ids at the same page numbers (allocation is
    /// deterministic), and a later crash could pass off the old batch's pages as the new one's.
    /// The first write transaction after the open finds its id above that bound, so it first
    /// writes a meta naming the opened version under the new id (one page, one sync): should
    /// this process die before its first commit lands, the next open still starts above every id
    /// it used. 2^20 ids per open leaves room for 2^43 opens.
    static let idReserve: TransactionID = 1 << 20

    deinit {
        // The last reference is gone, so no transaction is open: finish what `close()` would
        // have done if nobody called it (flush, and record that the newest version is durable).
        let needsClose = state.withLock { !$0.isClosed && $0.failure == nil }
        if needsClose && !options.readOnly {
            _ = try? flush()
            try? checkpointLog(shrinking: true)
            try? writeCheckpoint()
        }
        file?.close()
        if lockDescriptor >= 0 { closeDescriptor(lockDescriptor) }
    }

    // MARK: Opening

    /// A new, empty in-memory database. Its data lives as long as this object.
    package static func inMemory() throws -> Database {
        let map = PageMap(descriptor: -1)
        try map.ensureMapped(pageCount: PageLayout.firstDataPage)
        let meta = initialMeta()
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        meta.encode(into: page)
        map.store(page, byteCount: PageLayout.pageSize, atPage: 0)
        map.store(page, byteCount: PageLayout.pageSize, atPage: 1)
        let tip = VersionTip(meta: meta, freeList: FreeList(), chain: FreeListChain())
        return Database(path: nil, options: DatabaseOptions(durability: .none), map: map, file: nil,
                        lockDescriptor: -1, meta: meta, slot: 0, tip: tip, nextTransaction: meta.transaction + 1)
    }

    static func initialMeta() -> MetaPage {
        MetaPage(transaction: 1, durableBase: 1, pageCount: PageLayout.firstDataPage,
                 catalog: .empty, freeList: .none)
    }

    /// Opens (creating if needed, unless read-only) the database file at `path`.
    ///
    /// - Throws: `StorageError` — `.fileNotFound` (read-only and missing, or no such directory),
    ///   `.filePermissionDenied`, `.incompatibleLockFile` (open in another process),
    ///   `.invalidDatabase` (empty, truncated, corrupt, foreign or newer-format file; an encrypted
    ///   file without its key or with another; an unencrypted file with a key), `.invalidInput`
    ///   (a key that is not 64 bytes).
    package static func open(path: String, options: DatabaseOptions = DatabaseOptions()) throws -> Database {
        if let key = options.encryptionKey, key.count != PageCipher.userKeyByteCount {
            throw StorageError(.invalidInput, "Encryption key must be \(PageCipher.userKeyByteCount) bytes, not \(key.count)", path: path)
        }
        // A read-only open of a missing file creates nothing, not even the lock file.
        if options.readOnly && access(path, F_OK) != 0 && errno == ENOENT {
            throw StorageError.fromErrno(ENOENT, "Could not open the realm file", path: path)
        }
        let lock = try acquireLock(path: path + AuxiliaryFile.lock.suffix, readOnly: options.readOnly)
        do {
            if !options.readOnly && access(path, F_OK) != 0 && errno == ENOENT {
                try create(path: path, cipher: options.encryptionKey.flatMap { PageCipher(newFileWithKey: $0) })
            }
            let descriptor = openDescriptor(path, options.readOnly ? O_RDONLY : O_RDWR)
            guard descriptor >= 0 else { throw StorageError.fromErrno(errno, "Could not open the realm file", path: path) }
            let cipher: PageCipher?
            do {
                cipher = try encryption(ofFileAt: path, descriptor: descriptor, key: options.encryptionKey)
            } catch {
                closeDescriptor(descriptor)
                throw error
            }
            let file = PageFile(path: path, descriptor: descriptor, faults: options.faults, cipher: cipher)
            let log: WriteAheadLog?
            let map: PageMap
            let replayed: Int
            var replayedPages: UInt64 = 0
            do {
                if options.readOnly {
                    log = nil
                    (map, replayed, replayedPages) = try replayLogInMemory(of: file, cipher: cipher)
                } else {
                    (log, replayed) = try openLog(of: file, cipher: cipher, options: options)
                    map = PageMap(descriptor: descriptor, cipher: cipher)
                }
            } catch {
                file.close()
                throw error
            }
            let (meta, slot, tip, newestStamped) = try recover(file: file, map: map, minimumPages: replayedPages)
            // The user's key is not kept: the cipher holds what was derived from it, and
            // ``isOpened(withKey:)`` tells another key from this one by the file's key check.
            var kept = options
            kept.encryptionKey = nil
            return Database(path: path, options: kept, map: map, file: file, log: log, recordsReplayed: replayed,
                            lockDescriptor: lock, meta: meta, slot: slot, tip: tip, nextTransaction: newestStamped + idReserve + 1)
        } catch {
            if lock >= 0 { closeDescriptor(lock) }
            throw error
        }
    }

    /// Replays the write-ahead log's records onto the file (a writable open); returns the log if
    /// this database writes through one, and how many records were replayed. Runs before
    /// anything maps the file: the pages recovery reads must be the replayed ones.
    private static func openLog(of file: PageFile, cipher: PageCipher?, options: DatabaseOptions) throws -> (WriteAheadLog?, Int) {
        let path = file.path + AuxiliaryFile.log.suffix
        let uses = options.writeAheadLog && options.durability == .full
        guard uses || access(path, F_OK) == 0 else { return (nil, 0) }
        let (log, replayed) = try WriteAheadLog.openForWriting(path: path, file: file, faults: options.faults,
                                                              isAuthentic: isAuthentic(cipher),
                                                              dataFile: { metaState(of: file, cipher: cipher) })
        return (uses ? log : nil, replayed)
    }

    /// A read-only open's map, with the write-ahead log's records (commits a crash left only in
    /// the log) replayed into it — a private map of the file, or an encrypted file's plaintext —
    /// so that neither file changes. Returns the map, how many records there were, and the last
    /// one's page count (0 if none), which the file's length may not reach.
    private static func replayLogInMemory(of file: PageFile, cipher: PageCipher?) throws -> (PageMap, Int, UInt64) {
        let path = file.path + AuxiliaryFile.log.suffix
        let map = PageMap(descriptor: file.descriptor, cipher: cipher, privateFileBytes: try file.size())
        let plaintext = cipher.map { _ in UnsafeMutableRawPointer.allocate(byteCount: WriteAheadLog.recordLimit, alignment: PageLayout.pageSize) }
        defer { plaintext?.deallocate() }
        var pageCount: UInt64 = 0
        let count = try WriteAheadLog.readRecords(path: path, file: file, isAuthentic: isAuthentic(cipher),
                                                  dataFile: metaState(of: file, cipher: cipher)) { record, images in
            let end = record.entries.reduce(record.pageCount) { max($0, $1.page + $1.pages) }
            try map.ensureMapped(pageCount: end)
            try record.forEachImage(in: images) { entry, image, length in
                if let cipher, let plaintext {
                    // Authenticated when the record was read, so it decrypts.
                    guard cipher.decrypt(image, length: length, page: entry.page, into: plaintext) else {
                        throw StorageError(.invalidDatabase, "The realm's log changed while it was read", path: path)
                    }
                    map.store(plaintext, byteCount: length, atPage: entry.page)
                } else {
                    map.store(image, byteCount: length, atPage: entry.page)
                }
                return true
            }
            pageCount = record.pageCount
        }
        return (map, count, pageCount)
    }

    /// What the file's meta pages say before recovery (read with `pread`: nothing is mapped yet).
    private static func metaState(of file: PageFile, cipher: PageCipher?) -> LogLayout.DataFileState {
        let pageSize = PageLayout.pageSize
        let stored = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: pageSize)
        let plain = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: pageSize)
        defer { stored.deallocate(); plain.deallocate() }
        var state = LogLayout.DataFileState(newest: nil, fileID: nil, hasInvalidSlot: false)
        for slot in 0..<2 {
            var meta: MetaPage?
            if pread(file.descriptor, stored, pageSize, off_t(slot * pageSize)) == pageSize {
                if let cipher {
                    if cipher.decrypt(stored, length: pageSize, page: PageNumber(slot), into: plain),
                       case .success(let decoded) = MetaPage.decode(plain) { meta = decoded }
                } else if case .success(let decoded) = MetaPage.decode(stored) {
                    meta = decoded
                }
            }
            if let meta {
                state.newest = max(state.newest ?? 0, meta.transaction)
                state.fileID = meta.fileID
            } else {
                state.hasInvalidSlot = true
            }
        }
        return state
    }

    /// Whether a stored page or run from the log is intact: its checksum, or in an encrypted
    /// file its tag.
    private static func isAuthentic(_ cipher: PageCipher?) -> (UnsafeRawPointer, Int, PageNumber) -> Bool {
        { image, length, page in cipher?.isAuthentic(image, length: length, page: page) ?? PageChecksum.isValid(image, length: length) }
    }

    /// Takes the lock file, so that a second process gets a clear error instead of corrupting the
    /// file (multi-process access is not supported yet).
    /// Whether a process — this one included — has the database at `path` open: the lock file
    /// beside it is locked (see ``acquireLock(path:readOnly:)``). A probe: the answer can change
    /// as soon as it is given.
    package static func isOpen(path: String) -> Bool {
        let descriptor = openDescriptor(path + AuxiliaryFile.lock.suffix, O_RDWR)
        guard descriptor >= 0 else { return false }  // no lock file: never opened for writing
        defer { closeDescriptor(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        _ = flock(descriptor, LOCK_UN)
        return false
    }

    private static func acquireLock(path: String, readOnly: Bool) throws -> Int32 {
        var descriptor = openDescriptor(path, O_RDWR | O_CREAT, 0o644)
        if descriptor < 0 && readOnly {
            descriptor = openDescriptor(path, O_RDONLY)
            if descriptor < 0 { return -1 }  // read-only media without a lock file: nobody can write
        }
        guard descriptor >= 0 else {
            throw StorageError.fromErrno(errno, "Could not open the lock file", path: path)
        }
        // A conflict can be transient: a process that forks (posix_spawn included) shares every
        // open file description, lock files too, with the child until the child's exec closes
        // it, so a file this process has just closed may look locked for a moment. Retry for
        // about 100 ms before reporting another process.
        // Writers lock exclusively; read-only opens share the lock, so several read-only
        // processes may read the file at once while none writes it (a reader cannot follow
        // another process's commits: page reuse is coordinated only within one process).
        let mode = readOnly ? LOCK_SH : LOCK_EX
        func tryLock() -> Int32 { flock(descriptor, mode | LOCK_NB) == 0 ? 0 : errno }
        var code = tryLock()
        var attempts = 0
        while code == EWOULDBLOCK && attempts < 50 {
            attempts += 1
            usleep(2_000)
            code = tryLock()
        }
        guard code == 0 else {
            closeDescriptor(descriptor)
            if code == EWOULDBLOCK {
                throw StorageError(.incompatibleLockFile, readOnly
                                   ? "The realm file is open for writing in another process; it can be read only when no process writes it"
                                   : "The realm file is open in another process; RealmActors supports one writing process per file",
                                   path: path)
            }
            throw StorageError.fromErrno(code, "Could not lock the realm file", path: path)
        }
        return descriptor
    }

    /// Creates an empty database file atomically: written and synced under a temporary name, then
    /// renamed into place, then the directory synced. A crash leaves either no file or a valid one.
    /// With a cipher, the file is encrypted from its first page. The caller holds the lock file.
    private static func create(path: String, cipher: PageCipher?) throws {
        let temporary = path + AuxiliaryFile.creating.suffix
        // An encrypted file is readable by its owner only: its ciphertext is safe to lose, but
        // there is no reason to hand it out (and with it which pages change, and when).
        let descriptor = openDescriptor(temporary, O_RDWR | O_CREAT | O_TRUNC, cipher == nil ? 0o644 : 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw StorageError.fromErrno(code, "Could not create the realm file", path: path)
        }
        defer { closeDescriptor(descriptor) }
        let file = PageFile(path: temporary, descriptor: descriptor, faults: nil, cipher: cipher)
        let pages = UnsafeMutableRawPointer.allocate(byteCount: 2 * PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { pages.deallocate() }
        var generator = SystemRandomNumberGenerator()
        let fileID = max(1, generator.next() as UInt64)
        var meta = initialMeta()
        meta.fileID = fileID
        meta.transaction = 0
        meta.durableBase = 0
        meta.encode(into: pages)
        meta = initialMeta()
        meta.fileID = fileID
        meta.encode(into: pages + PageLayout.pageSize)
        do {
            try file.write(UnsafeRawBufferPointer(start: pages, count: 2 * PageLayout.pageSize), at: 0)
            try file.sync()
            // A log left by a file deleted from this path (without its log) must not meet the new
            // file, which may even get the deleted one's inode. The caller holds the lock file, so
            // no other open has it.
            unlink(path + AuxiliaryFile.log.suffix)
            guard rename(temporary, path) == 0 else { throw StorageError.fromErrno(errno, "Could not create the realm file", path: path) }
        } catch {
            unlink(temporary)
            throw error
        }
        syncDirectory(of: path)
    }

    /// Whether `key` is the key this database was opened with (nil: opened unencrypted), told by
    /// the file's key check rather than by a kept copy of the key.
    package func isOpened(withKey key: [UInt8]?) -> Bool {
        guard let cipher = file?.cipher else { return key == nil }
        guard let key, let candidate = PageCipher(userKey: key, salt: cipher.header.salt) else { return false }
        return candidate.isKeyCorrect(for: cipher.header)
    }

    /// Whether the file is encrypted, and if so its cipher under `key`, from the encryption
    /// header of its meta pages (see `EncryptionHeader`); nil for an unencrypted file opened
    /// without a key. Read with `pread`: nothing is mapped yet.
    ///
    /// - Throws: `.invalidDatabase` — an encrypted file without a key, or with a wrong one; an
    ///   unencrypted realm file with a key; an unknown encryption scheme.
    private static func encryption(ofFileAt path: String, descriptor: Int32, key: [UInt8]?) throws -> PageCipher? {
        let pages = UnsafeMutableRawPointer.allocate(byteCount: 2 * PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { pages.deallocate() }
        // A file too short for two pages is not a realm file; recovery says so.
        guard pread(descriptor, pages, 2 * PageLayout.pageSize, 0) == 2 * PageLayout.pageSize else { return nil }
        let readings = [0, 1].map { EncryptionHeader.read(metaPage: pages + $0 * PageLayout.pageSize) }
        let headers = readings.compactMap { if case .header(let header) = $0 { header } else { nil } }
        if headers.isEmpty, let scheme = readings.lazy.compactMap({ if case .unknownScheme(let scheme) = $0 { scheme } else { nil } }).first {
            if scheme == EncryptionHeader.unsafeDevelopmentScheme {
                throw StorageError(.invalidDatabase, "The realm file is encrypted with scheme 1, which development builds of RealmActors wrote and which is no longer opened: its copies could reuse key stream. Open it with that build and write an unencrypted copy (writeCopy(toFile:encryptionKey: nil)), then encrypt that copy with this one", path: path)
            }
            throw StorageError(.invalidDatabase, "The realm file is encrypted with scheme \(scheme), which this library does not know; upgrade RealmActors to open it", path: path)
        }
        guard let key else {
            guard headers.isEmpty else {
                throw StorageError(.invalidDatabase, "The realm file is encrypted: open it with its encryption key (Configuration.encryptionKey)", path: path)
            }
            return nil
        }
        guard !headers.isEmpty else {
            if [0, 1].contains(where: { UnsafeRawPointer(pages + $0 * PageLayout.pageSize).u64(24) == MetaPage.magic }) {
                throw StorageError(.invalidDatabase, "The realm file is not encrypted, but an encryption key was given: open it without a key, or write an encrypted copy with writeCopy(toFile:encryptionKey:)", path: path)
            }
            return nil  // not a realm file: recovery says so
        }
        for header in headers {
            if let cipher = PageCipher(userKey: key, salt: header.salt), cipher.isKeyCorrect(for: header) { return cipher }
        }
        throw StorageError(.invalidDatabase, "The encryption key is wrong: it does not decrypt this realm file", path: path)
    }

    /// Makes a rename or creation in the file's directory durable.
    static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = openDescriptor(directory.isEmpty ? "/" : directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        closeDescriptor(descriptor)
    }

    /// Picks the version to open at: the newest meta whose batch verifies, else the other one.
    /// Also returns the newest transaction of either meta, verified or not (see ``idReserve``).
    /// `minimumPages`: the length in pages a read-only open's in-memory replay gave the file.
    private static func recover(file: PageFile, map: PageMap, minimumPages: UInt64 = 0) throws -> (MetaPage, Int, VersionTip, TransactionID) {
        let size = try file.size()
        let path = file.path
        guard size > 0 else {
            throw StorageError(.invalidDatabase, "The realm file is empty (0 bytes), so it is not a realm file", path: path)
        }
        guard size >= UInt64(2 * PageLayout.pageSize) else {
            throw StorageError(.invalidDatabase, "The realm file is truncated (\(size) bytes) or is not a realm file: it is shorter than its header pages 0 and 1", path: path)
        }
        let filePages = max(size / UInt64(PageLayout.pageSize), minimumPages)
        try map.ensureMapped(pageCount: filePages)
        let candidates = [0, 1].map { slot in (slot, MetaPage.decode(map.pointer(PageNumber(slot)))) }
        var valid = candidates.compactMap { slot, result -> (Int, MetaPage)? in
            if case .success(let meta) = result { return (slot, meta) }
            return nil
        }
        // A newer library's meta in either slot refuses the file, even when the other slot holds
        // a version this library reads: that one is older, and opening it would lose the newer
        // commits and then overwrite their pages.
        for (_, result) in candidates {
            if case .failure(.futureFormat(let version)) = result {
                throw StorageError(.invalidDatabase,
                                   "The realm file has format version \(version), newer than this library supports (\(MetaPage.formatVersion)); upgrade RealmActors to open it",
                                   path: path)
            }
        }
        if valid.isEmpty {
            for (_, result) in candidates {
                if case .failure(.obsoleteFormat(let version)) = result {
                    throw StorageError(.invalidDatabase,
                                       "The realm file has format version \(version), written by a development build of RealmActors; this library reads versions 5 and 6 only",
                                       path: path)
                }
            }
            if map.decryption != nil {
                // The key is right (its check value matched), so the pages are damaged.
                throw StorageError(.invalidDatabase, "The realm file is corrupt: both header pages fail their authentication (pages 0 and 1)", path: path)
            }
            if candidates.allSatisfy({ if case .failure(.notARealmFile) = $0.1 { true } else { false } }) {
                throw StorageError(.invalidDatabase, "Not a realm file (no RealmActors header in pages 0 and 1)", path: path)
            }
            throw StorageError(.invalidDatabase, "The realm file is corrupt: both header pages fail their checksum (pages 0 and 1)", path: path)
        }
        valid.sort { $0.1.transaction > $1.1.transaction }
        var reasons: [String] = []
        for (slot, meta) in valid {
            guard meta.pageCount <= filePages else {
                reasons.append("version \(meta.transaction) needs \(meta.pageCount) pages but the file has \(filePages)")
                continue
            }
            try map.ensureMapped(pageCount: meta.pageCount)
            let snapshot = RecoverySource(map: map, pageLimit: meta.pageCount)
            do {
                try IntegrityCheck.verifyBatch(of: meta, in: snapshot)
                let (freeList, chain) = try FreeListChain.decode(head: meta.freeList, pageCount: meta.pageCount,
                                                                 page: snapshot.page)
                return (meta, slot, VersionTip(meta: meta, freeList: freeList, chain: chain), valid[0].1.transaction)
            } catch let error as StorageError {
                reasons.append("version \(meta.transaction): \(error.message)")
            }
        }
        throw StorageError(.invalidDatabase,
                           "The realm file is corrupt or truncated: " + reasons.joined(separator: "; "), path: path)
    }

    // MARK: Reading

    /// The newest durable version, pinned until the returned transaction is released.
    package func beginRead() throws -> ReadTransaction {
        let meta = try state.withLock { state -> MetaPage in
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            state.pins[state.published.transaction, default: 0] += 1
            return state.published
        }
        return ReadTransaction(database: self, meta: meta)
    }

    /// Pins a version another pin holds already (see ``beginRead(atVersion:)``): its pages are
    /// not reused until ``unpin(_:)``.
    func pin(_ transaction: TransactionID) {
        state.withLock { $0.pins[transaction, default: 0] += 1 }
    }

    func unpin(_ transaction: TransactionID) {
        state.withLock { state in
            if let count = state.pins[transaction], count > 1 {
                state.pins[transaction] = count - 1
            } else {
                state.pins[transaction] = nil
            }
        }
    }

    /// How the file's pages are used at the newest prepared version (see ``SpaceUsage``).
    ///
    /// - Complexity: O(free runs), under the state lock.
    package var spaceUsage: SpaceUsage {
        state.withLock { state in
            let page = UInt64(PageLayout.pageSize)
            let total = state.tip.meta.pageCount
            let free = state.tip.freeList.pageCount
            let reusable = state.tip.freeList.reusablePageCount
            let retained = min(state.tip.meta.retainedPages, total - free)
            return SpaceUsage(fileBytes: total * page, liveBytes: (total - free - retained) * page,
                              freeBytes: reusable * page, heldBytes: (free - reusable) * page,
                              retainedBytes: retained * page, formatVersion: state.tip.meta.version,
                              hasReplication: state.tip.meta.hasReplication)
        }
    }

    /// The number of distinct versions readers pin, plus the newest one (always live).
    package var activeVersionCount: Int {
        state.withLock { state in
            var versions = Set(state.pins.keys)
            versions.insert(state.published.transaction)
            return versions.count
        }
    }

    /// The oldest version a reader pins, if any reader pins one.
    package var oldestPinnedTransaction: TransactionID? { state.withLock { $0.pins.keys.min() } }

    /// The most versions that may be live at once; nil for no limit. A commit that would make
    /// one more live version than this throws `.maximumActiveVersionsExceeded` (old versions
    /// pinned by readers keep their pages from being reused, so unbounded pinning grows the file).
    package var maximumActiveVersions: Int? {
        get { state.withLock { $0.maximumActiveVersions } }
        set { state.withLock { $0.maximumActiveVersions = newValue } }
    }

    /// Throws if one more version would exceed ``maximumActiveVersions``.
    func checkVersionLimit() throws {
        try state.withLock { state in
            guard let limit = state.maximumActiveVersions else { return }
            // Live after this commit: the pinned versions, the unflushed commits, and this one.
            let live = Set(state.pins.keys).count + state.pending.count + 1
            if live > limit {
                throw StorageError(.maximumActiveVersionsExceeded,
                                   "Number of active versions (\(live)) in the Realm exceeded the limit of \(limit)", path: path)
            }
        }
    }

    /// The newest durable version's transaction id.
    package var latestTransaction: TransactionID { state.withLock { $0.published.transaction } }

    /// The newest prepared transaction (durable or still waiting for a flush).
    package var preparedTransaction: TransactionID { state.withLock { $0.tip.meta.transaction } }

    /// Whether the commit `transaction` is durable (true), was discarded by a failed flush
    /// (false), or is still pending (nil).
    package func durability(of transaction: TransactionID) -> Bool? {
        state.withLock { state in
            if transaction <= state.published.transaction { return true }
            if transaction <= state.discardedThrough || state.failure != nil { return false }
            return nil
        }
    }

    /// Why commits that ``durability(of:)`` reports as `false` did not become durable: the error
    /// that stopped writes (also when a flush itself succeeded and only stopped later ones, as
    /// after its meta page failed to reach its place), else the one that discarded them.
    package var discardError: StorageError? { state.withLock { $0.failure ?? $0.discardReason } }

    /// Pages in use plus free pages: the file's length in pages at the newest version.
    package var pageCount: UInt64 { state.withLock { $0.published.pageCount } }

    /// Free pages at the newest durable version (reusable or waiting for readers).
    package var freePageCount: UInt64 { state.withLock { $0.publishedTip.freeList.pageCount } }

    // MARK: Writing

    /// Starts the write transaction. Only one may exist at a time.
    package func beginWrite() throws -> WriteTransaction {
        guard !options.readOnly else {
            throw StorageError(.wrongTransactionState, "Cannot write to a realm opened read-only", path: path)
        }
        // Keep every id within `idReserve` of the durable version: make the pending commits
        // durable first if the next id would pass it, or, with nothing pending (the first write
        // after an open, or many failed flushes), record a newer durable id. Only this writer
        // prepares, so the bound holds when the lock is taken below; concurrent flushes only
        // raise the durable version.
        while file != nil, state.withLock({ $0.nextID > $0.published.transaction + Self.idReserve && $0.failure == nil }) {
            if state.withLock({ $0.pending.isEmpty }) { try writeCheckpoint(force: true) } else { try flush() }
        }
        let (writer, unusedMemory) = try state.withLock { state -> (WriteTransaction, [PageRun]) in
            if let failure = state.failure { throw failure }
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            guard !state.writerActive else {
                throw StorageError(.wrongTransactionState, "A write transaction is already in progress")
            }
            state.writerActive = true
            let transaction = state.nextID
            precondition(file == nil || transaction <= state.published.transaction + Self.idReserve,
                         "transaction ids ran ahead of the durable version")
            let writer = WriteTransaction(database: self, base: state.tip, below: state.pending.reversed(),
                                          generation: state.generation,
                                          transaction: transaction,
                                          pins: state.pins.keys.sorted(), durable: state.published.transaction)
            guard map.isStoredThrough else { return (writer, []) }
            return (writer, state.freePageMemory.note(ripe: writer.newlyReusable, reusable: writer.freeList.reusable))
        }
        // Outside the lock (readers pin under it); before the writer can reuse these pages.
        if !unusedMemory.isEmpty { map.giveBackMemory(of: unusedMemory) }
        return writer
    }

    func writeTransactionEnded() {
        state.withLock { $0.writerActive = false }
    }

    func enqueue(_ commit: PreparedCommit, generation: UInt64) throws {
        try state.withLock { state in
            state.writerActive = false
            if let failure = state.failure { throw failure }
            guard generation == state.generation else {
                // Reported with the failure's code (a full disk is `outOfDiskSpace` for every
                // commit it cost), so callers can act on the cause.
                let reason = state.discardReason
                throw StorageError(reason?.code ?? .fail,
                                   "The transaction was built on commits that failed to reach the disk"
                                       + (reason.map { ": \($0.message)" } ?? ""), path: path)
            }
            state.pending.append(commit)
            state.tip = commit.tip
            state.nextTransaction = commit.tip.meta.transaction + 1
        }
    }

    /// Writes every prepared commit to the file with one sync, then publishes the newest to readers.
    ///
    /// Safe to call while another thread runs the next write transaction. Returns the newest
    /// durable transaction.
    ///
    /// A flush that throws made nothing durable: whichever step failed — growing the file, a
    /// write, a sync, the log's checkpoint — the batch is discarded, and what it had put in
    /// either file is taken back (its log record cut off, or its meta page overwritten by one
    /// naming the last durable version, synced), so a reopen finds the version before it. On a
    /// write error (disk full…) the database stays usable at the last durable version; on a sync
    /// error it refuses further writes (the kernel may have dropped unsynced pages) until
    /// reopened. Only if the taking back fails too is the outcome unknown (the error says so).
    /// Conversely, an error after the batch is durable (its meta page's write to its place, the
    /// checkpoint after it) does not fail the flush: the commit stands, and later writes throw
    /// that error until the database is reopened.
    @discardableResult
    package func flush() throws -> TransactionID {
        try flushBatch().newest
    }

    /// ``flush()``, also saying how many commits the flush made durable (0 when none was
    /// pending): the size of a group commit's batch, for instrumentation.
    package func flushBatch() throws -> (newest: TransactionID, commits: Int) {
        try flushLock.withLock { _ in
            let (batch, published, slot) = try state.withLock { state in
                if let failure = state.failure { throw failure }
                return (state.pending, state.published, state.publishedSlot)
            }
            guard let last = batch.last else { return (published.transaction, 0) }
            var meta = last.tip.meta
            meta.durableBase = published.transaction
            let newSlot = 1 - slot
            do {
                try writeBatch(batch, meta: meta, slot: newSlot)
            } catch BatchFailure.durable(let error) {
                // The commit stands (a reopen replays its record), so it is published and its
                // callers are told it succeeded; the data file lacks its meta page, which a
                // checkpoint would need, so later writes are refused until a reopen.
                publish(batch: batch.count, meta: meta, tip: last.tip, slot: newSlot)
                state.withLock { state in
                    // Commits prepared meanwhile, on top of this one, will not be flushed.
                    state.discardedThrough = max(state.discardedThrough, state.tip.meta.transaction)
                    state.pending = []
                    state.failure = Self.stoppedAfterCommit(error)
                }
                return (meta.transaction, batch.count)
            } catch BatchFailure.unknown(let error) {
                // The batch could not be taken back: what the file holds is known only after
                // reopening. Writes stop.
                state.withLock { state in
                    state.discardedThrough = max(state.discardedThrough, state.tip.meta.transaction)
                    state.failure = error
                    state.pending = []
                }
                throw error
            } catch {
                // Nothing of the batch is in either file for recovery to find: drop it. After a
                // failed sync the page cache is not trusted, so writes stop until a reopen; after
                // a failed write (a full disk) the database stays usable.
                let (error, stopsWrites, metaInFile) = switch error {
                case BatchFailure.discarded(let cause, let stops): (cause, stops, false)
                case BatchFailure.metaToRetract(let cause, let stops): (cause, stops, true)
                default: ((error as? StorageError) ?? StorageError(.fail, "\(error)", path: path), false, false)
                }
                state.withLock { state in
                    state.discardedThrough = max(state.discardedThrough, state.tip.meta.transaction)
                    state.discardReason = error
                    state.pending = []
                    state.tip = state.publishedTip
                    state.generation += 1
                }
                if metaInFile {
                    // An in-place batch's meta page may be in the page cache, and may yet reach
                    // the disk: the last durable version's meta goes over it, synced, so no
                    // reopen can choose the batch.
                    do {
                        try rewritePublishedMeta(over: newSlot)
                    } catch let retraction as StorageError {
                        let unknown = Self.unknownOutcome(error, retraction)
                        state.withLock { $0.failure = unknown }
                        throw unknown
                    }
                }
                if stopsWrites { state.withLock { $0.failure = error } }
                throw error
            }
            publish(batch: batch.count, meta: meta, tip: last.tip, slot: newSlot)
            if let log, log.recordBytes >= WriteAheadLog.checkpointBytes {
                // The batch is durable and published whatever happens here; a failure stops
                // later writes (the file's state is unknown) but does not undo this commit.
                do {
                    try checkpointLogLocked()
                } catch let error as StorageError {
                    state.withLock { $0.failure = Self.stoppedAfterCommit(error) }
                }
            }
            return (meta.transaction, batch.count)
        }
    }

    /// Makes a durable batch of `count` prepared commits, ending at `meta`, the readers' version.
    private func publish(batch count: Int, meta: MetaPage, tip last: VersionTip, slot: Int) {
        state.withLock { state in
            var tip = last
            tip.meta = meta
            state.published = meta
            state.publishedTip = tip
            state.publishedSlot = slot
            state.pending.removeFirst(count)
            if state.pending.isEmpty { state.tip = tip }
        }
    }

    /// The error later writes get after `error` met a commit that was already durable.
    private static func stoppedAfterCommit(_ error: StorageError) -> StorageError {
        StorageError(error.code, "\(error.message) (after the last commit was saved; the realm takes no more writes until it is reopened)",
                     path: error.path)
    }

    /// The error of a batch that failed with `error` and could not be taken back (`retraction`).
    private static func unknownOutcome(_ error: StorageError, _ retraction: StorageError) -> StorageError {
        StorageError(error.code, "\(error.message); taking the commit back failed too (\(retraction.message)), so whether it was saved is known only after reopening the realm",
                     path: error.path)
    }

    /// How writing a batch failed. Every case but `durable` is thrown to the batch's writers, and
    /// then the batch must not be what a reopen finds.
    private enum BatchFailure: Error {
        /// Nothing of the batch is in either file for recovery to find: it is discarded.
        /// `stopsWrites` after a failed sync, whose page cache is not trusted.
        case discarded(StorageError, stopsWrites: Bool)
        /// An in-place batch's meta page may be in the file (its write failed part-way, or its
        /// sync failed) until a meta naming the last durable version is written over it.
        case metaToRetract(StorageError, stopsWrites: Bool)
        /// The batch is durable (its log record is synced); what failed came after (its meta
        /// page's write to its place). The commit stands; later writes stop.
        case durable(StorageError)
        /// The batch could not be taken back after a failure: whether it is durable is unknown.
        case unknown(StorageError)
    }

    /// Makes the data file hold every logged batch by itself (one sync), then empties the log,
    /// durably: after this, writing the data file outside the log is safe. Does nothing when
    /// the log holds no record. The caller holds the flush lock.
    private func checkpointLogLocked() throws {
        guard let log, let file, log.hasRecords else { return }
        try file.sync()
        let published = state.withLock { $0.published }
        try log.reset(base: published.transaction, fileID: published.fileID)
    }

    /// ``checkpointLogLocked()`` under the flush lock; `shrinking` (a clean close) then cuts the
    /// log file back to its header.
    private func checkpointLog(shrinking: Bool = false) throws {
        try flushLock.withLock { _ in
            try checkpointLogLocked()
            if shrinking { log?.shrink() }
        }
    }

    /// Writes the batch's pages, then the meta page.
    ///
    /// Only the batch's last version becomes readable (the others were never published), so a
    /// page that one commit wrote and a later commit of the batch replaced is skipped: under
    /// group commit, eight one-object commits write one copy of the leaf-to-root path instead of
    /// eight. Nothing can read a skipped page: no published version reaches it, and it may be
    /// reused only after the commit that freed it is durable.
    private func writeBatch(_ batch: [PreparedCommit], meta: MetaPage, slot: Int) throws {
        // The first commit's table as it is (a lone commit's is not copied), then each later
        // commit's pages over it, once the earlier pages it replaced are dropped.
        var pages = batch[0].pages
        for commit in batch.dropFirst() {
            for run in commit.freed where !pages.isEmpty {
                if run.count > UInt64(pages.count) {
                    for (number, _) in pages where number >= run.start && number < run.end { pages[number] = nil }
                } else {
                    for number in run.start..<run.end { pages[number] = nil }
                }
            }
            for (number, page) in commit.pages { pages[number] = page }
        }
        var sorted = pages.map { (key: $0.number, value: $0.page) }
        sorted.sort { $0.key < $1.key }
        let metaPage = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { metaPage.deallocate() }
        meta.encode(into: metaPage)

        // What can fail for want of space or memory comes first, while nothing of the batch is
        // written anywhere: the file is allocated to cover every page the batch writes (so the
        // writes to places below never grow it, and a full disk fails here rather than after a
        // log record, or at a replay), and readers' map covers the version before it is durable.
        // Pages at the end may be allocated yet unwritten (freed again before the commit); the
        // file must still cover the version's page count, or open would call it truncated.
        let end = sorted.last.map { $0.key + UInt64($0.value.pages) } ?? 0
        try file?.extend(toPages: max(meta.pageCount, end))
        try state.withLock { _ in try map.ensureMapped(pageCount: meta.pageCount) }
        if map.isStoredThrough {
            // In memory, the map is the storage; in an encrypted file, it holds the plaintext
            // (readers of the new version then need not decrypt what was just written).
            for (number, page) in sorted {
                map.store(page.pointer, byteCount: page.pages * PageLayout.pageSize, atPage: number)
            }
        }
        guard let file else {
            map.store(metaPage, byteCount: PageLayout.pageSize, atPage: PageNumber(slot))
            return
        }
        // One vectored write per run of consecutive page numbers, then the meta page, in one
        // call (an encrypted file tags the pages of all of them two at a time). The order of
        // writes before the sync does not matter: recovery checks the whole batch (or replays
        // the whole record).
        var groups: [(offset: UInt64, buffers: [iovec])] = []
        var entries: [LogLayout.Entry] = []
        var index = 0
        while index < sorted.count {
            let start = sorted[index].key
            var next = start
            var buffers: [iovec] = []
            while index < sorted.count, sorted[index].key == next {
                let page = sorted[index].value
                buffers.append(iovec(iov_base: page.pointer, iov_len: page.pages * PageLayout.pageSize))
                entries.append(LogLayout.Entry(page: next, pages: UInt64(page.pages), transaction: UnsafeRawPointer(page.pointer).pageTransaction))
                next += UInt64(page.pages)
                index += 1
            }
            groups.append((start << PageLayout.pageShift, buffers))
        }
        groups.append((UInt64(slot) << PageLayout.pageShift, [iovec(iov_base: metaPage, iov_len: PageLayout.pageSize)]))
        entries.append(LogLayout.Entry(page: PageNumber(slot), pages: 1, transaction: meta.transaction))
        defer { map.decryption?.invalidate(PageNumber(slot)) }  // see writeMeta
        let bytes = entries.reduce(0) { $0 + Int($1.pages) } * PageLayout.pageSize
        if let log, bytes <= WriteAheadLog.recordLimit {
            try file.forEachStoredChunk(of: groups, chunkBytes: bytes) { stored in
                do {
                    try log.append(entries: entries, images: stored, transaction: meta.transaction, pageCount: meta.pageCount)
                } catch let error as StorageError {
                    // A failed append is not a valid record (see `WriteAheadLog`).
                    throw BatchFailure.discarded(error, stopsWrites: false)
                }
                // The data pages go to their places while the record travels to the disk (the
                // append started its write-back): they are at page numbers no version recovery
                // can choose uses, as in an in-place batch. The meta page, which names the new
                // version, only once the record is durable.
                precondition(stored.last.map { $0.offset < UInt64(2 * PageLayout.pageSize) } ?? false, "the meta page is written last")
                var failure: (error: StorageError, isSync: Bool)?
                do {
                    try file.writeStored(stored.dropLast())
                } catch let error as StorageError {
                    failure = (error, false)
                }
                if failure == nil {
                    do { try log.sync() } catch let error as StorageError { failure = (error, true) }
                }
                if let failure {
                    // The record is whole in the log's page cache: a reopen would replay it, and
                    // write-back may make it durable. Taken back, the batch did not happen.
                    do {
                        try log.retractLastRecord()
                    } catch let retraction as StorageError {
                        throw BatchFailure.unknown(Self.unknownOutcome(failure.error, retraction))
                    }
                    throw BatchFailure.discarded(failure.error, stopsWrites: failure.isSync)
                }
                do {
                    try file.writeStored(stored.suffix(1))
                } catch let error as StorageError {
                    throw BatchFailure.durable(error)
                }
            }
        } else {
            do {
                // Nothing of the batch is written yet; a failure leaves the log as it was, or
                // empty with the data file synced.
                try checkpointLogLocked()
            } catch let error as StorageError {
                throw BatchFailure.discarded(error, stopsWrites: true)
            }
            do {
                try file.write(groups: Array(groups.dropLast()))
            } catch let error as StorageError {
                throw BatchFailure.discarded(error, stopsWrites: false)
            }
            do {
                // A write that fails may still have written some of the page: all of the new
                // meta's fields, as the bytes it did not write (a no-replication meta's zeros,
                // the file id) are those of the version it overwrites.
                try file.write(groups: Array(groups.suffix(1)))
            } catch let error as StorageError {
                throw BatchFailure.metaToRetract(error, stopsWrites: false)
            }
            do {
                if options.durability == .full { try file.sync() }
            } catch let error as StorageError {
                throw BatchFailure.metaToRetract(error, stopsWrites: true)
            }
        }
    }

    /// Writes a meta page into its slot. Nothing reads meta pages through the map after the
    /// open, but an encrypted map's plaintext of the slot is dropped, so that it never differs
    /// from the file.
    private func writeMeta(_ page: UnsafeRawPointer, slot: Int, to file: PageFile) throws {
        defer { map.decryption?.invalidate(PageNumber(slot)) }
        try file.write(UnsafeRawBufferPointer(start: page, count: PageLayout.pageSize), at: UInt64(slot) << PageLayout.pageShift)
    }

    /// Writes the published version's meta page into `slot`, the other one, and syncs: takes
    /// back an in-place batch's meta page that a failed write or sync left there. Both slots
    /// then name the same version; in an encrypted file, the published transaction's counter at
    /// `slot` only ever encrypts this same page (every other meta written there has its own
    /// id). The next batch writes its meta into `slot` again.
    private func rewritePublishedMeta(over slot: Int) throws {
        guard let file else { return }
        let published = state.withLock { $0.published }
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        published.encode(into: page)
        try writeMeta(page, slot: slot, to: file)
        if options.durability == .full { try file.sync() }
    }

    /// Records that the newest version is durable, so the next open need not verify its batch.
    ///
    /// Opening verifies every page the newest meta's batch wrote (a crash may have torn it); after
    /// a bulk load that is the whole file. A closing database knows its last sync succeeded, so it
    /// writes the same version again as transaction `T + 1` with durable base `T` into the other
    /// meta slot: nothing is newer than the durable base, and open checks nothing. Costs one sync.
    ///
    /// `force` writes it even when the newest version needs no verification, to raise the
    /// newest durable id (see ``idReserve``). Takes the flush lock: it writes a meta slot.
    private func writeCheckpoint(force: Bool = false) throws {
        guard file != nil else { return }
        try flushLock.withLock { _ in try writeCheckpointLocked(force: force) }
    }

    private func writeCheckpointLocked(force: Bool) throws {
        guard let file else { return }
        // With commits pending, a meta naming the published content under a newer id than
        // theirs would hide them on the next open; callers flush first.
        let (published, slot, next, pending) = state.withLock { ($0.published, $0.publishedSlot, $0.nextTransaction, $0.pending.count) }
        guard pending == 0, force || published.durableBase < published.transaction else { return }
        // A meta written in place: the log must hold nothing a replay would write over it.
        try checkpointLogLocked()
        var checkpoint = published
        checkpoint.transaction = max(published.transaction + 1, next)
        checkpoint.durableBase = published.transaction
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        checkpoint.encode(into: page)
        try writeMeta(page, slot: 1 - slot, to: file)
        if options.durability == .full { try file.sync() }
        state.withLock { state in
            state.published = checkpoint
            state.publishedTip.meta = checkpoint
            state.publishedSlot = 1 - slot
            state.nextTransaction = checkpoint.transaction + 1
            if state.pending.isEmpty { state.tip.meta = checkpoint }
        }
    }

    /// Flushes pending commits, then releases the lock file so the file may be opened again.
    ///
    /// - Throws: `.wrongTransactionState` while a read or write transaction is alive (another
    ///   instance could otherwise reuse pages they still read); the sync failure that stopped
    ///   writes, or a failure of the final flush, after releasing the file. Later calls do nothing.
    package func close() throws {
        try state.withLock { state in
            guard !state.writerActive, state.pins.isEmpty else {
                throw StorageError(.wrongTransactionState,
                                   "Cannot close the database while transactions are open (\(state.pins.values.reduce(0, +)) readers)",
                                   path: path)
            }
        }
        let failure = state.withLock { $0.failure }
        var closeError: (any Error)? = failure
        if !options.readOnly && failure == nil {
            do {
                try flush()
                try checkpointLog(shrinking: true)
                try writeCheckpoint()
            } catch {
                closeError = error
            }
        }
        let alreadyClosed = state.withLock { state in
            defer { state.isClosed = true }
            return state.isClosed
        }
        if !alreadyClosed, lockDescriptor >= 0 { _ = flock(lockDescriptor, LOCK_UN) }
        // After a failed sync the last commits may not be on disk: closing says so rather than
        // pretending all is well, but still releases the file.
        if !alreadyClosed, let closeError { throw closeError }
    }
}

/// `open(2)` (close-on-exec), under a name that `Database.open` does not shadow.
func openDescriptor(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    #if canImport(Glibc)
    Glibc.open(path, flags | O_CLOEXEC, mode)
    #else
    Darwin.open(path, flags | O_CLOEXEC, mode)
    #endif
}

/// Pages of a version being recovered: straight from the map, bounded by the meta's page count.
struct RecoverySource: PageSource {
    let map: PageMap
    let pageLimit: UInt64
    func page(_ number: PageNumber) -> UnsafeRawPointer { map.pointer(number) }
}
