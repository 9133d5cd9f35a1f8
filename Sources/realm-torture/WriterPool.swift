import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The driver's side of the several-writers mode (`--writers W`): W writer children
/// (``Writer`` with a first lane) writing one workload's file at once, writer `slot` in lanes
/// `slot × lanes ..< (slot + 1) × lanes`. The driver starts the missing ones (each start a new
/// run, with its own seed), SIGKILLs one or two at a time, and reads what they noted in their
/// acknowledgement files (``Event``): a file each, appended to with whole lines, read from
/// where the last read stopped.
///
/// A writer that dies of a SIGKILL it sent itself (``SharedWriterKills``) is a kill too, found
/// by ``poll()``; one that exits any other way fails the run.
final class WriterPool {
    /// What a writer noted, in the order it noted it.
    enum Event {
        /// Lane `lane` of run `run` resumes after `from` (nil: the lane never committed).
        case resumed(lane: Int, run: Int, from: LaneProgress?)
        /// Commit `commit` of run `run` on lane `lane` returned: it is durable and published.
        case acknowledged(lane: Int, run: Int, commit: Int)
        /// The writer in `slot` began a warm recovery.
        case recovered(slot: Int)
        /// A write transaction waited longer to begin than any before (in ``SlotStatistics``).
        case waited
    }

    final class Child {
        let slot: Int
        let run: Int
        let process: Process
        let acknowledgements: Int32
        let errors: String
        let started = Date()
        var lines: ChildLines

        init(slot: Int, run: Int, process: Process, acknowledgements: Int32, errors: String) {
            self.slot = slot
            self.run = run
            self.process = process
            self.acknowledgements = acknowledgements
            self.errors = errors
            lines = ChildLines(descriptor: acknowledgements)
        }
    }

    /// What each writer slot did over the run.
    struct SlotStatistics {
        var starts = 0, kills = 0, selfKills = 0
        /// Warm recoveries begun, and those the writer killed itself in.
        var recoveries = 0, recoveryKills = 0
        /// Commits acknowledged, by every run of the slot (each run's last acknowledgement per lane).
        var acknowledged = 0
        /// Seconds the slot's writers ran.
        var seconds = 0.0
        /// The longest a write transaction of the slot waited to begin (ms): in-process queueing
        /// and write ownership.
        var longestWait = 0
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let count: Int
    let directory: URL
    let makeChild: () -> Process
    private(set) var children: [Child?]
    private(set) var workload: Workload?
    var statistics: [SlotStatistics]
    /// Commits acknowledged on each workload's file, by writers that ended.
    private(set) var acknowledgedOn: [Workload: Int] = [:]
    /// Each running child's last acknowledgement per lane (folded into ``statistics`` at its end).
    private var acknowledged: [Int: [Int: Int]] = [:]

    init(count: Int, directory: URL, makeChild: @escaping () -> Process) {
        self.count = count
        self.directory = directory
        self.makeChild = makeChild
        children = Array(repeating: nil, count: count)
        statistics = Array(repeating: SlotStatistics(), count: count)
    }

    var running: [Int] { children.indices.filter { children[$0] != nil } }

    /// The lanes of writer `slot` on `workload`'s file.
    static func lanes(slot: Int, workload: Workload) -> Range<Int> { (slot * workload.lanes)..<((slot + 1) * workload.lanes) }

    /// Starts the missing writers on `workload`'s file (none may be running on another's);
    /// `newRun` gives each start its run number and seed.
    func ensure(_ workload: Workload, path: String, keys: Int, maximumValue: Int, newRun: () -> (run: Int, seed: UInt64),
                take: (Event) throws -> Void) throws {
        // A stretch ends with every writer stopped: notes of one file's writers never reach
        // another's model.
        guard self.workload == workload || running.isEmpty else {
            throw Failure(description: "writers of \(self.workload!) still run as \(workload)'s start")
        }
        self.workload = workload
        for slot in 0..<count where children[slot] == nil {
            let (run, seed) = newRun()
            let acknowledgements = directory.appendingPathComponent("acks-\(slot)").path
            let errors = directory.appendingPathComponent("writer-\(slot)-stderr").path
            ChildLines.emptyFile(acknowledgements)
            ChildLines.emptyFile(errors)
            let process = makeChild()
            process.arguments = ["writer", workload.rawValue, path, acknowledgements, String(run), String(seed), String(keys),
                                 String(maximumValue), String(Self.lanes(slot: slot, workload: workload).lowerBound)]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: errors)
            try process.run()
            let descriptor = open(acknowledgements, O_RDONLY)
            guard descriptor >= 0 else { throw Failure(description: "cannot read \(acknowledgements)") }
            children[slot] = Child(slot: slot, run: run, process: process, acknowledgements: descriptor, errors: errors)
            statistics[slot].starts += 1
        }
    }

