#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Database {
    /// Installs a copy of the file at `seed` as the database file at `path`, unless a file is
    /// already there: what `Configuration.seedFilePath` does on a realm's first open.
    ///
    /// The copy is written and synced under a temporary name, then *linked* to `path` — a link,
    /// unlike a rename, never replaces an existing file, so two openers racing (threads or
    /// processes) install one copy and the loser keeps the winner's, and a file that appeared
    /// meanwhile is never overwritten. A crash leaves either no file at `path` or the whole copy
    /// (plus, at worst, a stray temporary file, removed by the next install). Whether the seed
    /// is a realm file is checked by the open that follows.
    ///
    /// - Returns: whether this call installed the copy.
    /// - Throws: `StorageError` — `.fileNotFound` if the seed is missing; what reading, writing
    ///   or linking fails with.
    @discardableResult
    package static func installSeed(from seed: String, to path: String) throws -> Bool {
        guard access(path, F_OK) != 0 else { return false }
        let source = openDescriptor(seed, O_RDONLY)
        guard source >= 0 else { throw StorageError.fromErrno(errno, "Could not open the seed file", path: seed) }
        defer { closeDescriptor(source) }
        let temporary = path + AuxiliaryFile.seeding.suffix
        unlink(temporary)
        // The copy gets the seed's permissions (an encrypted seed is created 0600, so its
        // copies are too).
        var info = stat()
        let mode = fstat(source, &info) == 0 ? mode_t(info.st_mode) & 0o666 : 0o600
        let destination = openDescriptor(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard destination >= 0 else { throw StorageError.fromErrno(errno, "Could not create the realm file from its seed", path: path) }
        defer { unlink(temporary) }  // after the link, `path` keeps the data
        do {
            defer { closeDescriptor(destination) }
            let chunk = 1 << 20
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = read(source, buffer, chunk)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw StorageError.fromErrno(errno, "Could not read the seed file", path: seed)
                }
                if count == 0 { break }
                var written = 0
                while written < count {
                    let result = write(destination, buffer + written, count - written)
                    if result < 0 {
                        if errno == EINTR { continue }
                        throw StorageError.fromErrno(errno, "Could not write the realm file from its seed", path: path)
                    }
                    written += result
                }
            }
            guard fsync(destination) == 0 else { throw StorageError.fromErrno(errno, "Could not sync the realm file from its seed", path: path) }
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }  // installed meanwhile: keep that one
            throw StorageError.fromErrno(errno, "Could not install the realm file from its seed", path: path)
        }
        syncDirectory(of: path)
        return true
    }
}
