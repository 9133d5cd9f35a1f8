import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A hook that tests install to make the file I/O fail the way real disks do: short writes,
/// torn pages, failed syncs, a full disk. Production code passes none.
///
/// Conformers are called on whichever thread flushes, one call at a time per database.
package protocol IOFaultInjector: AnyObject, Sendable {
    /// Called before each positioned write of `length` bytes at `offset` of the data file.
    func beforeWrite(offset: UInt64, length: Int) -> WriteFault
    /// Called before each positioned write of `length` bytes at `offset` of the write-ahead log
    /// (`<file>.log`); by default, the write happens.
    func beforeLogWrite(offset: UInt64, length: Int) -> WriteFault
    /// Called before each sync of the data file; a non-nil errno makes the sync fail with it.
    func beforeSync() -> Int32?
    /// Called before each sync of the log; by default, as ``beforeSync()``.
    func beforeLogSync() -> Int32?
    /// Called before the log is cut to `length` bytes to take back a record whose commit failed
    /// (see `WriteAheadLog.retractLastRecord()`); a non-nil errno makes the cut fail with it. By
    /// default, the cut happens.
    func beforeLogTruncate(length: UInt64) -> Int32?
    /// Called before the data file grows to `length` bytes (`posix_fallocate`); a non-nil errno
    /// makes the growth fail with it. By default, the file grows.
    func beforeExtend(toLength length: UInt64) -> Int32?
}

extension IOFaultInjector {
    package func beforeLogWrite(offset: UInt64, length: Int) -> WriteFault { .none }
    package func beforeLogSync() -> Int32? { beforeSync() }
    package func beforeLogTruncate(length: UInt64) -> Int32? { nil }
    package func beforeExtend(toLength length: UInt64) -> Int32? { nil }
}

/// What an injected fault does to one write.
package enum WriteFault: Sendable, Equatable {
    /// The write happens normally.
    case none
    /// Nothing is written; the call fails with the errno.
    case fail(errno: Int32)
    /// Only the first `bytes` bytes reach the file, then the call fails with the errno
    /// (a torn write, as after a power cut in the middle of a page).
    case partial(bytes: Int, errno: Int32)
}

