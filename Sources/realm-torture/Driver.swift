import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a torture run does: `realm-torture --help` describes each option.
struct DriverOptions {
    var kills = 200
    var minutes: Double = .infinity
    var workloads = Workload.allCases
    var keys = 20_000
    var maximumValue = 65_536
    var verifyEvery = 10
    var seed: UInt64 = UInt64.random(in: 1...UInt64.max >> 1)
    var directory: URL?
    var minimumDelay = 0.05
    var maximumDelay = 1.0
    var quiet = false
    /// Whether every file is encrypted (``TortureEncryption``).
    var encrypted = false
    /// The multiprocess mode's reader processes (0: the writer alone).
    var readers = 0
    /// The several-writers mode's writer processes (1: one writer at a time).
    var writers = 1

    /// The workloads of a multiprocess run unless told otherwise: `open` replaces its file
    /// (which its readers would keep reading) and `retention` compacts it in the checker.
    static let multiprocessWorkloads: [Workload] = [.churn, .actors, .links, .sliding, .replicated]
}

/// The torture driver: for each kill, starts a writer child on one workload's file, SIGKILLs it
/// at a random moment (one kill in eight within the first 60 ms: open, recovery, schema
/// creation), then has a checker child open the file as the crash left it and compares what it
/// holds with the model:
///
/// - every acknowledged commit is there (each lane's progress reaches its last acknowledgement);
/// - the content is exactly the model after replaying the commits the file says it holds, no
///   more and no less (nothing half-applied, nothing lost, nothing from a failed commit);
/// - every `verifyEvery` kills and at the end, every page of the file passes the integrity check.
///
/// The first failure stops the run, keeps the file (`failed-<workload>-<kill>.realm`) and exits 1.
///
/// The multiprocess mode (`readers` > 0) adds read-only processes (``TortureReader``, managed by
/// ``ReaderPool``) that follow the writer of the workload's file: started beside each writer,
/// SIGKILLed at random moments during its run (each with even odds per kill, and one kill in
/// four together with the writer) and started again, so that writers join readers left attached
/// by the previous kill, and readers attach beside writers that are opening, recovering and
/// committing. Each workload then runs `verifyEvery` kills in a row; the last one of each stretch
/// kills every reader too, and its full check runs with the file alone. On top of the checks above:
///
/// - every reader checks its snapshots as it reads them (``TortureReader``) and a violation
///   fails the run; the driver compares each snapshot of a single-lane workload with its model
///   after exactly the commits the snapshot's progress names, and fails the run if a reader saw
///   a commit the file does not hold;
/// - the checks between stretches run beside the readers still attached, as followers of the
///   version the dead writer published; the next writer may recover a commit the log held
///   beyond it (durable, never acknowledged), which it reports before committing (`start`) and
///   the model takes — going back from what the check saw fails the run;
/// - readers killed while attached leave no trace: the checks pass, and the file's growth stays
///   bounded — at each stretch's end its length is at most ``fileBound(largestLive:)`` of the
///   largest live data the file held (pins of dead readers that were never reclaimed would keep
///   every page freed since they were taken, and the file would grow with every commit).
///
/// The several-writers mode (`writers` > 1, ``killShared(_:_:fullCheck:)``) keeps that many
/// writer processes (``WriterPool``) writing the workload's file at once through the public API
/// (`asyncWrite` from actors), writer *i* in lanes of its own and all of them moving money in
/// one ``Bank``. Each kill SIGKILLs one writer, one kill in four a second one 0–30 ms later
/// (landing in the survivors' hand-over and warm recovery); writers also kill themselves inside
/// flushes and warm recoveries (``SharedWriterKills``). Killed writers start again as new runs
/// that resume their lanes from what the file holds. Workloads run in stretches of
/// `verifyEvery` kills (with readers too, if any), and each check runs beside the surviving
/// writers (``checkShared(_:full:)``): every commit acknowledged before it began is there, each
/// lane equals its model (``SharedLanes``), the shared counter is the sum of every lane's
/// commits and the bank's total holds (a commit built on a stale version breaks both), the file
/// stays within ``fileBound(largestLive:)``; at a stretch's end, with every child dead, every
/// page. The closing report gives each writer slot's runs, kills, acknowledged commits (and
/// their rate while running: a writer starved of write ownership shows there) and the warm
/// recoveries it began.
///
/// Children exit when the driver dies (``DriverWatch``), and a failed run kills them first.
final class Driver {
    struct FileState {
        var model = Model()
        var kills = 0
        /// Kills after which the checker applied commits only the write-ahead log held.
        var replays = 0
        var commits = 0
        var acknowledged = 0
        var largestBytes: UInt64 = 0
        var lastVerified = ""
        var newFiles = 0
        /// The file's replication slots at the last check, by name (``RetentionCheck``).
        var slots: [String: SlotReport] = [:]
        /// Slots found invalidated by a check that found them valid (or new) before, by reason.
        var invalidations: [String: Int] = [:]
        /// Kills aimed at a commit that invalidates a slot, and those after which the file held it.
        var aimedKills = 0, aimedLanded = 0
        /// Commits read from valid slots by the checks, and compactions of all-invalidated files.
        var commitsRead = 0, compactions = 0
        /// The seeds of the runs checked on this file, and whether the last check followed the
        /// version the dead writer published (readers were attached) instead of recovering the
        /// file alone.
        var runSeeds: [Int: UInt64] = [:]
        var lastCheckFollowed = false
        /// Commits found durable beyond the version the last check followed (see ``catchUp``).
        var caughtUp = 0
        /// The largest live bytes a check found, and the largest bytes readers' pins held.
        var largestLive: UInt64 = 0, largestHeld: UInt64 = 0
        /// The several-writers mode's model (``SharedLanes``), in place of `model`.
        var shared = SharedLanes()
    }

