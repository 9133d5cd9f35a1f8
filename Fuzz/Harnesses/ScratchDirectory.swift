import Foundation

/// A directory of this process's own for the files a harness writes each run: in `/dev/shm`
/// when there is one (a run writes a file or two per input, and memory is faster than a disk),
/// else the temporary directory. Removed when the process exits normally; `Scripts/fuzz.sh`
/// removes what a crash leaves.
final class ScratchDirectory {
    let path: String

    init(_ purpose: String) {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        path = "\(base)/realm-fuzz-\(getpid())-\(purpose)"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        Self.created.append(path)
        if Self.created.count == 1 { atexit { ScratchDirectory.removeAll() } }
    }

    /// Writes `bytes` to the file `name` in the directory, replacing it; returns its path. A
    /// failed write leaves no file, which the harness's open then reports.
    func write(_ bytes: some DataProtocol, to name: String) -> String {
        let file = "\(path)/\(name)"
        if !FileManager.default.createFile(atPath: file, contents: Data(bytes)) { try? FileManager.default.removeItem(atPath: file) }
        return file
    }

    /// Removes every file in the directory.
    func clear() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            try? FileManager.default.removeItem(atPath: "\(path)/\(name)")
        }
    }

    /// The directories made, removed at exit. Touched only on the main thread, before and
    /// between runs (`FuzzTarget`), and by the exit handler that thread runs.
    nonisolated(unsafe) private static var created: [String] = []

    private static func removeAll() {
        for path in created { try? FileManager.default.removeItem(atPath: path) }
    }
}
