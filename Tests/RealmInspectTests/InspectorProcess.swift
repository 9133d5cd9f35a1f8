import Foundation
import Testing

/// Runs the `realm-inspect` executable built with the tests, its standard output and error sent
/// to files in the test's directory (files, not pipes, so a child spawned by a test running in
/// parallel cannot hold a pipe open and hide its end).
struct InspectorProcess {
    struct Outcome {
        let status: Int32
        /// Whether the process ended by a signal (a crash) rather than `exit`.
        let crashed: Bool
        /// Whether it ran past the timeout and was killed.
        var hung = false
        let standardOutput: String
        let standardError: String
        var lines: [String] { standardOutput.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    /// Where the executable is: beside the test bundle (SwiftPM builds the products the test
    /// target depends on into the same directory), or `REALM_INSPECT` if set.
    static let executable: String? = {
        if let override = ProcessInfo.processInfo.environment["REALM_INSPECT"] { return override }
        let starts = [(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map(URL.init(fileURLWithPath:)),
                      Bundle.main.executableURL?.resolvingSymlinksInPath(),
                      URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()].compactMap { $0 }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                let candidate = directory.appendingPathComponent("realm-inspect").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }()

    let directory: URL

    /// Runs `realm-inspect ARGUMENTS…` to completion, or until `timeout` has passed: then the
    /// process is killed and the outcome says it hung.
    func run(_ arguments: [String], timeout: Duration? = nil) throws -> Outcome {
        let executable = try #require(Self.executable, "realm-inspect not found beside the test executable")
        let id = UUID().uuidString
        let outURL = directory.appendingPathComponent("stdout-\(id)"), errURL = directory.appendingPathComponent("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        // The deadline is a watchdog that kills the process; the wait is `waitUntilExit`. (A
        // `terminationHandler` would do too, but swift-corelibs-foundation then never frees the
        // `Process`: LeakSanitizer counted ~1.2 MB over the damage corpus's runs.)
        let watchdog = timeout.map { timeout in
            Watchdog(process: process, after: timeout)
        }
        process.waitUntilExit()
        let hung = watchdog?.disarm() ?? false
        return Outcome(status: process.terminationStatus, crashed: !hung && process.terminationReason == .uncaughtSignal, hung: hung,
                       standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                       standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    func run(_ arguments: String...) throws -> Outcome { try run(arguments) }
}

/// Kills a process still running after a deadline; ``disarm()`` says whether it had to.
final class Watchdog: @unchecked Sendable {
    // @unchecked: `state` is read and written only under `lock`.
    private let lock = NSLock()
    private var state: (armed: Bool, fired: Bool) = (true, false)

    init(process: Process, after timeout: Duration) {
        let pid = process.processIdentifier
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
            lock.withLock {
                // Disarmed once the process was reaped: its pid may belong to another by now.
                guard state.armed else { return }
                state.fired = true
                kill(pid, SIGKILL)
            }
        }
    }

    /// Stops the watchdog (call once the process has exited); whether it killed the process.
    func disarm() -> Bool {
        lock.withLock {
            state.armed = false
            return state.fired
        }
    }
}
