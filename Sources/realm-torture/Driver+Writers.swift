import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The several-writers mode of the driver (`--writers W`, ``WriterPool``): W writer processes
// write the workload's file at once through the public API, each in lanes of its own and all in
// one shared ``Bank``, while the driver SIGKILLs them and checks the file beside the survivors.
extension Driver {
    /// One kill of the several-writers mode: the missing writers (and readers) are started,
    /// and after a random delay one writer is SIGKILLed — one kill in four a second one 0–30 ms
    /// later, as the survivors take write ownership and recover the first one's writes — and the
    /// file is checked beside the writers still running (``checkShared(_:full:)``). A stretch's
    /// last kill stops every child and checks the file alone, page by page.
    ///
    /// Where the kills land: the driver's SIGKILL finds a writer wherever it is — waiting for
    /// ownership (most of the time, with several writers), committing, opening (one kill in
    /// eight comes within 60 ms of the restarts) — and writers kill themselves inside flushes
    /// and warm recoveries (``SharedWriterKills``), restarted as soon as the driver sees them dead.
    func killShared(_ kill: Int, _ workload: Workload, fullCheck: Bool) throws {
        try ensureWriters(workload)
        try readers?.ensure(workload, path: path(workload), random: &random)
        let delay = random.chance(1, in: 8)
            ? Double(random.below(60)) / 1000
            : options.minimumDelay + Double(random.below(1000)) / 1000 * (options.maximumDelay - options.minimumDelay)
        try wait(seconds: delay, workload: workload) { true }
        let writers = writers!
        let first = random.below(writers.count)
        try writers.kill(first) { try take($0, workload) }
        if writers.count > 1 && random.chance(1, in: 4) {
            try wait(seconds: Double(random.below(31)) / 1000, workload: nil) { true }
            try writers.kill((first + 1 + random.below(writers.count - 1)) % writers.count) { try take($0, workload) }
        }
        if let readers, random.chance(1, in: 4) { try readers.kill(random.below(readers.count)) }
        // Let the readers report the last versions they saw.
        if readers != nil { try wait(seconds: 0.02, workload: nil) { true } }
        if fullCheck {
            try writers.stopAll { try take($0, workload) }
            try readers?.stopAll()
        }
        files[workload]!.kills += 1
        try checkShared(workload, full: fullCheck)
    }

    /// Starts the writers that are missing on `workload`'s file, each a new run.
    func ensureWriters(_ workload: Workload) throws {
        try writers!.ensure(workload, path: path(workload), keys: options.keys, maximumValue: options.maximumValue, newRun: {
            runs += 1
            let seed = random.next() >> 1
            files[workload]!.shared.seeds[runs] = seed
            return (runs, seed)
        }, take: { try take($0, workload) })
    }

    /// Takes a writer's note into the workload's model.
    func take(_ event: WriterPool.Event, _ workload: Workload) throws {
        try files[workload]!.shared.take(event, workload: workload, keys: options.keys, maximumValue: options.maximumValue)
    }

    /// Takes the writers' notes, and restarts those that killed themselves (during a wait).
    func pollWriters() throws {
        guard let writers, let workload = writers.workload else { return }
        if try writers.poll(take: { try take($0, workload) }) { try ensureWriters(workload) }
    }

    /// Checks the file of a several-writers run in a checker child, beside the writers still
    /// running (or alone, after a stretch's last kill and at the end):
    ///
    /// - every commit acknowledged before the check began is in the file (each lane's progress
    ///   reaches its newest acknowledgement);
    /// - each lane is exactly its model after the commits the file says it holds (the lane's
    ///   model advanced there), and the shared counter is the sum of the lanes' commits — a
    ///   commit built on an old version would lose increments;
    /// - the bank's total is its accounts' initial balances (``Bank``);
    /// - the file stays within ``fileBound(largestLive:)``; with `full`, every page checks.
    func checkShared(_ workload: Workload, full: Bool) throws {
        let started = Date()
        defer { checkSeconds += Date().timeIntervalSince(started) }
        try writers!.drainAll { try take($0, workload) }
        let required = files[workload]!.shared.acknowledged
        guard let (text, found) = try runChecker(workload, full: full) else {
            guard required.isEmpty else { throw Failure("commits were acknowledged but there is no file") }
            return
        }
        // Every run whose commits the file may hold has noted where it resumed by now.
        try writers!.drainAll { try take($0, workload) }
        var state = files[workload]!
        try checkSpace(text, followed: text.split(separator: "\n").contains("follower"), state: &state)
        guard let bank = text.split(separator: "\n").first(where: { $0.hasPrefix("bank ") }),
              case let figures = bank.split(separator: " ").dropFirst().compactMap({ Int($0) }), figures.count == 2
        else { throw Failure("the checker printed no bank line: \(text)") }
        if let violation = Bank.violation(accounts: figures[0], total: figures[1]) { throw Failure(violation) }
        for lane in Set(found.progress.keys).union(state.shared.lanes.keys) {
            let now = found.progress[lane]
            if let needed = required[lane], now.map({ $0.isBefore(needed) }) ?? true {
                throw Failure("lane \(lane): \(needed) was acknowledged before the check began, but the file holds \(now.map(\.description) ?? "no commit") — an acknowledged commit was lost")
            }
            try state.shared.advance(lane, to: now, workload: workload, keys: options.keys, maximumValue: options.maximumValue, finder: "the check")
        }
        state.commits = state.shared.commits
        state.acknowledged = writers!.acknowledgedOn[workload] ?? 0
        files[workload] = state
        // Snapshots of several lanes are the readers' own to check (their invariants).
        if let readers { readers.statistics.unplaced += readers.takePending().count }
        let expected = state.shared.digest
        guard found == expected else {
            throw Failure("the content differs from the model:\n  file:  \(found)\n  model: \(expected)")
        }
    }

    /// What the several-writers mode did, for the closing report.
    func sharedReport() -> [String] {
        guard let writers else { return [] }
        var lines = writers.statistics.indices.map { slot -> String in
            let slotStatistics = writers.statistics[slot]
            return String(format: "  writer %d: %d runs, %d SIGKILLed by the driver, %d killed themselves, %d commits acknowledged (%.0f a second while running), %d warm recoveries begun (%d killed in), longest wait to begin a write %d ms",
                          slot, slotStatistics.starts, slotStatistics.kills, slotStatistics.selfKills, slotStatistics.acknowledged,
                          Double(slotStatistics.acknowledged) / max(slotStatistics.seconds, 0.001), slotStatistics.recoveries,
                          slotStatistics.recoveryKills, slotStatistics.longestWait)
        }
        let resumes = files.values.reduce(0) { $0 + $1.shared.resumes }
        lines.append("  writers: \(resumes) lanes resumed from what the file held; the bank's total held at every check")
        return lines
    }
}