    let options: DriverOptions
    let directory: URL
    let executable: String
    var files: [Workload: FileState] = [:]
    var random: SplitMix
    var failures = 0
    var checkSeconds = 0.0
    /// The multiprocess mode's readers; nil without.
    var readers: ReaderPool?
    /// The several-writers mode's writers; nil without.
    var writers: WriterPool?
    /// The several-writers mode's last run number (each writer start is a run).
    var runs = 0

    init(options: DriverOptions) throws {
        self.options = options
        random = SplitMix(options.seed)
        executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        if let directory = options.directory {
            self.directory = directory
        } else {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("realm-torture-\(getpid())")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for workload in options.workloads { removeFile(workload) }
        if options.readers > 0 {
            readers = ReaderPool(count: options.readers, directory: directory) { [unowned self] in child() }
        }
        if options.writers > 1 {
            writers = WriterPool(count: options.writers, directory: directory) { [unowned self] in child() }
        }
    }

    /// Whether workloads run in stretches of `verifyEvery` kills, children staying attached
    /// from one kill to the next (readers, or several writers).
    var runsStretches: Bool { readers != nil || writers != nil }

    func path(_ workload: Workload) -> String { directory.appendingPathComponent("\(workload).realm").path }

    /// Starts the workload over on a new file (its counters go on).
    func removeFile(_ workload: Workload) {
        for suffix in ["", ".lock", ".creating"] { unlink(path(workload) + suffix) }
        var state = files[workload] ?? FileState()
        state.model = Model()
        state.slots = [:]
        state.runSeeds = [:]
        state.shared = SharedLanes()
        state.newFiles += 1
        files[workload] = state
    }

    func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Runs until `kills` kills or `minutes` have passed; returns the exit status.
    func run() -> Int32 {
        let start = Date()
        log("realm-torture: seed \(options.seed), \(options.encrypted ? "encrypted, " : "")\(options.writers > 1 ? "\(options.writers) writers, " : "")\(options.readers > 0 ? "\(options.readers) readers, " : "")\(options.kills) kills, workloads \(options.workloads.map(\.rawValue).joined(separator: ",")), keys \(options.keys), values up to \(options.maximumValue) B, in \(directory.path)")
        var kill = 0
        while kill < options.kills && Date().timeIntervalSince(start) < options.minutes * 60 {
            kill += 1
            // Beside readers or several writers, a workload runs a stretch of `verifyEvery`
            // kills: the children stay attached from one kill to the next.
            let stretch = runsStretches ? (kill - 1) / options.verifyEvery : kill - 1
            let workload = options.workloads[stretch % options.workloads.count]
            let full = kill % options.verifyEvery == 0
            do {
                if writers != nil {
                    try killShared(kill, workload, fullCheck: full)
                } else {
                    try killOnce(kill, workload, fullCheck: full)
                }
            } catch {
                failures += 1
                log("FAILED at kill \(kill) (\(workload)): \(error)")
                let kept = directory.appendingPathComponent("failed-\(workload)-\(kill).realm").path
                // No child may outlive a failed run (they would go on writing).
                try? writers?.stopAll { _ in }
                try? readers?.stopAll()
                _ = try? FileManager.default.copyItem(atPath: path(workload), toPath: kept)
                _ = try? FileManager.default.copyItem(atPath: path(workload) + ".log", toPath: kept + ".log")
                log("the file is kept at \(kept); reproduce with --seed \(options.seed)")
                break
            }
            if !options.quiet && (kill % 10 == 0 || kill == options.kills) {
                log(progressLine(kill: kill, elapsed: Date().timeIntervalSince(start)))
            }
        }
        if failures == 0 {
            do {
                if let writers, let workload = writers.workload { try writers.stopAll { try take($0, workload) } }
                try readers?.stopAll()
            } catch {
                failures += 1
                log("FAILED stopping the children: \(error)")
            }
        }
        if failures == 0 {
            for workload in options.workloads where files[workload]!.kills > 0 {
                do {
                    if writers != nil {
                        try checkShared(workload, full: true)
                    } else {
                        try check(workload, full: true, run: nil, acknowledged: [:], aimed: nil)
                    }
                } catch {
                    failures += 1
                    log("FAILED at the final check (\(workload)): \(error)")
                }
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        log(progressLine(kill: kill, elapsed: elapsed))
        for workload in options.workloads {
            let state = files[workload]!
            log("  \(workload): \(state.kills) kills on \(state.newFiles) file(s) (\(state.replays) left commits in the log), \(state.commits) commits found in the file (\(state.acknowledged) acknowledged before a kill), largest file \(state.largestBytes / 1_048_576) MiB, last integrity check (transaction, pages, free pages): \(state.lastVerified)")
            if !state.slots.isEmpty {
                let reasons = state.invalidations.keys.sorted().map { "\($0) \(state.invalidations[$0]!)" }.joined(separator: ", ")
                log("    slots: \(state.invalidations.values.reduce(0, +)) invalidations seen (\(reasons.isEmpty ? "none" : reasons)), \(state.aimedKills) kills aimed at an invalidating commit (\(state.aimedLanded) found it durable), \(state.commitsRead) commits read back from valid slots, \(state.compactions) compactions of files with every slot invalidated")
            }
            if runsStretches {
                log("    beside \(readers == nil ? "writers" : "readers"): largest live data \(state.largestLive / 1_048_576) MiB (file bound \(fileBound(largestLive: state.largestLive) / 1_048_576) MiB), at most \(state.largestHeld / 1_048_576) MiB held by readers' pins at a check\(writers == nil ? ", \(state.caughtUp) commits found durable beyond the version a check followed" : "")")
            }
        }
        for line in sharedReport() { log(line) }
        if let statistics = readers?.statistics {
            let compared = writers == nil
                ? "\(statistics.verified) compared with the model, \(statistics.unplaced) from a commit the model had passed"
                : "each by the reader alone: the lanes of several writers"
            log("  readers: \(statistics.starts) started, \(statistics.kills) killed, \(statistics.opens) opens, \(statistics.snapshots) snapshots checked (\(compared)), \(statistics.held) held snapshots re-read, \(statistics.streamed) change-stream elements")
        }
        log(String(format: "checking took %.0f s of %.0f s", checkSeconds, elapsed))
        // The closing line CI reads: one kill is one test.
        print("torture: \(kill - failures) passed, \(failures) failed")
        if failures == 0 && options.directory == nil { try? FileManager.default.removeItem(at: directory) }
        return failures == 0 ? 0 : 1
    }

    func progressLine(kill: Int, elapsed: Double) -> String {
        let sizes = options.workloads.map { "\($0)=\((files[$0]!.largestBytes) / 1_048_576)MiB" }.joined(separator: " ")
        let commits = files.values.reduce(0) { $0 + $1.commits }
        return String(format: "kill %d, %.0f s: %d commits, files %@", kill, elapsed, commits, sizes)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// One kill: a writer run, its kill, the check.
    func killOnce(_ kill: Int, _ workload: Workload, fullCheck: Bool) throws {
        if workload == .open && random.chance(1, in: 3) {
            try readers?.stopAll()  // they would go on reading the removed file
            removeFile(workload)
        }
        // The low 20 bits carry the kill number, which `sliding` uses to grow its keys.
        let seed = (random.next() >> 21) << 20 | UInt64(kill)
        let acknowledgements = directory.appendingPathComponent("acks").path
        let errors = directory.appendingPathComponent("writer-stderr").path
        ChildLines.emptyFile(acknowledgements)
        ChildLines.emptyFile(errors)
        let process = child()
        process.arguments = ["writer", workload.rawValue, path(workload), acknowledgements, String(kill), String(seed),
                             String(options.keys), String(options.maximumValue)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        try readers?.ensure(workload, path: path(workload), random: &random)
        let delay = random.chance(1, in: 8)
            ? Double(random.below(60)) / 1000
            : options.minimumDelay + Double(random.below(1000)) / 1000 * (options.maximumDelay - options.minimumDelay)
        if workload == .retention && RetentionSlots.Run(seed: seed).aimed {
            // The writer kills itself at the commit it aims at (``Writer/runRetention()``);
            // SIGKILL from here only if it has not within a minute.
            try wait(seconds: 60, workload: workload) { process.isRunning }
        } else {
            try wait(seconds: delay, workload: workload) { true }
        }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        if let readers, random.chance(1, in: 4) { try readers.kill(random.below(readers.count)) }
        process.waitUntilExit()
        if let readers {
            // Let the readers report the last versions they saw, then leave the file alone
            // for the stretch's full check.
            try wait(seconds: 0.02, workload: nil) { true }
            if fullCheck { try readers.stopAll() }
        }
        guard process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure("the writer stopped by itself (status \(process.terminationStatus)): \(message)")
        }
        var acknowledged: [Int: Int] = [:]
        var aimed: Int?  // the commit the writer aimed its kill at
        let lines = (try? String(contentsOfFile: acknowledgements, encoding: .utf8)) ?? ""
        for line in lines.split(separator: "\n") {
            if line.hasPrefix("aim ") { aimed = Int(line.dropFirst(4)) }
            if line.hasPrefix("start ") {
                guard let start = LaneProgress.lanes(line.dropFirst("start ".count)) else { throw Failure("the writer reported a malformed start: \(line)") }
                try writerStarted(workload, at: start)
            }
            let fields = line.split(separator: " ").compactMap { Int($0) }
            if fields.count == 2 { acknowledged[fields[0]] = max(acknowledged[fields[0]] ?? 0, fields[1]) }
        }
        files[workload]!.kills += 1
        files[workload]!.acknowledged += acknowledged.values.reduce(0, +)
        try check(workload, full: fullCheck, run: (kill, seed), acknowledged: acknowledged, aimed: aimed)
    }

    /// Waits `seconds`, or until `condition` is false, taking the readers' reports and, if
    /// `workload` is given, SIGKILLing each reader with even odds at a random moment of the wait
    /// and starting another; and taking the several writers' notes, restarting those that
    /// killed themselves.
    func wait(seconds: Double, workload: Workload?, while condition: () -> Bool) throws {
        let end = Date().addingTimeInterval(seconds)
        guard let readers else {
            while condition() && Date() < end {
                try pollWriters()
                usleep(UInt32(min(writers == nil ? 10_000 : 5_000, max(0, end.timeIntervalSinceNow) * 1_000_000)))
            }
            try pollWriters()
            return
        }
        var kills: [(at: Date, reader: Int)] = []
        if workload != nil {
            for reader in 0..<readers.count where random.chance(1, in: 2) {
                kills.append((Date().addingTimeInterval(Double(random.below(1000)) / 1000 * min(seconds, options.maximumDelay)), reader))
            }
        }
        while condition() && Date() < end {
            try readers.poll()
            try pollWriters()
            while let next = kills.firstIndex(where: { $0.at <= Date() }) {
                try readers.kill(kills.remove(at: next).reader)
                try readers.ensure(workload!, path: path(workload!), random: &random)
            }
            usleep(5_000)
        }
        try readers.poll()
        try pollWriters()
    }

    /// The writer of this kill reports the lanes' progress its open recovered (`start`): it must
    /// be the model's, or (after a check that followed a published version) further into the
    /// last run — commits the log held beyond it, which the model takes.
    func writerStarted(_ workload: Workload, at start: [Int: LaneProgress]) throws {
        var state = files[workload]!
        for lane in Set(start.keys).union(state.model.progress.keys) where start[lane] != state.model.progress[lane] {
            guard let target = start[lane] else {
                throw Failure("the writer opened the file without lane \(lane), whose progress the last check found at \(state.model.progress[lane]!)")
            }
            try catchUp(workload, lane: lane, to: target, state: &state, finder: "the writer's open")
        }
        files[workload] = state
    }

    /// Replays onto the model the commits of lane `lane` that the file holds beyond what the
    /// last check saw, up to `target` (of a run checked before: the dead writer's last commit,
    /// durable but never published, and no later run committed on the lane) — allowed only after
    /// a check that followed the version a dead writer published (an alone check recovers every
    /// durable commit).
    func catchUp(_ workload: Workload, lane: Int, to target: LaneProgress, state: inout FileState, finder: String) throws {
        let before = state.model.progress[lane]
        guard state.lastCheckFollowed, let seed = state.runSeeds[target.run] else {
            throw Failure("lane \(lane): \(finder) found progress \(target), expected \(before.map(\.description) ?? "none")")
        }
        let from = before?.run == target.run ? before!.commit : 0
        guard target.commit > from, before.map({ !target.isBefore($0) }) ?? true else {
            throw Failure("lane \(lane): \(finder) found progress \(target), but the last check saw \(before.map(\.description) ?? "none") — a version readers could see was lost")
        }
        for commit in (from + 1)...target.commit {
            for operation in workload.operations(seed: seed, lane: lane, commit: commit, keys: options.keys, maximumValue: options.maximumValue) {
                state.model.apply(operation)
            }
        }
        state.model.progress[lane] = target
        state.caughtUp += target.commit - from
        state.commits += target.commit - from
    }

    /// The largest file a workload may grow to beside readers, from the largest live data it
    /// held: room for the live data three times over (the newest version, versions readers pin
    /// for a moment, pages freed but not yet reusable) and 32 MiB for the free-list and value
    /// churn of a small file.
    func fileBound(largestLive: UInt64) -> UInt64 { 3 * largestLive + 32 * 1_048_576 }

    /// A child process of this executable, told to encrypt if the run is encrypted.
    func child() -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var environment = ProcessInfo.processInfo.environment
        environment[TortureEncryption.environmentVariable] = options.encrypted ? "1" : nil
        environment[Writer.reportStartVariable] = options.readers > 0 ? "1" : nil
        environment[TortureReader.sharedVariable] = options.writers > 1 ? "1" : nil
        environment[DriverWatch.variable] = String(getpid())
        process.environment = environment
        return process
    }

    /// Opens the file in a checker child and compares it with the model, after replaying the
    /// commits of run `run` that the file says it holds; then its replication slots against
    /// the last check's, and, if the writer aimed its kill at commit `aimed`, the slot that
    /// commit invalidates against whether the file holds it.
    func check(_ workload: Workload, full: Bool, run: (number: Int, seed: UInt64)?, acknowledged: [Int: Int], aimed: Int?) throws {
        let started = Date()
        defer { checkSeconds += Date().timeIntervalSince(started) }
        guard let (text, found) = try runChecker(workload, full: full) else {
            // Killed before the file was created: nothing may have been acknowledged.
            guard acknowledged.values.allSatisfy({ $0 == 0 }) else { throw Failure("commits were acknowledged but there is no file") }
            return
        }
        var state = files[workload]!
        let followed = text.split(separator: "\n").contains("follower")
        try checkSpace(text, followed: followed, state: &state)
        // Snapshots readers reported, by the commit of lane 0 they show (single-lane workloads).
        var snapshots = Dictionary(grouping: readers?.takePending() ?? []) { $0.progress[0] }
        var landedInRun = 0
        // Commits of an earlier run that a check beside readers did not see, found now (by the
        // final check too, alone after a stretch that ended early).
        for lane in 0..<workload.lanes {
            if let now = found.progress[lane], now.run != run?.number, now != state.model.progress[lane] {
                try catchUp(workload, lane: lane, to: now, state: &state, finder: "the check")
            }
        }
        if let run {
            if workload.lanes == 1 { try compare(&snapshots, at: state.model.progress[0], with: state.model) }
            for lane in 0..<workload.lanes {
                let before = state.model.progress[lane]
                let now = found.progress[lane]
                var landed = 0
                if let now, now.run == run.number {
                    landed = now.commit
                } else if now != before {
                    throw Failure("lane \(lane): the file's progress is \(now.map(\.description) ?? "none"), expected \(before.map(\.description) ?? "none") or run \(run.number)")
                }
                let acked = acknowledged[lane] ?? 0
                guard landed >= acked else {
                    throw Failure("lane \(lane): commit \(acked) was acknowledged but the file holds only \(landed) commits of this run — an acknowledged commit was lost")
                }
                for commit in stride(from: 1, through: landed, by: 1) {
                    for operation in workload.operations(seed: run.seed, lane: lane, commit: commit, keys: options.keys,
                                                         maximumValue: options.maximumValue) {
                        state.model.apply(operation)
                    }
                    if workload.lanes == 1 {
                        state.model.progress[lane] = LaneProgress(run: run.number, commit: commit)
                        try compare(&snapshots, at: state.model.progress[lane], with: state.model)
                    }
                }
                if landed > 0 { state.model.progress[lane] = LaneProgress(run: run.number, commit: landed) }
                landedInRun = max(landedInRun, landed)
                state.commits += landed
            }
            if workload.lanes == 1, let beyond = snapshots.keys.compactMap({ $0 }).first(where: { $0.run == run.number }) {
                throw Failure("a reader saw commit \(beyond.commit) of run \(run.number), but the file holds only \(landedInRun): a version readers could see was lost")
            }
            state.runSeeds[run.number] = run.seed
            state.lastCheckFollowed = followed
        }
        if workload.lanes == 1 { readers?.statistics.unplaced += snapshots.values.reduce(0) { $0 + $1.count } }
        files[workload] = state
        let expected = state.model.digest
        guard found == expected else {
            throw Failure("the content differs from the model:\n  file:  \(found)\n  model: \(expected)")
        }
        try checkSlots(workload, reported: text, landed: landedInRun, aimed: aimed)
    }

    /// Runs a checker child on `workload`'s file: what it printed and the content's digest; nil
    /// if there is no file. Records the file's size, its last full check, and a replay.
    func runChecker(_ workload: Workload, full: Bool) throws -> (text: String, found: ContentDigest)? {
        let filePath = path(workload)
        if let size = try? FileManager.default.attributesOfItem(atPath: filePath)[.size] as? UInt64 {
            files[workload]!.largestBytes = max(files[workload]!.largestBytes, size)
        }
        guard FileManager.default.fileExists(atPath: filePath) else { return nil }
        let process = child()
        process.arguments = ["check", filePath] + (full ? ["full"] : [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationReason == .exit else {
            throw Failure("the checker crashed (signal \(process.terminationStatus)) opening the file; it printed: \(text)")
        }
        guard process.terminationStatus == 0 else { throw Failure("the file does not check: \(text)") }
        guard let digestLine = text.split(separator: "\n").first(where: { $0.hasPrefix("digest ") }),
              let found = ContentDigest(line: digestLine.dropFirst("digest ".count))
        else { throw Failure("the checker printed no digest: \(text)") }
        if full, let verified = text.split(separator: "\n").first(where: { $0.hasPrefix("verified ") }) {
            files[workload]!.lastVerified = String(verified)
            if let retained = text.split(separator: "\n").first(where: { $0.hasPrefix("retained ") }) {
                files[workload]!.lastVerified += "; \(retained) (versions checked, retained pages)"
            }
        }
        if text.split(separator: "\n").contains("replayed") { files[workload]!.replays += 1 }
        return (text, found)
    }

    /// Compares the snapshots readers reported at lane 0's progress `progress` with the model
    /// there (which must be exactly what they read), and forgets them.
    func compare(_ snapshots: inout [LaneProgress?: [ContentDigest]], at progress: LaneProgress?, with model: Model) throws {
        guard let seen = snapshots.removeValue(forKey: progress) else { return }
        let expected = model.digest
        for snapshot in seen where snapshot != expected {
            throw Failure("a reader's snapshot at \(progress.map(\.description) ?? "no commit") differs from the model there:\n  reader: \(snapshot)\n  model:  \(expected)")
        }
        readers?.statistics.verified += seen.count
    }

    /// The checker's space figures (`space <file> <live> <free> <held>` bytes): beside readers,
    /// the held bytes a check that followed found, and at a stretch's end (alone) the live data
    /// and the file's bound.
    func checkSpace(_ text: String, followed: Bool, state: inout FileState) throws {
        guard runsStretches, let line = text.split(separator: "\n").first(where: { $0.hasPrefix("space ") }) else { return }
        let figures = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard figures.count == 4 else { throw Failure("the checker printed a malformed space line: \(line)") }
        let (fileBytes, live, held) = (figures[0], figures[1], figures[3])
        state.largestLive = max(state.largestLive, live)
        if followed { state.largestHeld = max(state.largestHeld, held) }
        guard fileBytes <= fileBound(largestLive: state.largestLive) else {
            throw Failure("the file grew to \(fileBytes / 1_048_576) MiB for at most \(state.largestLive / 1_048_576) MiB of live data (bound \(fileBound(largestLive: state.largestLive) / 1_048_576) MiB): pages pinned by readers are not reclaimed")
        }
    }

    /// The slots the checker reported against the last check's (``SlotReport/check(previous:now:)``),
    /// and an aimed kill's outcome: the file holds the aimed commit exactly when `stale` is
    /// invalidated by lag.
    func checkSlots(_ workload: Workload, reported text: String, landed: Int, aimed: Int?) throws {
        var state = files[workload]!
        var slots: [String: SlotReport] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("slot ") {
                guard let slot = SlotReport(line: line) else { throw Failure("the checker printed a malformed slot line: \(line)") }
                slots[slot.name] = slot
                state.commitsRead += slot.read
            } else if line.hasPrefix("compacted ") {
                state.compactions += 1
            }
        }
        for (name, now) in slots {
            if let previous = state.slots[name], let failure = SlotReport.check(previous: previous, now: now) { throw Failure(failure) }
            let wasValid = state.slots[name].map { $0.id != now.id || $0.isValid } ?? true
            if wasValid && !now.isValid { state.invalidations[now.state, default: 0] += 1 }
        }
        if let aimed {
            state.aimedKills += 1
            guard let stale = slots[RetentionSlots.stale] else { throw Failure("an aimed run left no slot \(RetentionSlots.stale)") }
            if landed >= aimed {
                state.aimedLanded += 1
                guard stale.state == "lag" else {
                    throw Failure("the file holds commit \(aimed), which invalidates \(RetentionSlots.stale) by lag, but the slot is \(stale.state)")
                }
            } else if !stale.isValid {
                throw Failure("the file holds only \(landed) commits of the run, before commit \(aimed), but \(RetentionSlots.stale) is \(stale.state)")
            }
        }
        state.slots = slots
        files[workload] = state
    }
}
