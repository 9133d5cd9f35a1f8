#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CRealmSync

/// `<file>.lock`: what the processes that have a database file open share — who is attached, the
/// published version, the write lock and what its owner hands the next (the log's cursor, ids). A
/// small file mapped `MAP_SHARED` by every attached process (layout: ``LockFileLayout``,
/// FORMAT.md "The lock file"), plus locks on it:
///
/// - a shared `flock` for as long as a process is attached. `flock(LOCK_EX | LOCK_NB)` succeeds
///   exactly when no other process is attached: the one that gets it is *first*, initializes the
///   lock file and runs recovery (nobody else can be reading or writing the data file). Library
///   versions from before the shared lock file take `LOCK_EX` for a writable open, so they and
///   this version exclude each other cleanly.
/// - the *control* byte lock, held while a process attaches (from ``attach(path:readOnly:)``
///   until ``finishAttaching(dataFile:fileID:encrypted:)`` or ``abandon()``) or detaches: at most
///   one process at a time initializes, claims or clears a slot, or decides it is the last one.
/// - one *liveness* byte lock per process slot, held by the slot's process while attached: the
///   kernel releases it when the process dies, so a slot marked attached whose byte nobody holds
///   is a dead process's, and is cleared (LMDB's reader-table check, by lock instead of by pid).
///
/// One process writes, unless every writing process opens with `sharesWriting`: then they take
/// turns owning writing (`LockFile+Writing.swift`; the write byte lock). Otherwise a writable
/// open is refused while another process writing is attached. Read-only processes attach beside each other and beside
/// the writer, whose durable versions they follow (`LockFile+Versions.swift`; an encrypted file's
/// too, forgetting the decrypted pages each publish wrote), and a writer may join read-only
/// processes (a service restarting while a tool reads).
///
/// A process that forks shares its open file descriptions, and with them these locks, with the
/// child until the child's `exec` closes them (every descriptor here is close-on-exec): a file
/// another process has just closed, or whose process just died, can look attached for a moment,
/// so conflicts are retried for about 100 ms before they are reported.
///
/// Thread safety: `phase` is guarded by its mutex. The mapping stays mapped until the instance
/// goes (reads after detaching see stale words, never unmapped memory). It is shared with other processes;
/// every word of it is read and written with `CRealmSync`'s atomic accesses, and a slot or the
/// header only under the control lock (so two writers of one field never race).
package final class LockFile: @unchecked Sendable {
    // @unchecked Sendable: `descriptor`, `mapping` and `slot` are set before the instance is
    // shared and never change; the mapping stays mapped until `detach`/`abandon`, which the owning
    // `Database` calls once, after its last use; what changes (`phase`) is behind a mutex.
    package let path: String
    /// -1: no lock file (read-only media without one: nobody can write the file). Internal for
    /// the extensions (the write lock is a byte lock on it).
    let descriptor: Int32
    /// The shared mapping; nil for a read-only open without write access to the lock file, which
    /// holds only the shared `flock` (see ``attachWithoutWriteAccess(path:descriptor:)``).
    private let mapping: UnsafeMutableRawPointer?
    /// Whether no other process had the file attached when this one attached: this process
    /// initialized the lock file, and its open ran recovery (and log replay) alone.
    package let isFirst: Bool
    private let readOnly: Bool
    /// Whether this process writes beside other writing processes (slot flag `sharesWriting`).
    package let sharesWriting: Bool
    private let phase: Lock<Phase>
    /// Whether `mapping` is still mapped: it is unmapped once, when the instance goes (or when
    /// an instance that never attached is dropped), never while a thread may read it — detaching
    /// keeps it, so late readers (a pin released after `close()`, a waiter) read harmless words.
    private let isMapped = Lock(true)
    /// How many watchers of this process the lock file's watcher count holds (see
    /// ``watcherStarted()``); changed only under `phase`'s lock, so detaching takes them out.
    let localWatchers = Lock(0)
    /// The ownership epoch when this process last gave write ownership up, and whether it gave
    /// it up to a waiting process (its turn was over), until it takes it again (see
    /// ``acquireWriteOwnership(waiting:)``): nil while it owns writing or never did.
    let lastRelease = Lock<(epoch: UInt32, handingOver: Bool)?>(nil)
    /// Whether a live process writing the file was attached when this one joined (under the
    /// control lock, which this process holds until it finishes attaching: nobody attaches or
    /// detaches meanwhile). False for the first process.
    private let joinedWriters = Lock(false)
    /// Whether this process keeps the control lock from attaching until it detaches (see
    /// ``attach(path:readOnly:sharesWriting:keepingOthersOut:)``).
    private let keepsOthersOut = Lock(false)

    private enum Phase {
        /// Holding the control lock (and, if first, the exclusive `flock`).
        case attaching
        case attached(slot: Int)
        case detached
    }

    private init(path: String, descriptor: Int32, mapping: UnsafeMutableRawPointer?, isFirst: Bool, readOnly: Bool,
                 sharesWriting: Bool = false, phase: Phase) {
        self.path = path
        self.descriptor = descriptor
        self.mapping = mapping
        self.isFirst = isFirst
        self.readOnly = readOnly
        self.sharesWriting = sharesWriting
        self.phase = Lock(phase)
    }

    deinit {
        // `Database` detaches in `close()` or its `deinit`; this only covers an instance dropped
        // on a path that forgot to (the kernel would release the locks with the descriptor).
        abandon()
        unmap()
    }

    // MARK: Attaching

    /// Opens (creating if needed) the lock file at `path` and starts attaching this process: on
    /// return it holds the control lock, so no other process attaches or detaches until
    /// ``finishAttaching(dataFile:fileID:encrypted:)`` or ``abandon()``. If ``isFirst``, the
    /// caller may create, replay and recover the data file alone.
    ///
    /// `keepingOthersOut`: attaches only as the first process, and keeps the control lock until
    /// it detaches, so no other process attaches meanwhile (their attaching waits): for work that
    /// replaces the data file, such as compaction on launch, which a process attaching during it
    /// would otherwise follow in the file being replaced.
    ///
    /// - Throws: `.incompatibleLockFile` when another process has the file open in a way this one
    ///   cannot join (a writer, a reader beside this writer, an older library version, a lock
    ///   file of another layout); `.alreadyOpen` when `keepingOthersOut` and another process has
    ///   it open; `.filePermissionDenied` and the like when the lock file cannot be opened.
    package static func attach(path: String, readOnly: Bool, sharesWriting: Bool = false,
                               keepingOthersOut: Bool = false) throws -> LockFile {
        var attempts = 0
        while true {
            do {
                return try attemptAttach(path: path, readOnly: readOnly, sharesWriting: sharesWriting,
                                         keepingOthersOut: keepingOthersOut)
            } catch let conflict as Conflict {
                // Transient holders (a forking process's child between fork and exec, a process
                // dying) go within milliseconds; a real one is reported after about 100 ms.
                attempts += 1
                guard attempts < 50 else { throw StorageError(.incompatibleLockFile, conflict.message, path: path) }
                usleep(2_000)
            }
        }
    }

    /// Why attaching failed this time; retried, then reported.
    private struct Conflict: Error {
        var message: String
    }

    private static func attemptAttach(path: String, readOnly: Bool, sharesWriting: Bool, keepingOthersOut: Bool) throws -> LockFile {
        let descriptor = openDescriptor(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if readOnly {
                let readable = openDescriptor(path, O_RDONLY)
                // Read-only media without a lock file: nobody can write the file.
                guard readable >= 0 else { return LockFile(path: path, descriptor: -1, mapping: nil, isFirst: true, readOnly: true, phase: .attached(slot: -1)) }
                return try attachWithoutWriteAccess(path: path, descriptor: readable)
            }
            throw StorageError.fromErrno(code, "Could not open the lock file", path: path)
        }
        var keep = false
        defer { if !keep { closeDescriptor(descriptor) } }
        let code = realm_lock_byte(descriptor, LockFileLayout.controlLock, 1, 1)
        guard code == 0 else { throw StorageError.fromErrno(code, "Could not lock the lock file", path: path) }
        // Whoever deletes the realm's files does so holding the control lock and no other process
        // attached; if that happened while this process waited for the lock, its descriptor names
        // an unlinked file, and attaching to it would share nothing with later processes.
        guard isStillAt(path: path, descriptor: descriptor) else {
            _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock)
            throw Conflict(message: "The lock file was replaced while this process opened it")
        }
        do {
            let lockFile: LockFile
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                lockFile = try initializeAlone(path: path, descriptor: descriptor, readOnly: readOnly, sharesWriting: sharesWriting)
                lockFile.keepsOthersOut.withLock { $0 = keepingOthersOut }
            } else if keepingOthersOut {
                throw StorageError(.alreadyOpen, "The realm file is open in another process", path: path)
            } else {
                lockFile = try join(path: path, descriptor: descriptor, readOnly: readOnly, sharesWriting: sharesWriting)
            }
            keep = true
            return lockFile
        } catch {
            _ = flock(descriptor, LOCK_UN)
            _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock)
            throw error
        }
    }

    /// Whether `descriptor` is the file now at `path`.
    private static func isStillAt(path: String, descriptor: Int32) -> Bool {
        var opened = stat()
        var current = stat()
        guard fstat(descriptor, &opened) == 0, stat(path, &current) == 0 else { return false }
        return opened.st_dev == current.st_dev && opened.st_ino == current.st_ino
    }

    /// Nobody else is attached: the lock file's old contents (a previous session's, a crashed
    /// process's, an older layout's) mean nothing, so it is cleared and sized anew.
    private static func initializeAlone(path: String, descriptor: Int32, readOnly: Bool, sharesWriting: Bool) throws -> LockFile {
        // Sized, then cleared through the mapping — never cut short first: an instance of this
        // process that detached from the same lock file keeps its mapping (a watcher thread may
        // still read a word of it), and a page of a mapping past the file's end is SIGBUS.
        guard ftruncate(descriptor, off_t(LockFileLayout.size)) == 0 else {
            throw StorageError.fromErrno(errno, "Could not initialize the lock file", path: path)
        }
        let mapping = try map(descriptor: descriptor, path: path, writable: true)
        // Whole words, as every other access to the shared mapping (nobody else is attached).
        for offset in stride(from: 0, to: LockFileLayout.size, by: 8) { realm_shared_store(mapping + offset, 0) }
        return LockFile(path: path, descriptor: descriptor, mapping: mapping, isFirst: true, readOnly: readOnly,
                        sharesWriting: sharesWriting, phase: .attaching)
    }

    /// Other processes are attached (or something holds the `flock`): joins them if the lock file
    /// is one this library shares and its policy allows.
    private static func join(path: String, descriptor: Int32, readOnly: Bool, sharesWriting: Bool) throws -> LockFile {
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
            throw Conflict(message: "The realm file is open in another process by an older version of RealmActors, which does not share it")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StorageError.fromErrno(errno, "Could not read the lock file", path: path) }
        guard info.st_size >= off_t(LockFileLayout.size) else { throw outsider() }
        let mapping = try map(descriptor: descriptor, path: path, writable: true)
        let lockFile = LockFile(path: path, descriptor: descriptor, mapping: mapping, isFirst: false, readOnly: readOnly,
                                sharesWriting: sharesWriting, phase: .attaching)
        do {
            guard lockFile.word(at: LockFileLayout.magicOffset) == LockFileLayout.magic,
                  lockFile.word(at: LockFileLayout.sizeOffset) == UInt64(LockFileLayout.size),
                  lockFile.word(at: LockFileLayout.sessionOffset) != 0 else { throw outsider() }
            let layout = lockFile.word(at: LockFileLayout.versionOffset)
            guard layout == LockFileLayout.version else {
                throw StorageError(.incompatibleLockFile,
                                   "The realm file is open in another process whose lock file has layout \(layout); this version of RealmActors shares layout \(LockFileLayout.version)",
                                   path: path)
            }
            let live = lockFile.liveSlots()
            // A `flock` holder with no live slot is outside the protocol: an older library reading
            // the file, a read-only open without write access to the lock file, or a transient one.
            guard !live.isEmpty else { throw outsider() }
            let writers = live.map { lockFile.flags(ofSlot: $0) }.filter { $0.contains(.writer) }
            lockFile.joinedWriters.withLock { $0 = !writers.isEmpty }
            // Writers take turns only if every one of them shares writing. An encrypted file is
            // no exception: each process forgets the decrypted pages another process's publish
            // wrote (the written-pages ring), whether it reads or writes.
            if !readOnly && !writers.isEmpty && !(sharesWriting && writers.allSatisfy { $0.contains(.sharesWriting) }) {
                throw Conflict(message: "The realm file is open in another process, which writes it without sharing writing; RealmActors supports one writing process per file there")
            }
            return lockFile
        } catch {
            lockFile.disown()
            throw error
        }
    }

    /// Drops the mapping of an instance that never attached, leaving the descriptor and its locks
    /// to the caller that opened them.
    private func disown() {
        phase.withLock { $0 = .detached }
    }

    private static func outsider() -> Conflict {
        Conflict(message: "The realm file is open in another process that does not share it (an older version of RealmActors, or a read-only open without write access to the lock file)")
    }

    /// A read-only open that cannot write the lock file (another user's, on a read-only mount):
    /// it cannot take a slot, so it reads only when no participating process is attached — as
    /// before the shared lock file — holding the shared `flock`, which keeps participants out.
    private static func attachWithoutWriteAccess(path: String, descriptor: Int32) throws -> LockFile {
        var keep = false
        defer { if !keep { closeDescriptor(descriptor) } }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
            throw Conflict(message: "The realm file is open for writing in another process; it can be read only when no process writes it")
        }
        // A participant attaching meanwhile holds the control lock; a shared lock on it (read
        // access suffices) waits for that to finish.
        let code = realm_lock_byte(descriptor, LockFileLayout.controlLock, 0, 1)
        defer { _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock) }
        var info = stat()
        if code == 0, fstat(descriptor, &info) == 0, info.st_size >= off_t(LockFileLayout.size) {
            let mapping = try map(descriptor: descriptor, path: path, writable: false)
            let view = LockFile(path: path, descriptor: -1, mapping: mapping, isFirst: false, readOnly: true, phase: .detached)
            let attached = view.word(at: LockFileLayout.sessionOffset) != 0 && !view.liveSlots(probingWith: descriptor).isEmpty
            view.disown()  // unmapped when it goes
            guard !attached else {
                _ = flock(descriptor, LOCK_UN)
                throw StorageError(.incompatibleLockFile,
                                   "The realm file is open in another process; opening it read-only beside other processes needs write access to its lock file",
                                   path: path)
            }
        }
        keep = true
        return LockFile(path: path, descriptor: descriptor, mapping: nil, isFirst: true, readOnly: true, phase: .attached(slot: -1))
    }

    private static func map(descriptor: Int32, path: String, writable: Bool) throws -> UnsafeMutableRawPointer {
        let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard let address = mmap(nil, LockFileLayout.size, protection, MAP_SHARED, descriptor, 0),
              address != MAP_FAILED else {
            throw StorageError.fromErrno(errno, "Could not map the lock file", path: path)
        }
        return address
    }

    /// Completes attaching: the first process records the data file and opens the session;
    /// a joiner checks it opened the same data file as the others. Then claims a slot and
    /// releases the control lock.
    ///
    /// - Parameters:
    ///   - dataFile: the data file's descriptor (for its device and inode).
    ///   - fileID: the data file's id (its meta page's).
    /// - Throws: `.incompatibleLockFile` if the data file at the path is not the one the attached
    ///   processes have open (replaced meanwhile), or the slot table is full. The caller then
    ///   calls ``abandon()``.
    package func finishAttaching(dataFile: Int32, fileID: UInt64, encrypted: Bool) throws {
        guard mapping != nil, case .attaching = phase.withLock({ $0 }) else { return }
        var info = stat()
        guard fstat(dataFile, &info) == 0 else { throw StorageError.fromErrno(errno, "Could not read the realm file's identity", path: path) }
        let device = UInt64(truncatingIfNeeded: info.st_dev)
        let inode = UInt64(truncatingIfNeeded: info.st_ino)
        if isFirst {
            setWord(LockFileLayout.magic, at: LockFileLayout.magicOffset)
            setWord(LockFileLayout.version, at: LockFileLayout.versionOffset)
            setWord(UInt64(LockFileLayout.size), at: LockFileLayout.sizeOffset)
            setWord(device, at: LockFileLayout.dataDeviceOffset)
            setWord(inode, at: LockFileLayout.dataInodeOffset)
            setWord(fileID, at: LockFileLayout.dataFileIDOffset)
            setWord(encrypted ? 1 : 0, at: LockFileLayout.encryptedOffset)
            setWord(UInt64(LockFileLayout.slotCount), at: LockFileLayout.slotCountOffset)
            var generator = SystemRandomNumberGenerator()
            setWord(max(1, generator.next()), at: LockFileLayout.sessionOffset)
            // Not atomic on Linux (the exclusive lock is dropped, then the shared one taken): an
            // older library can take `LOCK_EX` in between, and then this open fails cleanly.
            guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
                throw StorageError(.incompatibleLockFile, "The realm file was opened meanwhile by an older version of RealmActors, which does not share it", path: path)
            }
        } else {
            guard word(at: LockFileLayout.dataDeviceOffset) == device, word(at: LockFileLayout.dataInodeOffset) == inode,
                  word(at: LockFileLayout.dataFileIDOffset) == fileID else {
                throw StorageError(.incompatibleLockFile,
                                   "The realm file was replaced while other processes had it open: they use the file that was at this path before",
                                   path: path)
            }
        }
        let slot = try claimSlot()
        phase.withLock { $0 = .attached(slot: slot) }
        if !keepsOthersOut.withLock({ $0 }) { _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock) }
    }

    /// A free slot, or a dead process's, taken for this process.
    private func claimSlot() throws -> Int {
        for slot in 0..<LockFileLayout.slotCount {
            let state = word(at: slotOffset(slot) + LockFileLayout.slotStateOffset)
            if state != LockFileLayout.SlotState.free.rawValue && isHeld(slot: slot) { continue }
            // Free or dead. Its byte is unheld, so this lock succeeds unless another process took
            // it in between — impossible under the control lock, but a transient fork holder is.
            guard realm_lock_byte(descriptor, LockFileLayout.livenessLock(ofSlot: slot), 1, 0) == 0 else { continue }
            let base = slotOffset(slot)
            setWord(UInt64(UInt32(bitPattern: getpid())), at: base + LockFileLayout.slotPIDOffset)
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            setWord(UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec), at: base + LockFileLayout.slotAttachedAtOffset)
            let flags: LockFileLayout.SlotFlags = readOnly ? [] : sharesWriting ? [.writer, .sharesWriting] : .writer
            setWord(flags.rawValue, at: base + LockFileLayout.slotFlagsOffset)
            setWord(LockFileLayout.SlotState.attached.rawValue, at: base + LockFileLayout.slotStateOffset)
            if UInt64(slot) >= word(at: LockFileLayout.slotHighWaterOffset) {
                setWord(UInt64(slot + 1), at: LockFileLayout.slotHighWaterOffset)
            }
            return slot
        }
        throw StorageError(.incompatibleLockFile, "The realm file is open in \(LockFileLayout.slotCount) processes, the most that can share it", path: path)
    }

    /// Gives up attaching (or, if attached, detaches without the last-process bookkeeping):
    /// releases the slot, the locks and the mapping. Safe to call more than once.
    package func abandon() {
        let previous = markDetached()
        switch previous {
        case .detached:
            return
        case .attaching:
            _ = flock(descriptor, LOCK_UN)
            _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock)
        case .attached(let slot):
            if slot >= 0 { release(slot: slot) }
            _ = flock(descriptor, LOCK_UN)
            if keepsOthersOut.withLock({ $0 }) { _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock) }
        }
        wakeWaiters()
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Runs `body` while no process has the file attached and none can attach — holding the
    /// lock file's control lock and its exclusive `flock` — and returns what it returns; returns
    /// nil without running it while a process is attached. For work that must not meet an open
    /// file, such as deleting it: an open that waited meanwhile finds, once it gets the control
    /// lock, that the lock file it opened is no longer the one at the path, and starts again.
    ///
    /// A lock file that cannot be created (a missing directory, read-only media) means no process
    /// can be attached through it: `body` runs without the locks.
    package static func whileDetached<T>(path: String, _ body: () throws -> T) throws -> T? {
        var attempts = 0
        while true {
            let descriptor = openDescriptor(path, O_RDWR | O_CREAT, 0o644)
            guard descriptor >= 0 else { return try body() }
            defer { closeDescriptor(descriptor) }
            let code = realm_lock_byte(descriptor, LockFileLayout.controlLock, 1, 1)
            guard code == 0 else { throw StorageError.fromErrno(code, "Could not lock the lock file", path: path) }
            defer { _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock) }
            if isStillAt(path: path, descriptor: descriptor), flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                defer { _ = flock(descriptor, LOCK_UN) }
                return try body()
            }
            // Attached, or transiently held (see the type's notes), or replaced meanwhile.
            attempts += 1
            guard attempts < 50 else { return nil }
            usleep(2_000)
        }
    }

    // MARK: Detaching

    /// Detaches this process: clears its slot and releases its locks; if no other process is
    /// attached, also closes the session. Safe to call more than once.
    ///
    /// - Returns: whether this was the last attached process.
    @discardableResult
    package func detach() -> Bool {
        guard mapping != nil, case .attached(let slot) = phase.withLock({ $0 }) else {
            abandon()
            return false
        }
        guard realm_lock_byte(descriptor, LockFileLayout.controlLock, 1, 1) == 0 else {
            abandon()  // cannot happen on a descriptor that locked before; the kernel cleans up
            return false
        }
        markDetached()
        release(slot: slot)
        _ = flock(descriptor, LOCK_UN)
        let isLast = flock(descriptor, LOCK_EX | LOCK_NB) == 0
        if isLast {
            setWord(0, at: LockFileLayout.sessionOffset)
            _ = flock(descriptor, LOCK_UN)
        }
        _ = realm_unlock_byte(descriptor, LockFileLayout.controlLock)
        wakeWaiters()
        closeDescriptor(descriptor)
        return isLast
    }

    private func release(slot: Int) {
        let base = slotOffset(slot)
        setWord(LockFileLayout.SlotState.free.rawValue, at: base + LockFileLayout.slotStateOffset)
        for offset in stride(from: 8, to: LockFileLayout.slotSize, by: 8) { setWord(0, at: base + offset) }
        _ = realm_unlock_byte(descriptor, LockFileLayout.livenessLock(ofSlot: slot))
    }

    /// Wakes this process's threads waiting for a publish (and, harmlessly, other processes'
    /// watchers, which wait again), so that they notice the detach at once. Precondition: the
    /// phase is no longer `attached`, so no thread goes to sleep any more (``isWaiting``).
    private func wakeWaiters() {
        guard let signal = sharedAddress(LockFileLayout.commitSignalOffset) else { return }
        // Moved first: a waiter that read the word before this does not sleep (the futex
        // compares it); one that reads it after finds the phase detached.
        _ = realm_shared_add32(signal, 1)
        realm_shared_wake_all(signal)
    }

    /// Ends the attached (or attaching) phase and returns it; takes this process's watchers out of
    /// the lock file's count while the mapping is still there.
    @discardableResult
    private func markDetached() -> Phase {
        phase.withLock { phase in
            defer { phase = .detached }
            if case .attached = phase, let count = sharedAddress(LockFileLayout.watcherCountOffset) {
                localWatchers.withLock { watchers in
                    if watchers > 0 { _ = realm_shared_sub32(count, UInt32(watchers)) }
                    watchers = 0
                }
            }
            return phase
        }
    }

    /// Runs `body` with the shared word at `offset` while attached (under the phase's lock, so the
    /// mapping cannot go meanwhile); nothing once detached.
    func whileAttached(_ offset: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        phase.withLock { phase in
            guard case .attached = phase, let address = sharedAddress(offset) else { return }
            body(address)
        }
    }

    /// Whether a waiter may sleep: the process is still attached. (Checked after reading the
    /// signal word; detaching moves that word after ending the phase, so no wake-up is lost.)
    var isWaiting: Bool { phase.withLock { if case .attached = $0 { true } else { false } } }

    /// The address of the shared word at `offset`, for the atomic operations of `CRealmSync`.
    func sharedAddress(_ offset: Int) -> UnsafeMutableRawPointer? { mapping.map { $0 + offset } }

    private func unmap() {
        isMapped.withLock { isMapped in
            if isMapped, let mapping { munmap(mapping, LockFileLayout.size) }
            isMapped = false
        }
    }

    // MARK: Slots

    /// The slots of live attached processes (other than this one's); dead processes' slots are
    /// cleared on the way. Precondition: the control lock is held (or, for a view without
    /// write access, the control lock is held shared and nothing is cleared).
    private func liveSlots(probingWith probe: Int32? = nil) -> [Int] {
        let own: Int? = if case .attached(let slot) = phase.withLock({ $0 }) { slot } else { nil }
        var live: [Int] = []
        for slot in 0..<LockFileLayout.slotCount where slot != own {
            guard word(at: slotOffset(slot) + LockFileLayout.slotStateOffset) != LockFileLayout.SlotState.free.rawValue else { continue }
            if isHeld(slot: slot, probingWith: probe) {
                live.append(slot)
            } else if probe == nil {
                release(slot: slot)  // a dead process's: the kernel released its byte
            }
        }
        return live
    }

    /// Whether a process (other than through this description) holds slot `slot`'s liveness byte.
    func isHeld(slot: Int, probingWith probe: Int32? = nil) -> Bool {
        // An error (it cannot happen on a valid descriptor) counts as held: never clear a slot
        // that may be alive.
        realm_byte_is_locked(probe ?? descriptor, LockFileLayout.livenessLock(ofSlot: slot)) != 0
    }

    func flags(ofSlot slot: Int) -> LockFileLayout.SlotFlags {
        LockFileLayout.SlotFlags(rawValue: word(at: slotOffset(slot) + LockFileLayout.slotFlagsOffset))
    }

    func slotOffset(_ slot: Int) -> Int { LockFileLayout.slotsOffset + slot * LockFileLayout.slotSize }

    /// What a tool shows about the processes attached: pid, attach time and whether each writes.
    package struct Attachment: Equatable, Sendable {
        package var slot: Int
        package var pid: Int32
        package var attachedAtNanoseconds: UInt64
        package var isWriter: Bool
    }

    /// The processes attached now, this one included (a snapshot; empty without a mapping).
    package func attachments() -> [Attachment] {
        guard mapping != nil else { return [] }
        let own: Int? = if case .attached(let slot) = phase.withLock({ $0 }) { slot } else { nil }
        return (0..<LockFileLayout.slotCount).compactMap { slot in
            let base = slotOffset(slot)
            guard word(at: base + LockFileLayout.slotStateOffset) != LockFileLayout.SlotState.free.rawValue,
                  slot == own || isHeld(slot: slot) else { return nil }
            return Attachment(slot: slot, pid: Int32(truncatingIfNeeded: word(at: base + LockFileLayout.slotPIDOffset)),
                              attachedAtNanoseconds: word(at: base + LockFileLayout.slotAttachedAtOffset),
                              isWriter: flags(ofSlot: slot).contains(.writer))
        }
    }

    /// This process's slot's offset, once attached with a mapping. Internal for the extensions.
    func ownSlotOffset() -> Int? {
        ownSlotIndex().map(slotOffset)
    }

    /// This process's slot, once attached with a mapping. Internal for the extensions.
    func ownSlotIndex() -> Int? {
        guard mapping != nil, case .attached(let slot) = phase.withLock({ $0 }), slot >= 0 else { return nil }
        return slot
    }

    /// Whether another live process had the file open for writing when this one joined (see
    /// `join`). Meaningful while attaching: the control lock keeps the answer true until then.
    package func anotherWriterIsAttached() -> Bool {
        joinedWriters.withLock { $0 }
    }

    // MARK: Words

    /// Whether this process maps the lock file (it participates; see ``mapping``).
    var hasMapping: Bool { mapping != nil }

    /// The shared word at `offset` (0 without a mapping). Internal for the extensions of this type.
    func word(at offset: Int) -> UInt64 {
        guard let mapping else { return 0 }
        return realm_shared_load(mapping + offset)
    }

    /// Stores the shared word at `offset`. Internal for the extensions of this type.
    func setWord(_ value: UInt64, at offset: Int) {
        guard let mapping else { return }
        realm_shared_store(mapping + offset, value)
    }
}
