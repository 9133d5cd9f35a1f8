#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Opening a database (see `Database`): the lock file, creating a new file atomically, telling
// an encrypted file's key, replaying the write-ahead log (onto the file, or into memory for a
// read-only open) and recovery's choice of the version to open at. All of it runs before the
// `Database` exists, so nothing here takes its state lock.
extension Database {
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
                        lockFile: nil, meta: meta, slot: 0, tip: tip, nextTransaction: meta.transaction + 1)
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
        // Attaching holds the lock file's control lock until the open ends: when this process is
        // the first, nobody else reads the file while it is created, replayed and recovered.
        let lock = try LockFile.attach(path: path + AuxiliaryFile.lock.suffix, readOnly: options.readOnly,
                                       sharesWriting: options.sharesWriting, keepingOthersOut: options.keepsOthersOut)
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
            // The user's key is not kept: the cipher holds what was derived from it, and
            // ``isOpened(withKey:)`` tells another key from this one by the file's key check.
            var kept = options
            kept.encryptionKey = nil
            if options.readOnly, !lock.isFirst, let published = lock.publishedVersion(unless: nil) {
                return try follower(of: file, lock: lock, published: published, options: kept)
            }
            if options.sharesWriting, !lock.isFirst, lock.anotherWriterIsAttached() {
                return try writer(beside: file, lock: lock, options: kept)
            }
            // A writer joining read-only processes: the pages their pins hold stay out of its free
            // list, and it must not go back from what they read (a version is published only once
            // durable, so recovery finds it or a newer one — unless the file lost it).
            let joining = !options.readOnly && !lock.isFirst
            let published = joining ? lock.publishedVersion(unless: nil) : nil
            let log: WriteAheadLog?
            let map: PageMap
            let replayed: Int
            var replayedPages: UInt64 = 0
            do {
                if options.readOnly {
                    log = nil
                    let (replayMap, count, pages) = try replayLogInMemory(of: file, cipher: cipher)
                    // Nothing replayed: the file itself holds the version, so the map is the
                    // file's own (shared), and this reader can follow a writer that joins later.
                    (map, replayed, replayedPages) = (count == 0 ? PageMap(descriptor: descriptor, cipher: cipher) : replayMap, count, pages)
                } else {
                    (log, replayed) = try openLog(of: file, cipher: cipher, options: options,
                                                  published: published?.meta.transaction ?? 0)
                    map = PageMap(descriptor: descriptor, cipher: cipher)
                }
            } catch {
                file.close()
                throw error
            }
            var pins = joining ? lock.otherProcessesPins() : []
            if let published {
                // The published version counts as pinned until this writer's first transaction
                // scans the slots again: until the publish below, a reader may adopt it and pin it
                // after the scan above, and that pin's re-check (`beginRead`) passes — so when
                // recovery finds a newer version (the dead writer's last commit, durable but not
                // published), the pages that commit freed must wait for a scan after the publish.
                pins = pins.union(PinSet(exact: [published.meta.transaction]))
            }
            let (meta, slot, tip, newestStamped) = try recover(file: file, map: map, minimumPages: replayedPages, pins: pins)
            if let published, published.meta.transaction > meta.transaction {
                throw StorageError(.invalidDatabase,
                                   "The realm file's newest version is \(meta.transaction), but other processes read version \(published.meta.transaction): the file lost commits",
                                   path: path)
            }
            // Readers of other processes may begin at the recovered version — unless a log was
            // replayed only into this process's memory, whose pages the file does not hold (they
            // then recover for themselves). Published before the control lock goes: a process
            // attaching next must not find a writer without a version to follow.
            //
            // Readers of an encrypted file that this writer joins may hold decrypted pages that
            // the replay or the recovered version (a dead writer's last commit, durable but never
            // published) wrote; no ring entry names them, so one run over the whole file makes
            // every reader forget what it decrypted.
            let rewroteUnderReaders = joining && cipher != nil && (replayed > 0 || meta.transaction != published?.meta.transaction)
            if !options.readOnly || (lock.isFirst && replayed == 0) {
                lock.publish(meta, slot: slot, written: rewroteUnderReaders ? [PageRun(start: 0, count: meta.pageCount)] : [])
            }
            do {
                try lock.finishAttaching(dataFile: descriptor, fileID: meta.fileID, encrypted: cipher != nil)
            } catch {
                file.close()
                throw error
            }
            let nextTransaction = newestStamped + idReserve + 1
            if options.sharesWriting {
                // Recovered with no writer attached: whatever a dead owner left is taken back, and
                // the next owner continues from here.
                lock.clearOwner()
                lock.storeWriterState(nextTransaction: nextTransaction, logCursor: log?.sharedCursor)
            }
            let database = Database(path: path, options: kept, map: map, file: file, log: log, recordsReplayed: replayed,
                                    lockFile: lock, meta: meta, slot: slot, tip: tip, nextTransaction: nextTransaction)
            if options.sharesWriting {
                database.state.withLock { state in
                    state.tipCounter = lock.publishCounter
                    state.adoptedCounter = state.tipCounter
                    state.ringSeen = lock.ringHead  // its own cache holds what it wrote
                }
            }
            // A reader that published what it opened follows the versions published after it.
            if options.readOnly, replayed == 0, let published = lock.publishedVersion(unless: nil) {
                database.state.withLock { state in
                    state.adoptedCounter = published.counter
                    state.ringSeen = lock.ringHead
                }
            }
            return database
        } catch {
            lock.abandon()
            throw error
        }
    }

    /// A read-only open beside processes that published a version (a writing process, or a reader
    /// that recovered the file alone): it neither replays the log nor runs recovery — the file is
    /// another process's to change — but begins at the published version and adopts each newer
    /// one when a reader begins (``beginRead()``). Its free-page figures are those of no version:
    /// it never writes, and does not read the free list.
    private static func follower(of file: PageFile, lock: LockFile, published: (meta: MetaPage, slot: Int, counter: UInt64),
                                 options: DatabaseOptions) throws -> Database {
        do {
            try lock.finishAttaching(dataFile: file.descriptor, fileID: published.meta.fileID, encrypted: file.cipher != nil)
            try checkPublished(published.meta, fileSize: try file.size(), path: file.path)
            let map = PageMap(descriptor: file.descriptor, cipher: file.cipher)
            try map.ensureMapped(pageCount: published.meta.pageCount)
            let tip = VersionTip(meta: published.meta, freeList: FreeList(), chain: FreeListChain())
            let database = Database(path: file.path, options: options, map: map, file: file, lockFile: lock,
                                    meta: published.meta, slot: published.slot, tip: tip,
                                    nextTransaction: published.meta.transaction + 1)
            database.state.withLock { state in
                state.adoptedCounter = published.counter
                state.ringSeen = lock.ringHead  // nothing decrypted yet
            }
            return database
        } catch {
            file.close()
            throw error
        }
    }

    /// A writable open beside other writing processes (all of them `sharesWriting`): no replay and
    /// no recovery — the files are the owner's to change, and a dead owner's successor recovers
    /// them (warm recovery) — but the published version, and a log opened for appending once
    /// this process owns writing. The write tip is built from the file then
    /// (`Database+WriteOwnership.swift`).
    private static func writer(beside file: PageFile, lock: LockFile, options: DatabaseOptions) throws -> Database {
        do {
            let published = try lock.requirePublishedVersion(path: file.path)
            try lock.finishAttaching(dataFile: file.descriptor, fileID: published.meta.fileID, encrypted: file.cipher != nil)
            try checkPublished(published.meta, fileSize: try file.size(), path: file.path)
            let logPath = file.path + AuxiliaryFile.log.suffix
            let log = options.writeAheadLog && options.durability == .full
                ? try WriteAheadLog.openJoining(path: logPath, file: file, faults: options.faults) : nil
            let map = PageMap(descriptor: file.descriptor, cipher: file.cipher)
            try map.ensureMapped(pageCount: published.meta.pageCount)
            let tip = VersionTip(meta: published.meta, freeList: FreeList(), chain: FreeListChain())
            let database = Database(path: file.path, options: options, map: map, file: file, log: log, lockFile: lock,
                                    meta: published.meta, slot: published.slot, tip: tip,
                                    nextTransaction: published.meta.transaction + 1)
            database.state.withLock { state in
                state.adoptedCounter = published.counter
                state.tipCounter = published.counter
                state.tipIsStale = true
                state.ringSeen = lock.ringHead  // nothing decrypted yet
            }
            return database
        } catch {
            file.close()
            throw error
        }
    }

    /// Replays the write-ahead log's records onto the file (a writable open); returns the log if
    /// this database writes through one, and how many records were replayed. Runs before
    /// anything maps the file: the pages recovery reads must be the replayed ones.
    /// `published`: the version published to the read-only processes a writer joins (0 if none),
    /// whose records are in the file already (see `WriteAheadLog.openForWriting`).
    private static func openLog(of file: PageFile, cipher: PageCipher?, options: DatabaseOptions,
                                published: TransactionID) throws -> (WriteAheadLog?, Int) {
        let path = file.path + AuxiliaryFile.log.suffix
        let uses = options.writeAheadLog && options.durability == .full
        guard uses || access(path, F_OK) == 0 else { return (nil, 0) }
        let (log, replayed) = try WriteAheadLog.openForWriting(path: path, file: file, faults: options.faults,
                                                              isAuthentic: isAuthentic(cipher),
                                                              dataFile: { metaState(of: file, cipher: cipher) },
                                                              published: published)
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
    private static func recover(file: PageFile, map: PageMap, minimumPages: UInt64 = 0,
                                pins: PinSet = []) throws -> (MetaPage, Int, VersionTip, TransactionID) {
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
                    throw StorageError(.invalidDatabase, MetaPage.obsoleteFormatMessage(version), path: path)
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
                var (freeList, chain) = try FreeListChain.decode(head: meta.freeList, version: meta.transaction,
                                                                 pageCount: meta.pageCount, page: snapshot.page)
                // The stored runs that were not yet reusable wait for the versions that see
                // them: the version opened is durable, and none of this process's readers has
                // pinned anything yet, so what still holds a run is `pins` — other processes'
                // readers and the version published to them, when a writer joins them (none when
                // this process is the first).
                freeList.release(pins: pins, durable: meta.transaction)
                return (meta, slot, VersionTip(meta: meta, freeList: freeList, chain: chain), valid[0].1.transaction)
            } catch let error as StorageError {
                reasons.append("version \(meta.transaction): \(error.message)")
            }
        }
        throw StorageError(.invalidDatabase,
                           "The realm file is corrupt or truncated: " + reasons.joined(separator: "; "), path: path)
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
