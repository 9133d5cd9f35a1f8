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
    /// Called before each positioned write of `length` bytes at `offset`.
    func beforeWrite(offset: UInt64, length: Int) -> WriteFault
    /// Called before each data sync; a non-nil errno makes the sync fail with it.
    func beforeSync() -> Int32?
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

    /// The file's current length in bytes.
    package func size() throws -> UInt64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw error(errno, "Could not read the realm file's size") }
        return UInt64(info.st_size)
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
    /// across groups (`PageCipher.seal` of a pair: two HMACs side by side, which SHA-256 on the
    /// CPU's instructions runs faster than one after the other) — a small commit's pages are
    /// scattered over the file, one page per group, and would otherwise never pair.
    func write(groups: [(offset: UInt64, buffers: [iovec])]) throws {
        guard let cipher else {
            for group in groups {
                var buffers = group.buffers
                try writeStored(&buffers, at: group.offset)
            }
            return
        }
        // Encrypt into a scratch buffer of up to 256 pages (a longer run gets one of its own),
        // writing it whenever the next run would not fit: memory stays bounded for a bulk commit.
        // Sized to the write when it is smaller: a commit of a few pages must not pay for mapping
        // and faulting in a megabyte.
        let total = groups.reduce(0) { $0 + $1.buffers.reduce(0) { $0 + $1.iov_len } }
        var scratchCapacity = max(min(256 * PageLayout.pageSize, total), PageLayout.pageSize)
        var scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchCapacity, alignment: PageLayout.pageSize)
        defer { scratch.deallocate() }
        var filled = 0
        // Where the scratch's bytes go: consecutive stretches of the file.
        var segments: [(fileOffset: UInt64, start: Int, length: Int)] = []
        // An encrypted run still waiting for a partner to be tagged with; tagged alone before
        // the scratch is written.
        var untagged: (offset: Int, length: Int, page: PageNumber)?
        func writeScratch() throws {
            if let run = untagged {
                cipher.seal(scratch + run.offset, length: run.length, page: run.page)
                untagged = nil
            }
            for segment in segments {
                var stored = [iovec(iov_base: scratch + segment.start, iov_len: segment.length)]
                try writeStored(&stored, at: segment.fileOffset)
            }
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
                        try writeScratch()
                        if length > scratchCapacity {
                            scratch.deallocate()
                            scratch = .allocate(byteCount: length, alignment: PageLayout.pageSize)
                            scratchCapacity = length
                        }
                    }
                    let page = fileOffset >> PageLayout.pageShift
                    cipher.encryptUntagged(run, length: length, page: page, into: scratch + filled)
                    if let partner = untagged {
                        cipher.seal(scratch + partner.offset, length: partner.length, page: partner.page,
                                    scratch + filled, length: length, page: page)
                        untagged = nil
                    } else {
                        untagged = (filled, length, page)
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
        try writeScratch()
    }

    /// Writes the buffers as they are (see ``write(_:at:)``).
    private func writeStored(_ buffers: inout [iovec], at offset: UInt64) throws {
        var total = buffers.reduce(0) { $0 + $1.iov_len }
        var position = offset
        var first = 0
        while total > 0 {
            if let faults {
                switch faults.beforeWrite(offset: position, length: total) {
                case .none: break
                case .fail(let code): throw error(code, "Could not write to the realm file")
                case .partial(let bytes, let code):
                    try writePrefix(buffers[first...], bytes: min(bytes, total), at: position)
                    throw error(code, "Could not write to the realm file")
                }
            }
            let count = min(buffers.count - first, 1024)  // IOV_MAX
            let written = buffers.withUnsafeBufferPointer { iov in
                pwritev(descriptor, iov.baseAddress! + first, Int32(count), off_t(position))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw error(errno, "Could not write to the realm file")
            }
            total -= written
            position += UInt64(written)
            noteLength(position)
            // Drop fully written buffers; trim a partially written one.
            var remaining = written
            while remaining > 0 {
                if remaining >= buffers[first].iov_len {
                    remaining -= buffers[first].iov_len
                    first += 1
                } else {
                    buffers[first].iov_base += remaining
                    buffers[first].iov_len -= remaining
                    remaining = 0
                }
            }
        }
    }

    /// Used only by fault injection: writes the first `bytes` of the buffers, bypassing faults.
    private func writePrefix(_ buffers: ArraySlice<iovec>, bytes: Int, at offset: UInt64) throws {
        var left = bytes
        var position = offset
        for buffer in buffers where left > 0 {
            let length = min(left, buffer.iov_len)
            guard pwrite(descriptor, buffer.iov_base, length, off_t(position)) == length else {
                throw error(errno, "Could not write to the realm file")
            }
            left -= length
            position += UInt64(length)
        }
    }

    /// Grows the file to at least `pages` pages (the new tail reads as zeros).
    package func extend(toPages pages: UInt64) throws {
        let length = pages << PageLayout.pageShift
        guard knownLength.load(ordering: .relaxed) < length else { return }
        let size = try size()
        guard size < length else { return noteLength(size) }
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw error(errno, "Could not grow the realm file") }
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
        if let code = faults?.beforeSync() { throw error(code, "Could not sync the realm file") }
        #if canImport(Darwin)
        let result = fcntl(descriptor, F_FULLFSYNC)
        #else
        let result = fdatasync(descriptor)
        #endif
        guard result == 0 else { throw error(errno, "Could not sync the realm file") }
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
