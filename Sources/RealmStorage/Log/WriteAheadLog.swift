#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The write-ahead log `<file>.log`: how a small commit becomes durable with one contiguous
/// write and one sync.
///
/// A commit's pages are scattered over the data file (a leaf here, its parents there, the
/// free-list head, the meta page), and a disk charges for every separate request a sync must
/// flush: measured here, one 9-page write and its `fdatasync` take ~65 µs, the same pages in
/// 5 writes ~88 µs and in 9 writes ~124 µs. So a batch of at most ``recordLimit`` bytes is
/// written twice:
///
/// 1. **Append**: a record — a header listing `(page, pages, transaction)` per image, then the
///    images exactly as the data file stores them (encrypted, in an encrypted file) — is
///    written at the log's end in one `pwritev`, and its write-back to the device is started.
/// 2. **Data pages home**: while the record travels, the batch's data pages are written to
///    their places in the data file, *not* synced. They are at page numbers that no version
///    recovery can choose uses (copy-on-write, and the free-list rule), exactly as an in-place
///    batch's are before its sync.
/// 3. **Sync** the log: the batch is now durable. Then the **meta page** is written to its slot,
///    not synced. The page cache shows all of it to the mapped readers at once; the kernel
///    writes it back when it likes.
/// 4. **Checkpoint** (when the log holds ``checkpointBytes``, on close, and after a replay): the
///    data file is synced — now it holds every logged batch by itself — and the log is
///    *reset*: a new header with a new random salt, synced, so no earlier record is valid any
///    more.
///
/// **Why this is safe.** The invariant, kept by ``Database``: *every write to the data file
/// since its last sync is a page of a record that is durable in the log, or a data page at a
/// number no version recovery can choose uses.* A meta page goes home only after its record's
/// sync; anything else that writes the data file (a batch too big for the log, a meta-only
/// checkpoint) first checkpoints, so the log is empty and durably so. Then, after a crash, the
/// data file holds the last checkpoint's state plus an arbitrary subset of later writes (torn
/// ones included), and replaying the log's records *in order* rewrites every page any of them
/// wrote with its content at the last record: the file becomes exactly the last durable batch's
/// version. Pages no record wrote are the checkpoint's, synced, or unused by that version. Replaying
/// twice changes nothing, so a crash during recovery is harmless too. The free-list rule
/// ("a page freed by *F* is reused only once *F* is durable") is unchanged: durable now means
/// "in the log", and a reused page's new content is itself in a later record or in the
/// batch being written, which is not acknowledged.
///
/// **Which records are valid.** Records start on page boundaries after the header page. A
/// record counts if its header has the header's salt, the next sequence number and a valid
/// checksum, and every image carries the listed transaction and a valid checksum (or, in an
/// encrypted file, a valid tag). Scanning stops at the first record that does not: a torn
/// append (never acknowledged: its sync did not return) or the previous generation's bytes,
/// whose salt differs. A record is appended only after the previous one's sync, so no valid
/// record follows an invalid one.
///
/// **Which file a log belongs to.** The header names the data file — its device and inode, and
/// the random id its meta pages carry — and the newest transaction the file held durably when
/// the generation began (its *base*). Records are replayed only onto that file holding at least
/// that version, or a torn meta page (see `LogLayout.DataFileState`): not onto a file replaced
/// by a rename, not onto another realm's bytes or an older copy of this one written over it in
/// place. Creating a new data file, and putting a compaction's copy in
/// place, first delete a log left beside it, since a new file can get a deleted one's inode
/// (a seed is linked into place without the lock file, so it relies on the checks alone).
///
/// A read-only open replays the records into memory instead — a private map of the data file
/// (or, encrypted, its plaintext) — so that neither file changes; see ``readRecords(path:file:isAuthentic:_:)``.
///
/// The log file keeps its length across resets, so steady appends overwrite allocated blocks
/// and the sync has no file size to record (appending past the end cost 113 µs a commit here,
/// against 80–92 µs overwriting); it grows in zeroed steps, doubling from 64 KiB to at most
/// ``growthBytes``, and a clean close cuts it back to its header.
///
/// Thread safety: the cursor is guarded by a mutex; appends, syncs and resets are issued by
/// one flush at a time (the database's flush lock).
package final class WriteAheadLog: Sendable {
    /// The largest batch (bytes of images) that goes through the log; larger ones are written
    /// to the data file directly (a bulk load would otherwise be written twice).
    package static let recordLimit = 1 << 20
    /// Log bytes past which a flush checkpoints. SQLite's default, 1,000 pages, is about this.
    package static let checkpointBytes: UInt64 = 4 << 20
    /// The most the file grows at a time (written as zeros, so later syncs record no new size).
    static let growthBytes: UInt64 = 1 << 20

    package let path: String
    private let descriptor: Int32
    private let faults: (any IOFaultInjector)?
    private let identity: LogLayout.FileIdentity
    /// Seals the headers: a keyed MAC when the data file is encrypted.
    private let sealing: LogLayout.Sealing

    private struct Cursor {
        /// The current generation's salt (in the header on disk).
        var salt: UInt64
        /// The next record's sequence number; 0 while the generation has no record.
        var sequence: UInt64
        /// Where the next record starts.
        var end: UInt64
        /// Where the last appended record starts (see ``retractLastRecord()``).
        var lastRecordStart: UInt64
        /// The file's length: writes below it need no growth.
        var allocated: UInt64
    }
    private let cursor: Lock<Cursor>

    private init(path: String, descriptor: Int32, faults: (any IOFaultInjector)?, identity: LogLayout.FileIdentity,
                 sealing: LogLayout.Sealing, salt: UInt64, allocated: UInt64) {
        self.path = path
        self.descriptor = descriptor
        self.faults = faults
        self.identity = identity
        self.sealing = sealing
        cursor = Lock(Cursor(salt: salt, sequence: 0, end: LogLayout.firstRecordOffset,
                             lastRecordStart: LogLayout.firstRecordOffset, allocated: allocated))
    }

    deinit { closeDescriptor(descriptor) }

    /// The identity of the open data file `descriptor` that logs record.
    static func identity(of descriptor: Int32) throws -> LogLayout.FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StorageError.fromErrno(errno, "Could not read the realm file's identity", path: nil) }
        return LogLayout.FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    // MARK: Opening and recovery

    /// Opens the log at `path` for the data file `file` (creating it if missing), replays its
    /// valid records onto the file, and leaves it empty: a writable open's recovery.
    ///
    /// `isAuthentic` checks one stored image (page checksum, or tag in an encrypted file).
    /// Returns the log and the number of records replayed.
    ///
    /// `dataFile` reads the data file's meta pages (see `LogLayout.DataFileState`).
    ///
    /// `published`: when read-only processes are attached, the newest version published to them.
    /// Its records' and older ones' data pages are not written again: the writer that published
    /// them wrote every data page in place first, and later records of the log may have
    /// rewritten the same pages since — so writing an older record's images again would show
    /// readers, until the replay reached the newer record, pages older than the versions they
    /// read. Their meta pages are (a batch whose meta write failed after the log's sync was
    /// published; no reader reads meta pages). Their pages are still synced, with the records after them (commits durable in the log but never published),
    /// whose pages are at numbers no version a reader pins uses (the writer that logged them
    /// allocated them under their pins).
    ///
    /// - Precondition: no other process writes the file (this one is the first to attach, or the
    ///   only writer: see `LockFile`), and this process has read none of its pages yet.
    static func openForWriting(path: String, file: PageFile, faults: (any IOFaultInjector)?,
                               isAuthentic: (UnsafeRawPointer, Int, PageNumber) -> Bool,
                               dataFile: () -> LogLayout.DataFileState,
                               published: TransactionID = 0) throws -> (WriteAheadLog, Int) {
        let identity = try Self.identity(of: file.descriptor)
        let existed = access(path, F_OK) == 0
        // An encrypted realm's log holds its pages as the data file stores them, encrypted, but
        // is still nobody else's business: created readable by its owner only, as the file is.
        let descriptor = openDescriptor(path, O_RDWR | O_CREAT, file.cipher == nil ? 0o644 : 0o600)
        guard descriptor >= 0 else { throw StorageError.fromErrno(errno, "Could not open the realm's log file", path: path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            throw StorageError.fromErrno(code, "Could not read the realm's log file", path: path)
        }
        let log = WriteAheadLog(path: path, descriptor: descriptor, faults: faults, identity: identity,
                                sealing: LogLayout.Sealing(file.cipher), salt: 0, allocated: UInt64(info.st_size))
        let state = dataFile()
        let replayed = try log.replay(into: file, isAuthentic: isAuthentic, dataFile: state, published: published)
        if replayed == 0, let header = log.readHeader(), header.identity == identity, state.continues(header) {
            // Nothing to replay: append to the current generation, from its first record (any
            // bytes there fail to continue it: they are torn, or of an older generation).
            log.cursor.withLock { $0.salt = header.salt }
        } else {
            // Replayed: the data file was synced, so the records are done with. No valid
            // header (a new log, or another file's or version's): start a generation of our
            // own. The directory entry of a new log must be durable before any record relies
            // on it.
            let now = replayed > 0 ? dataFile() : state
            try log.reset(base: now.newest ?? 0, fileID: now.fileID ?? 0)
            if !existed { Database.syncDirectory(of: path) }
        }
        return (log, replayed)
    }

    /// Opens the log of a file that another writing process has open (see `LockFile+Writing.swift`):
    /// no replay and no new generation — the log is the owner's to append to. The cursor is taken
    /// from the lock file each time this process takes write ownership (``adopt(_:)``).
    static func openJoining(path: String, file: PageFile, faults: (any IOFaultInjector)?) throws -> WriteAheadLog {
        let identity = try Self.identity(of: file.descriptor)
        let descriptor = openDescriptor(path, O_RDWR | O_CREAT, file.cipher == nil ? 0o644 : 0o600)
        guard descriptor >= 0 else { throw StorageError.fromErrno(errno, "Could not open the realm's log file", path: path) }
        return WriteAheadLog(path: path, descriptor: descriptor, faults: faults, identity: identity,
                             sealing: LogLayout.Sealing(file.cipher), salt: 0, allocated: 0)
    }

    /// The cursor another process needs to append after this one's records (stored in the lock
    /// file with each publish and after each reset).
    var sharedCursor: LockFile.LogCursor {
        cursor.withLock { LockFile.LogCursor(salt: $0.salt, sequence: $0.sequence, end: $0.end, lastRecordStart: $0.lastRecordStart) }
    }

    /// Continues from `shared`, the cursor the previous owner stored (this process takes write
    /// ownership). The file's length is read again: another process grew or cut it.
    func adopt(_ shared: LockFile.LogCursor) {
        let length = PositionedIO.length(of: descriptor)
        cursor.withLock { cursor in
            cursor.salt = shared.salt
            cursor.sequence = shared.sequence
            cursor.end = shared.end
            cursor.lastRecordStart = shared.lastRecordStart
            cursor.allocated = length
        }
    }

    /// The salt of the generation the log's header starts (nil if the header is not valid for
    /// this file): a dead owner that began a new generation without storing it left another salt
    /// than the lock file's.
    var headerSalt: UInt64? {
        guard let header = readHeader(), header.identity == identity else { return nil }
        return header.salt
    }

    /// Warm recovery's cut (see `Database.takeBackDeadOwnersWrites`): takes off everything past
    /// `shared`'s end — records a dead owner appended but never published, synced or not — and
    /// continues from `shared`. The cut is synced before anything is appended again.
    func cut(to shared: LockFile.LogCursor) throws {
        try truncateAndSync(to: shared.end, failure: "Could not take back a dead process's log records") { adopt(shared) }
    }

    /// Calls `apply` with every valid record of the log at `path` for `file` (its header and its
    /// images), in order, changing neither file: a read-only open's recovery, which replays the
    /// records into memory. Returns how many there were.
    static func readRecords(path: String, file: PageFile, isAuthentic: (UnsafeRawPointer, Int, PageNumber) -> Bool,
                            dataFile: LogLayout.DataFileState,
                            _ apply: (LogLayout.RecordHeader, UnsafeRawPointer) throws -> Void) throws -> Int {
        let descriptor = openDescriptor(path, O_RDONLY)
        guard descriptor >= 0 else { return 0 }  // no log: nothing was ever logged
        let log = WriteAheadLog(path: path, descriptor: descriptor, faults: nil, identity: try identity(of: file.descriptor),
                                sealing: LogLayout.Sealing(file.cipher), salt: 0, allocated: 0)
        var count = 0
        try log.scan(isAuthentic: isAuthentic, dataFile: dataFile) { record, images in
            try apply(record, images)
            count += 1
            return true
        }
        return count
    }

    private func readHeader() -> LogLayout.Header? {
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        guard pread(descriptor, page, PageLayout.pageSize, 0) == PageLayout.pageSize else { return nil }
        return LogLayout.decodeHeader(page, sealing: sealing)
    }

    /// Calls `body` with each valid record (its header and its images) in order, while it
    /// returns true. Records are valid as the type's documentation says.
    private func scan(isAuthentic: (UnsafeRawPointer, Int, PageNumber) -> Bool, dataFile: LogLayout.DataFileState,
                      _ body: (LogLayout.RecordHeader, UnsafeRawPointer) throws -> Bool) throws {
        guard let header = readHeader(), header.identity == identity, dataFile.continues(header) else { return }
        let pageSize = PageLayout.pageSize
        var offset = LogLayout.firstRecordOffset
        var sequence: UInt64 = 0
        let first = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: pageSize)
        defer { first.deallocate() }
        while pread(descriptor, first, pageSize, off_t(offset)) == pageSize,
              let headerPages = LogLayout.claimedHeaderPages(first, salt: header.salt, sequence: sequence) {
            let headerBytes = headerPages * pageSize
            let headerBuffer = UnsafeMutableRawPointer.allocate(byteCount: headerBytes, alignment: pageSize)
            defer { headerBuffer.deallocate() }
            guard pread(descriptor, headerBuffer, headerBytes, off_t(offset)) == headerBytes,
                  let record = LogLayout.decodeRecordHeader(headerBuffer, sealing: sealing),
                  record.imagePages <= UInt64(Self.recordLimit / pageSize)
            else { return }
            let imageBytes = Int(record.imagePages) * pageSize
            let images = UnsafeMutableRawPointer.allocate(byteCount: imageBytes, alignment: pageSize)
            defer { images.deallocate() }
            guard pread(descriptor, images, imageBytes, off_t(offset) + off_t(headerBytes)) == imageBytes else { return }
            let intact = record.forEachImage(in: images) { entry, image, length in
                image.pageTransaction == entry.transaction && isAuthentic(image, length, entry.page)
            }
            guard intact, try body(record, UnsafeRawPointer(images)) else { return }
            offset += UInt64(headerBytes + imageBytes)
            sequence += 1
        }
    }

    /// Writes every valid record's images to their places in `file` (but those of records at or
    /// below `published`, already there), grows the file to the last record's page count, and
    /// syncs it. Returns the number of records.
    private func replay(into file: PageFile, isAuthentic: (UnsafeRawPointer, Int, PageNumber) -> Bool,
                        dataFile: LogLayout.DataFileState, published: TransactionID) throws -> Int {
        var count = 0
        var pageCount: UInt64 = 0
        try scan(isAuthentic: isAuthentic, dataFile: dataFile) { record, images in
            pageCount = record.pageCount
            count += 1
            // A published record's data pages are home already; its meta page may not be (a
            // batch whose meta write failed after the log's sync is published, its writer then
            // stopped), and no reader reads meta pages, so those alone are written again.
            let isPublished = record.transaction <= published
            var groups: [(offset: UInt64, buffers: [iovec])] = []
            record.forEachImage(in: images) { entry, image, length in
                guard !isPublished || entry.page < PageLayout.firstDataPage else { return true }
                groups.append((entry.page << PageLayout.pageShift, [iovec(iov_base: UnsafeMutableRawPointer(mutating: image), iov_len: length)]))
                return true
            }
            try file.writeStored(groups)
            return true
        }
        guard count > 0 else { return 0 }
        try file.extend(toPages: pageCount)
        try file.sync()
        return count
    }

    // MARK: Appending

    /// Whether the current generation holds a record (which the data file may not hold yet).
    package var hasRecords: Bool { cursor.withLock { $0.sequence > 0 } }

    /// Bytes of records in the current generation.
    package var recordBytes: UInt64 { cursor.withLock { $0.end - LogLayout.firstRecordOffset } }

    /// Writes a record of `images` — the stored bytes of a batch, in groups of consecutive
    /// pages, `entries` describing them image by image — at the log's end. Not synced: call
    /// ``sync()``; until it returns, the record may or may not survive a crash.
    ///
    /// A failed write leaves the end where it was, so the next record overwrites the torn one.
    func append(entries: [LogLayout.Entry], images: [(offset: UInt64, buffers: [iovec])],
                transaction: TransactionID, pageCount: UInt64) throws {
        let (salt, sequence, end, allocated) = cursor.withLock { ($0.salt, $0.sequence, $0.end, $0.allocated) }
        let header = LogLayout.RecordHeader(salt: salt, sequence: sequence, transaction: transaction,
                                            pageCount: pageCount, entries: entries)
        let headerBytes = header.headerPages * PageLayout.pageSize
        let headerPages = UnsafeMutableRawPointer.allocate(byteCount: headerBytes, alignment: PageLayout.pageSize)
        defer { headerPages.deallocate() }
        headerPages.initializeMemory(as: UInt8.self, repeating: 0, count: headerBytes)
        LogLayout.encodeRecordHeader(header, into: headerPages, sealing: sealing)
        var buffers = [iovec(iov_base: headerPages, iov_len: headerBytes)]
        buffers.reserveCapacity(1 + images.reduce(0) { $0 + $1.buffers.count })
        for group in images { buffers.append(contentsOf: group.buffers) }
        let total = UInt64(buffers.reduce(0) { $0 + $1.iov_len })
        if end + total > allocated { try grow(to: end + total) }
        try write(&buffers, at: end)
        #if os(Linux)
        // Start writing the record to the device now (on Linux, DONTNEED begins write-back of
        // the range's dirty pages), so that the caller's next work — the batch's data pages to
        // their places — overlaps the transfer that `sync()` then waits for.
        _ = posix_fadvise(descriptor, off_t(end), off_t(total), POSIX_FADV_DONTNEED)
        #endif
        cursor.withLock { cursor in
            cursor.end = end + total
            cursor.sequence = sequence + 1
            cursor.lastRecordStart = end
        }
    }

    /// Takes back the record ``append(entries:images:transaction:pageCount:)`` wrote last, whose
    /// sync failed or was never reached: the record is whole in the page cache, so a reopen —
    /// or write-back before a crash — would replay a commit its caller was told had failed.
    /// The file is cut at the record's start and synced: no later scan finds the record, and
    /// the next record takes its place under the same sequence number. Cutting needs no free
    /// space, so it works on a full disk.
    ///
    /// - Throws: when the cut fails or cannot be made durable; the record's fate is then unknown.
    func retractLastRecord() throws {
        let (start, sequence) = cursor.withLock { ($0.lastRecordStart, $0.sequence) }
        precondition(sequence > 0, "no record to take back")
        try truncateAndSync(to: start, failure: "Could not take back the realm's last log record") {
            cursor.withLock { cursor in
                cursor.end = start
                cursor.sequence = sequence - 1
                cursor.allocated = start
            }
        }
    }

    /// Cuts the file at `length`, moves the cursor to the cut (`moveCursor`), and syncs: the cut
    /// is durable before anything is appended again. A failed cut throws `failure` and moves
    /// nothing; a failed sync throws with the cursor moved (the file is cut, durably or not).
    private func truncateAndSync(to length: UInt64, failure: String, moveCursor: () -> Void) throws {
        if let code = faults?.beforeLogTruncate(length: length) ?? (ftruncate(descriptor, off_t(length)) == 0 ? nil : errno) {
            throw error(code, failure)
        }
        moveCursor()
        try sync()
    }

    /// Makes the appended records durable (`fdatasync`; `F_FULLFSYNC` on Apple platforms).
    func sync() throws {
        if let code = faults?.beforeLogSync() ?? PositionedIO.sync(descriptor) { throw error(code, "Could not sync the realm's log file") }
    }

    /// Starts a new generation: a header with a new random salt, synced, so that no record
    /// written before is valid. The caller has made the data file hold every record (synced it);
    /// `base` is the newest transaction it now holds durably, `fileID` its id.
    func reset(base: TransactionID, fileID: UInt64) throws {
        var generator = SystemRandomNumberGenerator()
        var salt = generator.next() as UInt64
        if salt == cursor.withLock({ $0.salt }) { salt &+= 1 }
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        LogLayout.encodeHeader(LogLayout.Header(salt: salt, identity: identity, base: base, fileID: fileID), into: page, sealing: sealing)
        var buffers = [iovec(iov_base: page, iov_len: PageLayout.pageSize)]
        try write(&buffers, at: 0)
        try sync()
        cursor.withLock { cursor in
            cursor.salt = salt
            cursor.sequence = 0
            cursor.end = LogLayout.firstRecordOffset
            cursor.allocated = max(cursor.allocated, LogLayout.firstRecordOffset)
        }
    }

    /// Cuts the file back to its header page: a clean close's, once a reset emptied the log, so
    /// that a closed realm's log takes 4 KiB. Nothing needs the cut to be durable.
    func shrink() {
        guard cursor.withLock({ $0.sequence == 0 }) else { return }
        if ftruncate(descriptor, off_t(LogLayout.firstRecordOffset)) == 0 {
            cursor.withLock { $0.allocated = LogLayout.firstRecordOffset }
        }
    }

    /// Extends the file with zeros to at least `length`, in steps that double the file (at
    /// least 64 KiB, at most ``growthBytes``).
    private func grow(to length: UInt64) throws {
        let allocated = cursor.withLock { $0.allocated }
        let step = min(Self.growthBytes, max(64 << 10, allocated))
        let target = (length + step - 1) / step * step
        let chunk = 256 * PageLayout.pageSize
        let zeros = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: PageLayout.pageSize)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: chunk)
        var offset = allocated
        while offset < target {
            var buffers = [iovec(iov_base: zeros, iov_len: Int(min(UInt64(chunk), target - offset)))]
            try write(&buffers, at: offset)
            offset += UInt64(buffers[0].iov_len)
        }
        cursor.withLock { $0.allocated = max($0.allocated, target) }
    }

    /// Writes the buffers back to back from `offset`.
    private func write(_ buffers: inout [iovec], at offset: UInt64) throws {
        _ = try PositionedIO.write(descriptor, &buffers, at: offset,
                                   fault: faults.map { faults in { faults.beforeLogWrite(offset: $0, length: $1) } },
                                   failure: { error($0, "Could not write to the realm's log file") })
    }

    private func error(_ code: Int32, _ message: String) -> StorageError {
        StorageError.fromErrno(code, message, path: path)
    }
}
