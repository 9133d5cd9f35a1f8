import Foundation
import RealmStorage

/// Finds an executable of the package that tests spawn as a child process (`realm-crash-writer`,
/// `realm-schema-process`).
///
/// SwiftPM puts every product of one build into one directory (`.build/<triple>/debug`, with
/// `.build/debug` a link to it), and each test target depends on the executables it spawns, so
/// `swift test` always builds them there. On Linux the test process *is* `<that directory>/<Package>PackageTests.xctest`
/// (an executable), so the child is beside `/proc/self/exe`; on macOS the test bundle is a
/// directory inside it (`….xctest/Contents/MacOS/…`), so the search walks up a few levels. An environment
/// variable (`override`) overrides both, and `.build/debug` under the package
/// root (found from this source file's path) is the last resort.
package enum TestExecutable {
    package static func path(named name: String, override: String) throws -> String {
        if let override = ProcessInfo.processInfo.environment[override] { return override }
        var starts: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: executable))
        }
        if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath()) }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath())
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let candidate = directory.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let fallback = packageRoot.appendingPathComponent(".build/debug/\(name)").path
        if FileManager.default.isExecutableFile(atPath: fallback) { return fallback }
        throw StorageError(.fileNotFound, "\(name) not found next to the test executable (\(starts.map(\.path))) nor at \(fallback)")
    }
}

/// A child process with its standard output on a pipe, read line by line.
///
/// Spawned with `posix_spawn` rather than `Foundation.Process` so the test controls exactly what
/// it inherits: the pipe is created close-on-exec and only `dup2`ed into this child, so a
/// writer launched by another test running in parallel cannot hold our pipe open (which would
/// hide the end of file).
package final class ChildProcess {
    package enum Status: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)
        package var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    private static let spawnLock = NSLock()
    package let pid: Int32
    private let output: Int32
    private var buffer: [UInt8] = []
    private var atEnd = false
    private var status: Status?

    package init(executable: String, arguments: [String], standardError: String) throws {
        // Tests spawn in parallel: between `pipe` and `fcntl` another spawn would inherit the
        // descriptors, so all spawns of this process take one lock (Glibc does not export pipe2).
        let (pid, descriptor) = try Self.spawnLock.withLock { () throws -> (pid_t, Int32) in
            var descriptors: [Int32] = [-1, -1]
            guard pipe(&descriptors) == 0 else { throw StorageError.fromErrno(errno, "pipe", path: nil) }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)  // dup2 clears close-on-exec
            posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            let environment: [UnsafeMutablePointer<CChar>?] = [nil]
            var pid: pid_t = 0
            let result = posix_spawn(&pid, executable, &actions, nil, argv, environment)
            close(descriptors[1])
            guard result == 0 else {
                close(descriptors[0])
                throw StorageError.fromErrno(result, "Could not start \(executable)", path: nil)
            }
            return (pid, descriptors[0])
        }
        self.pid = pid
        output = descriptor
    }

    deinit {
        if status == nil {
            sendKill()
            _ = wait()
        }
        close(output)
    }

    /// The next line of output, or nil at the end of the output (the child closed it or died).
    package func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if atEnd { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                atEnd = true
                if !buffer.isEmpty { buffer.append(UInt8(ascii: "\n")) }  // an unterminated last line
                continue
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    package func sendKill() { _ = kill(pid, SIGKILL) }

    /// Waits for the child to end (once; later calls return the same status).
    package func wait() -> Status {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        // WIFEXITED/WTERMSIG are C macros Swift does not import.
        let result: Status = raw & 0x7F == 0 ? .exited((raw >> 8) & 0xFF) : .signaled(raw & 0x7F)
        status = result
        return result
    }
}
