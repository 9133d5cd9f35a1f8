#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Positioned vectored writes and data syncs of one descriptor: the one mechanism behind the
/// data file's (`PageFile`) and the write-ahead log's (`WriteAheadLog`) I/O.
enum PositionedIO {
    /// Writes the buffers back to back from `offset`, retrying short writes and `EINTR`, and
    /// returns the offset after the last byte. `fault` (tests only) is asked before each system
    /// call; a torn write writes its prefix, bypassing faults, then fails. `buffers` is consumed.
    static func write(_ descriptor: Int32, _ buffers: inout [iovec], at offset: UInt64,
                      fault: ((UInt64, Int) -> WriteFault)?, failure: (Int32) -> StorageError) throws -> UInt64 {
        var total = buffers.reduce(0) { $0 + $1.iov_len }
        var position = offset
        var first = 0
        while total > 0 {
            switch fault?(position, total) ?? .none {
            case .none: break
            case .fail(let code): throw failure(code)
            case .partial(let bytes, let code):
                var left = min(bytes, total)
                for buffer in buffers[first...] where left > 0 {
                    let length = min(left, buffer.iov_len)
                    guard pwrite(descriptor, buffer.iov_base, length, off_t(position)) == length else { throw failure(errno) }
                    left -= length
                    position += UInt64(length)
                }
                throw failure(code)
            }
            let count = min(buffers.count - first, 1024)  // IOV_MAX
            let written = buffers.withUnsafeBufferPointer { iov in
                pwritev(descriptor, iov.baseAddress! + first, Int32(count), off_t(position))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            total -= written
            position += UInt64(written)
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
        return position
    }

    /// Makes every completed write to `descriptor` durable: `fdatasync`, or `F_FULLFSYNC` on
    /// Apple platforms, where `fsync` does not flush the drive's cache. Returns nil, or the errno.
    static func sync(_ descriptor: Int32) -> Int32? {
        #if canImport(Darwin)
        let result = fcntl(descriptor, F_FULLFSYNC)
        #else
        let result = fdatasync(descriptor)
        #endif
        return result == 0 ? nil : errno
    }

    /// The length of the file open as `descriptor` (0 if it cannot be read), from `lseek(SEEK_END)`,
    /// not `fstat`: with fine-grained timestamps (Linux 6.13+), a `stat` of a file marks its
    /// change time as seen, and the next write must then record a new one — a metadata update
    /// that the next `fdatasync` waits for the journal to commit. Measured on the write-ahead
    /// log, one `fstat` before each commit took a file-backed commit from ~130 to ~175 µs.
    /// Positioned I/O only is used on these descriptors, so moving the offset changes nothing.
    static func length(of descriptor: Int32) -> UInt64 {
        let length = lseek(descriptor, 0, SEEK_END)
        return length < 0 ? 0 : UInt64(length)
    }
}