    /// SIGKILLs writer `slot` (if running), reaps it and takes what it noted.
    func kill(_ slot: Int, take: (Event) throws -> Void) throws {
        guard let child = children[slot] else { return }
        if child.process.isRunning { _ = Glibc.kill(child.process.processIdentifier, SIGKILL) }
        try end(child, take: take)
        statistics[slot].kills += 1
    }

    /// Kills every writer (all of them, whatever one reports); throws the first failure.
    func stopAll(take: (Event) throws -> Void) throws {
        var failure: (any Error)?
        for slot in running {
            do { try kill(slot, take: take) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// Takes what every writer noted so far. A writer that killed itself is reaped (the caller
    /// starts another); one that exited any other way fails the run. Returns whether one died.
    @discardableResult
    func poll(take: (Event) throws -> Void) throws -> Bool {
        var died = false
        for case let child? in children {
            try drain(child, take: take)
            if !child.process.isRunning {
                try end(child, take: take)
                statistics[child.slot].selfKills += 1
                died = true
            }
        }
        return died
    }

    /// Reaps a writer that is dead or dying, takes its last notes, and frees its slot; throws
    /// unless it died of a SIGKILL (the driver's or its own).
    private func end(_ child: Child, take: (Event) throws -> Void) throws {
        child.process.waitUntilExit()
        defer {
            close(child.acknowledgements)
            children[child.slot] = nil
            statistics[child.slot].seconds += Date().timeIntervalSince(child.started)
            let commits = acknowledged.removeValue(forKey: child.slot)?.values.reduce(0, +) ?? 0
            statistics[child.slot].acknowledged += commits
            if let workload { acknowledgedOn[workload, default: 0] += commits }
        }
        try drain(child, take: take)
        guard child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL else {
            let errors = (try? String(contentsOfFile: child.errors, encoding: .utf8)) ?? ""
            let how = child.process.terminationReason == .exit ? "exited with status" : "died of signal"
            throw Failure(description: "writer \(child.slot) (run \(child.run)) \(how) \(child.process.terminationStatus) by itself\(errors.isEmpty ? "" : ": \(errors)")")
        }
    }

    /// Drains every running writer's notes.
    func drainAll(take: (Event) throws -> Void) throws {
        for case let child? in children { try drain(child, take: take) }
    }

    private func drain(_ child: Child, take: (Event) throws -> Void) throws {
        for line in child.lines.take() { try take(event(line, from: child)) }
    }

    private func event(_ line: String, from child: Child) throws -> Event {
        let fields = line.split(separator: " ")
        if fields.first == "recovered" && fields.count <= 2 {
            statistics[child.slot].recoveries += 1
            if fields.last == "dying" { statistics[child.slot].recoveryKills += 1 }
            return .recovered(slot: child.slot)
        }
        if fields.count == 2, fields[0] == "waited", let milliseconds = Int(fields[1]) {
            statistics[child.slot].longestWait = max(statistics[child.slot].longestWait, milliseconds)
            return .waited
        }
        if fields.count == 3, fields[0] == "resume", let lane = Int(fields[1]) {
            if fields[2] == "-" { return .resumed(lane: lane, run: child.run, from: nil) }
            let parts = fields[2].split(separator: ":").compactMap { Int($0) }
            if parts.count == 2 { return .resumed(lane: lane, run: child.run, from: LaneProgress(run: parts[0], commit: parts[1])) }
        }
        if fields.count == 2, let lane = Int(fields[0]), let commit = Int(fields[1]) {
            acknowledged[child.slot, default: [:]][lane] = commit
            return .acknowledged(lane: lane, run: child.run, commit: commit)
        }
        throw Failure(description: "writer \(child.slot) (run \(child.run)) noted: \(line)")
    }
}