/// The data file: positioned vectored writes, syncs and the size, with errors mapped to
/// `StorageError` codes. Reads go through the `PageMap`, never through this type.
///
/// In an encrypted file (`cipher` set) every write is of whole pages and runs, and each is
/// encrypted on its way to the file (see `PageCipher`): no plaintext page reaches the disk.
///
/// Thread safety: immutable after init but for `knownLength`, an atomic; the kernel serializes
/// concurrent calls on one descriptor, and the database never issues overlapping writes.
package final class PageFile: Sendable {
    package let path: String
    let descriptor: Int32
    let faults: (any IOFaultInjector)?
    /// Encrypts what is written, in an encrypted file.
    let cipher: PageCipher?
    /// A length the file is known to have at least: raised by completed writes and by
    /// ``extend(toPages:)``, so a commit that writes below the end need not ask the kernel (an
    /// `fstat` per commit). Nothing shrinks a file in place, so it never goes stale.
    private let knownLength = Atomic<UInt64>(0)

    package init(path: String, descriptor: Int32, faults: (any IOFaultInjector)?, cipher: PageCipher? = nil) {
        self.path = path
        self.descriptor = descriptor
        self.faults = faults
        self.cipher = cipher
    }

    /// The file's current length in bytes (see `PositionedIO.length(of:)` for why not `fstat`).
    package func size() throws -> UInt64 {
        let length = lseek(descriptor, 0, SEEK_END)
        guard length >= 0 else { throw error(errno, "Could not read the realm file's size") }
        return UInt64(length)
    }

    /// Writes `buffer` at `offset`, retrying short writes; throws on failure.
    package func write(_ buffer: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var iov = [iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)]
        try write(&iov, at: offset)
    }

    /// Writes the buffers back to back starting at `offset` with as few system calls as possible.
    /// In an encrypted file, `offset` is a page's and the buffers hold whole pages and runs.
    func write(_ buffers: inout [iovec], at offset: UInt64) throws {
        guard cipher != nil else { return try writeStored(&buffers, at: offset) }
        try write(groups: [(offset, buffers)])
    }

    /// Writes several groups of buffers, each back to back from its offset: a commit's runs of
    /// consecutive pages, and its meta page. In an encrypted file every offset is a page's and
    /// the buffers hold whole pages and runs.
    ///
    /// Encrypted, the groups are encrypted together, so their pages are tagged two at a time
    /// across groups (`PageCipher.encrypt` of a pair: two HMACs side by side, which SHA-256 on
    /// the CPU's instructions runs faster than one after the other) — a small commit's pages are
    /// scattered over the file, one page per group, and would otherwise never pair.
    func write(groups: [(offset: UInt64, buffers: [iovec])]) throws {
        try forEachStoredChunk(of: groups, chunkBytes: 256 * PageLayout.pageSize) { try writeStored($0) }
    }

    /// Writes groups of buffers already in their stored form (encrypted, in an encrypted
    /// file), each back to back from its offset: a replayed log record, or the home writes of
    /// a logged batch.
    func writeStored(_ groups: some Collection<(offset: UInt64, buffers: [iovec])>) throws {
        for group in groups {
            var buffers = group.buffers
            try writeStored(&buffers, at: group.offset)
        }
    }

    /// Calls `body` with the stored form of `groups`: the groups themselves in an unencrypted
    /// file; in an encrypted one, their encryption, in chunks of at most `chunkBytes` (a run
    /// longer than that is a chunk of its own), each valid only during its call. The write-ahead
    /// log asks for the whole batch in one chunk, since it writes the same bytes twice.
    func forEachStoredChunk(of groups: [(offset: UInt64, buffers: [iovec])], chunkBytes: Int,
                            _ body: ([(offset: UInt64, buffers: [iovec])]) throws -> Void) throws {
        guard let cipher else { return try body(groups) }
        // Encrypt into a scratch buffer of up to `chunkBytes` (a longer run gets one of its
        // own), handing it over whenever the next run would not fit: memory stays bounded for a
        // bulk commit. Sized to the write when it is smaller: a commit of a few pages must not
        // pay for mapping and faulting in a megabyte.
        let total = groups.reduce(0) { $0 + $1.buffers.reduce(0) { $0 + $1.iov_len } }
        var scratchCapacity = max(min(chunkBytes, total), PageLayout.pageSize)
        var scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchCapacity, alignment: PageLayout.pageSize)
        defer { scratch.deallocate() }
        var filled = 0
        // Where the scratch's bytes go: consecutive stretches of the file.
        var segments: [(fileOffset: UInt64, start: Int, length: Int)] = []
        // A run with its place in the scratch reserved, still waiting for a partner to be
        // encrypted with; encrypted alone before the scratch is written. Its plaintext is the
        // caller's, valid for the whole call.
        var waiting: (plain: UnsafeRawPointer, offset: Int, length: Int, page: PageNumber)?
        func handOverScratch() throws {
            if let run = waiting {
                cipher.encrypt(run.plain, length: run.length, page: run.page, into: scratch + run.offset)
                waiting = nil
            }
            try body(segments.map { ($0.fileOffset, [iovec(iov_base: scratch + $0.start, iov_len: $0.length)]) })
            segments.removeAll(keepingCapacity: true)
            filled = 0
        }
        for group in groups {
            precondition(group.offset & UInt64(PageLayout.pageSize - 1) == 0, "encrypted writes are of whole pages")
            var fileOffset = group.offset
            for buffer in group.buffers {
                guard let base = buffer.iov_base else { continue }
                var position = 0
                while position < buffer.iov_len {
                    let run = UnsafeRawPointer(base + position)
                    let length = min(Int(run.runPages) * PageLayout.pageSize, buffer.iov_len - position)
                    precondition(length % PageLayout.pageSize == 0, "encrypted writes are of whole pages")
                    if filled + length > scratchCapacity {
                        try handOverScratch()
                        if length > scratchCapacity {
                            scratch.deallocate()
                            scratch = .allocate(byteCount: length, alignment: PageLayout.pageSize)
                            scratchCapacity = length
                        }
                    }
                    let page = fileOffset >> PageLayout.pageShift
                    if let partner = waiting {
                        cipher.encrypt(partner.plain, length: partner.length, page: partner.page, into: scratch + partner.offset,
                                       run, length: length, page: page, into: scratch + filled)
                        waiting = nil
                    } else {
                        waiting = (run, filled, length, page)
                    }
                    if let last = segments.last, last.fileOffset + UInt64(last.length) == fileOffset, last.start + last.length == filled {
                        segments[segments.count - 1].length += length
                    } else {
                        segments.append((fileOffset, filled, length))
                    }
                    filled += length
                    position += length
                    fileOffset += UInt64(length)
                }
            }
        }
        try handOverScratch()
    }

    /// Writes the buffers as they are (see ``write(_:at:)``).
    private func writeStored(_ buffers: inout [iovec], at offset: UInt64) throws {
        let end = try PositionedIO.write(descriptor, &buffers, at: offset,
                                         fault: faults.map { faults in { faults.beforeWrite(offset: $0, length: $1) } },
                                         failure: { error($0, "Could not write to the realm file") })
        noteLength(end)
    }

    /// Grows the file to at least `pages` pages (the new tail reads as zeros).
    ///
    /// On Linux the new blocks are allocated (`posix_fallocate`), not left as a hole: a full
    /// disk then fails here, before the batch is durable anywhere, and not in a logged batch's
    /// writes to its places, after its log record is durable — which would stop the database
    /// until it is reopened (see `WriteAheadLog`).
    package func extend(toPages pages: UInt64) throws {
        let length = pages << PageLayout.pageShift
        guard knownLength.load(ordering: .relaxed) < length else { return }
        let size = try size()
        guard size < length else { return noteLength(size) }
        if let code = faults?.beforeExtend(toLength: length) { throw error(code, "Could not grow the realm file") }
        #if canImport(Glibc)
        let code = posix_fallocate(descriptor, off_t(size), off_t(length - size))
        if code != 0 {
            // A file system without allocation (EOPNOTSUPP, EINVAL) still gets its length.
            guard code == EOPNOTSUPP || code == EINVAL else { throw error(code, "Could not grow the realm file") }
            guard ftruncate(descriptor, off_t(length)) == 0 else { throw error(errno, "Could not grow the realm file") }
        }
        #else
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw error(errno, "Could not grow the realm file") }
        #endif
        noteLength(length)
    }

    /// Raises ``knownLength`` to `length` if it is below.
    private func noteLength(_ length: UInt64) {
        var known = knownLength.load(ordering: .relaxed)
        while known < length {
            let (exchanged, current) = knownLength.compareExchange(expected: known, desired: length, ordering: .relaxed)
            if exchanged { return }
            known = current
        }
    }

    /// Makes every completed write durable (`fdatasync`; `F_FULLFSYNC` on Apple platforms,
    /// where `fsync` does not flush the drive's cache).
    package func sync() throws {
        if let code = faults?.beforeSync() ?? PositionedIO.sync(descriptor) { throw error(code, "Could not sync the realm file") }
    }

    package func close() { closeDescriptor(descriptor) }

    /// Maps an errno to the error code a caller can act on.
    func error(_ code: Int32, _ message: String) -> StorageError {
        StorageError.fromErrno(code, message, path: path)
    }
}

/// `close(2)`, under a name that methods called `close()` do not shadow.
func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}

extension StorageError {
    /// An error for a failed system call, with the system's own description appended.
    package static func fromErrno(_ code: Int32, _ message: String, path: String?) -> StorageError {
        let reason = String(cString: strerror(code))
        let kind: Code = switch code {
        case EACCES, EPERM, EROFS: .filePermissionDenied
        case ENOENT: .fileNotFound
        case EEXIST: .fileExists
        case ENOSPC, EDQUOT, EFBIG: .outOfDiskSpace
        default: .fileAccess
        }
        return StorageError(kind, "\(message): \(reason)", path: path)
    }
}
