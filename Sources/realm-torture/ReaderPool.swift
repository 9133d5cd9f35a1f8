import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The driver's side of the multiprocess mode: the reader children (``TortureReader``) that follow
/// the writer of one workload's file, started, SIGKILLed and restarted by the driver, and what
/// they reported over their stdout pipes.
///
/// Every reader's output is drained often (``poll()``), so none blocks long on a full pipe; a
/// reader that exits by itself (a `violation` line, a trap) fails the run. The snapshots they
/// report wait in ``pending`` for the driver's check, which compares them with its model.
final class ReaderPool {
    final class Child {
        let index: Int
        let process: Process
        let output: Int32
        let errors: String
        var lines: ChildLines

        init(index: Int, process: Process, output: Int32, errors: String) {
            self.index = index
            self.process = process
            self.output = output
            lines = ChildLines(descriptor: output)
            self.errors = errors
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the readers did over the run.
    struct Statistics {
        var starts = 0, kills = 0, opens = 0, snapshots = 0, held = 0, streamed = 0
        /// Snapshots the driver compared with its model (single-lane workloads), and those it
        /// could not place: reported after a later run began, from a commit it no longer has.
        var verified = 0, unplaced = 0
    }

    let count: Int
    let directory: URL
    /// Makes a child process of the torture executable (the driver's ``Driver/child()``).
    let makeChild: () -> Process
    private(set) var children: [Child?]
    /// The workload whose file the readers follow.
    private(set) var workload: Workload?
    var statistics = Statistics()
    /// Snapshots reported since the driver last took them, as digests.
    var pending: [ContentDigest] = []

    init(count: Int, directory: URL, makeChild: @escaping () -> Process) {
        self.count = count
        self.directory = directory
        self.makeChild = makeChild
        children = Array(repeating: nil, count: count)
    }

    var running: Int { children.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// Starts the readers that are missing, on `workload`'s file (stopping those following
    /// another file first).
    func ensure(_ workload: Workload, path: String, random: inout SplitMix) throws {
        if self.workload != workload {
            try stopAll()
            pending = []
        }
        self.workload = workload
        for index in 0..<count where children[index] == nil {
            try start(index, path: path, seed: random.next() >> 1)
        }
    }

    private func start(_ index: Int, path: String, seed: UInt64) throws {
        let process = makeChild()
        process.arguments = ["reader", workload!.rawValue, path, String(seed)]
        let pipe = Pipe()
        let errors = directory.appendingPathComponent("reader-\(index)-stderr").path
        ChildLines.emptyFile(errors)
        process.standardOutput = pipe
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        // The child has its copy: closing ours makes the pipe end when the child does.
        try pipe.fileHandleForWriting.close()
        let output = dup(pipe.fileHandleForReading.fileDescriptor)
        try pipe.fileHandleForReading.close()
        _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
        children[index] = Child(index: index, process: process, output: output, errors: errors)
        statistics.starts += 1
    }

    /// SIGKILLs reader `index` (if running), reaps it and takes what it wrote before.
    func kill(_ index: Int) throws {
        guard let child = children[index] else { return }
        if child.process.isRunning { _ = Glibc.kill(child.process.processIdentifier, SIGKILL) }
        child.process.waitUntilExit()
        try drain(child)
        close(child.output)
        children[index] = nil
        guard child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL else {
            throw exitFailure(child)
        }
        statistics.kills += 1
    }

    /// Kills every reader (all of them, whatever one reports): the file is then the driver's
    /// alone to check. Throws the first reader's failure.
    func stopAll() throws {
        var failure: (any Error)?
        for index in 0..<count {
            do {
                try kill(index)
            } catch {
                if let child = children[index] { close(child.output) }
                children[index] = nil
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// The snapshots reported since the last call.
    func takePending() -> [ContentDigest] {
        defer { pending = [] }
        return pending
    }

    /// Takes every reader's output so far; a reader that exited by itself fails the run.
    func poll() throws {
        for case let child? in children {
            try drain(child)
            if !child.process.isRunning {
                child.process.waitUntilExit()
                try drain(child)
                throw exitFailure(child)
            }
        }
    }

    private func exitFailure(_ child: Child) -> Failure {
        let errors = (try? String(contentsOfFile: child.errors, encoding: .utf8)) ?? ""
        let how = child.process.terminationReason == .exit ? "exited with status" : "died of signal"
        return Failure(description: "reader \(child.index) \(how) \(child.process.terminationStatus) by itself\(errors.isEmpty ? "" : ": \(errors)")")
    }

    private func drain(_ child: Child) throws {
        for line in child.lines.take() { try take(line, from: child) }
    }

    private func take(_ line: String, from child: Child) throws {
        switch line.split(separator: " ", maxSplits: 1).first ?? "" {
        case "opened": statistics.opens += 1
        case "held": statistics.held += 1
        case "stream": statistics.streamed += 1
        case "snapshot":
            guard let digest = ContentDigest(line: line.dropFirst("snapshot ".count)) else {
                throw Failure(description: "reader \(child.index) reported a malformed snapshot: \(line)")
            }
            statistics.snapshots += 1
            pending.append(digest)
        case "violation":
            throw Failure(description: "reader \(child.index) (pid \(child.process.processIdentifier)): \(line.dropFirst("violation ".count))")
        default:
            throw Failure(description: "reader \(child.index) printed: \(line)")
        }
    }
}
