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
    }

    let options: DriverOptions
    let directory: URL
    let executable: String
    var files: [Workload: FileState] = [:]
    var random: SplitMix
    var failures = 0
    var checkSeconds = 0.0

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
    }

    func path(_ workload: Workload) -> String { directory.appendingPathComponent("\(workload).realm").path }

    /// Starts the workload over on a new file (its counters go on).
    func removeFile(_ workload: Workload) {
        for suffix in ["", ".lock", ".creating"] { unlink(path(workload) + suffix) }
        var state = files[workload] ?? FileState()
        state.model = Model()
        state.slots = [:]
        state.newFiles += 1
        files[workload] = state
    }

    func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Runs until `kills` kills or `minutes` have passed; returns the exit status.
    func run() -> Int32 {
        let start = Date()
        log("realm-torture: seed \(options.seed), \(options.encrypted ? "encrypted, " : "")\(options.kills) kills, workloads \(options.workloads.map(\.rawValue).joined(separator: ",")), keys \(options.keys), values up to \(options.maximumValue) B, in \(directory.path)")
        var kill = 0
        while kill < options.kills && Date().timeIntervalSince(start) < options.minutes * 60 {
            kill += 1
            let workload = options.workloads[(kill - 1) % options.workloads.count]
            let full = kill % options.verifyEvery == 0
            do {
                try killOnce(kill, workload, fullCheck: full)
            } catch {
                failures += 1
                log("FAILED at kill \(kill) (\(workload)): \(error)")
                let kept = directory.appendingPathComponent("failed-\(workload)-\(kill).realm").path
                _ = try? FileManager.default.copyItem(atPath: path(workload), toPath: kept)
                log("the file is kept at \(kept); reproduce with --seed \(options.seed)")
                break
            }
            if !options.quiet && (kill % 10 == 0 || kill == options.kills) {
                log(progressLine(kill: kill, elapsed: Date().timeIntervalSince(start)))
            }
        }
        if failures == 0 {
            for workload in options.workloads where files[workload]!.kills > 0 {
                do {
                    try check(workload, full: true, run: nil, acknowledged: [:], aimed: nil)
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
        if workload == .open && random.chance(1, in: 3) { removeFile(workload) }
        // The low 20 bits carry the kill number, which `sliding` uses to grow its keys.
        let seed = (random.next() >> 21) << 20 | UInt64(kill)
        let acknowledgements = directory.appendingPathComponent("acks").path
        let errors = directory.appendingPathComponent("writer-stderr").path
        unlink(acknowledgements)
        _ = FileManager.default.createFile(atPath: acknowledgements, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let process = child()
        process.arguments = ["writer", workload.rawValue, path(workload), acknowledgements, String(kill), String(seed),
                             String(options.keys), String(options.maximumValue)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        let delay = random.chance(1, in: 8)
            ? Double(random.below(60)) / 1000
            : options.minimumDelay + Double(random.below(1000)) / 1000 * (options.maximumDelay - options.minimumDelay)
        if workload == .retention && RetentionSlots.Run(seed: seed).aimed {
            // The writer kills itself at the commit it aims at (``Writer/runRetention()``);
            // SIGKILL from here only if it has not within a minute.
            for _ in 0..<6_000 where process.isRunning { usleep(10_000) }
        } else {
            usleep(UInt32(delay * 1_000_000))
        }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        guard process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure("the writer stopped by itself (status \(process.terminationStatus)): \(message)")
        }
        var acknowledged: [Int: Int] = [:]
        var aimed: Int?  // the commit the writer aimed its kill at
        let lines = (try? String(contentsOfFile: acknowledgements, encoding: .utf8)) ?? ""
        for line in lines.split(separator: "\n") {
            if line.hasPrefix("aim ") { aimed = Int(line.dropFirst(4)) }
            let fields = line.split(separator: " ").compactMap { Int($0) }
            if fields.count == 2 { acknowledged[fields[0]] = max(acknowledged[fields[0]] ?? 0, fields[1]) }
        }
        files[workload]!.kills += 1
        files[workload]!.acknowledged += acknowledged.values.reduce(0, +)
        try check(workload, full: fullCheck, run: (kill, seed), acknowledged: acknowledged, aimed: aimed)
    }

    /// A child process of this executable, told to encrypt if the run is encrypted.
    func child() -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        var environment = ProcessInfo.processInfo.environment
        environment[TortureEncryption.environmentVariable] = options.encrypted ? "1" : nil
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
        let filePath = path(workload)
        if let size = try? FileManager.default.attributesOfItem(atPath: filePath)[.size] as? UInt64 {
            files[workload]!.largestBytes = max(files[workload]!.largestBytes, size)
        }
        guard FileManager.default.fileExists(atPath: filePath) else {
            // Killed before the file was created: nothing may have been acknowledged.
            guard acknowledged.values.allSatisfy({ $0 == 0 }) else { throw Failure("commits were acknowledged but there is no file") }
            return
        }
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
        var state = files[workload]!
        var landedInRun = 0
        if let run {
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
                }
                if landed > 0 { state.model.progress[lane] = LaneProgress(run: run.number, commit: landed) }
                landedInRun = max(landedInRun, landed)
                state.commits += landed
            }
        }
        files[workload] = state
        let expected = state.model.digest
        guard found == expected else {
            throw Failure("the content differs from the model:\n  file:  \(found)\n  model: \(expected)")
        }
        try checkSlots(workload, reported: text, landed: landedInRun, aimed: aimed)
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
