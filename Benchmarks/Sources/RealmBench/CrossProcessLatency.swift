import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// W16: how long a commit made in one process takes to reach an observer in another.
///
/// The workload's child (process A, the writer) creates the file, then starts process B, this
/// binary again with `--child W16 --side … --directory … --follower`: B opens the same file
/// (ours read-only, SQLite a read-only connection), starts observing, and says `READY` on its
/// stdout. A then commits `operations` times at a steady ``commitsPerSecond``, each commit
/// setting one object's (one row's) `seq` to the commit's number and `sentAt` to the
/// `CLOCK_MONOTONIC` time taken just before it. B records, for each change it observes, the
/// newest `seq` it sees and its own `CLOCK_MONOTONIC` time of arrival, until it sees the last
/// `seq`; then it prints those pairs as one JSON line. `CLOCK_MONOTONIC` is one clock for every
/// process on a host, so A subtracts its own times from B's.
///
/// The headline latency is B's receipt − the stamp in the object: it holds the commit's own time
/// (its sync, `commitP50`/`commitP99` in the extras) and then the notification. The extras
/// `afterCommit…` measure from the end of A's commit instead (A's clock read after `write`
/// returns), the notification alone — but not reliably: the commit is published before `write`
/// returns, and when A is preempted in between, B receives it "before" it ended
/// (`afterCommitNegative` counts those; on 2 busy cores, by up to milliseconds). A change observed once for several
/// commits (a stream folds the versions it has not delivered yet; a poll sees whatever committed
/// since the last one) counts once, with the newest commit's latency: `commitsSeen` against
/// `commitsMade` says how often that happened.
enum CrossProcessLatency {
    /// A's rate: a commit every 5 ms, so that each is normally observed before the next.
    static let commitsPerSecond = 200.0
    /// How often SQLite's follower polls `PRAGMA data_version` (SQLite has no cross-process push).
    static let sqlitePollNanoseconds = 1_000_000
    /// The line B prints once it observes (its initial value read), before A's first commit.
    static let readyLine = "READY"
    /// B gives up (and fails) when the last commit has not arrived this long after it started:
    /// A's commits take `operations / commitsPerSecond`; the rest is slack for a loaded machine.
    static func followerTimeout(operations: Int) -> Double { Double(operations) / commitsPerSecond + 60 }

    /// What B reports: `seqs[i]` was observed at `receivedAt[i]` (ns, `CLOCK_MONOTONIC`), with the
    /// object's stamp `stamps[i]`.
    struct FollowerReport: Codable, Sendable {
        var seqs: [Int] = []
        var receivedAt: [Int] = []
        var stamps: [Int] = []
        /// Ours: the follower's notifier's `changesComputed` events, in order (nil for SQLite).
        var notified: [Notified]?
        var error: String?

        /// One `changesComputed` event: the version the notifier processed, when the event was
        /// reported (ns, `CLOCK_MONOTONIC`: the notifier's work for it done, its consumers woken)
        /// and its lag (ns: from the commit watcher's adoption of the version to then).
        struct Notified: Codable, Sendable {
            var version: Int
            var at: Int
            var lag: Int
        }

        /// Records `seq` when it is newer than the last one recorded. An observation can show a
        /// commit already recorded: SQLite's poll may read, after seeing `data_version` change
        /// for commit n, the row of n + 1, whose own change the next poll sees again; a stream's
        /// element may hold a newer version than the change that produced it.
        mutating func record(seq: Int, stamp: Int, at time: Int) {
            guard seq > (seqs.last ?? 0) else { return }
            seqs.append(seq)
            stamps.append(stamp)
            receivedAt.append(time)
        }
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: the same clock in every process of the host (Swift's
    /// `ContinuousClock` is `CLOCK_BOOTTIME` on Linux, also shared, but the design names this one).
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
    }

    /// Sleeps the calling thread until `CLOCK_MONOTONIC` reaches `deadline` (ns). Blocking is
    /// deliberate: A's and B's loops are the only work of their processes, and a thread sleep
    /// wakes more punctually than a `Task.sleep`.
    static func sleep(until deadline: Int) {
        while true {
            let remaining = deadline - now()
            guard remaining > 0 else { return }
            var request = timespec(tv_sec: remaining / 1_000_000_000, tv_nsec: remaining % 1_000_000_000)
            _ = nanosleep(&request, nil)
        }
    }

    // MARK: Process A

    /// A's part, once the file exists with the object at `seq` 0: starts B, waits for its
    /// `READY`, makes `operations` paced commits through `commit(seq, stamp)` (which returns, ours,
    /// the version it made and when its flush ended, for the parts of the latency: see
    /// ``parts(_:of:)``), and measures what B saw. `durability` is the writer's, for the report.
    static func measure(_ context: WorkloadContext, side: Side, durability: String,
                        commit: (_ seq: Int, _ stamp: Int) throws -> Published?) throws -> Measured {
        let operations = context.size.operations
        let process = Process()
        process.executableURL = ChildProcess.executableURL
        process.arguments = ["--child", context.spec.id.rawValue, "--side", side.rawValue,
                             "--directory", context.directory.path, "--follower"]
            // B finds `operations` in the spec by mode; the context has no mode, its size tells it.
            + (context.size == context.spec.quick ? ["--quick"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let reader = output.fileHandleForReading
        var pending = Data()
        while !String(decoding: pending, as: UTF8.self).contains(readyLine + "\n") {
            let chunk = reader.availableData
            guard !chunk.isEmpty else { throw WorkloadError("the follower exited before it was ready") }
            pending.append(chunk)
        }

        // Indexed by seq (0 unused): the stamp stored by each commit and the end of that commit.
        var stamps = [Int](repeating: 0, count: operations + 1)
        var committedAt = [Int](repeating: 0, count: operations + 1)
        var published = [Published?](repeating: nil, count: operations + 1)
        let interval = Int(1e9 / commitsPerSecond)
        let start = now()
        for seq in 1...operations {
            sleep(until: start + (seq - 1) * interval)
            stamps[seq] = now()
            published[seq] = try commit(seq, stamps[seq])
            committedAt[seq] = now()
        }
        let elapsed = Double(now() - start) / 1e9

        pending.append(reader.readDataToEndOfFile())
        process.waitUntilExit()
        let text = String(decoding: pending, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(Child.resultMarker) }),
              let report = try? JSONDecoder().decode(
                  FollowerReport.self, from: Data(line.dropFirst(Child.resultMarker.count).utf8))
        else { throw WorkloadError("the follower (status \(process.terminationStatus)) printed no result") }
        if let error = report.error { throw WorkloadError("follower: \(error)") }
        guard report.seqs.last == operations else {
            throw WorkloadError("the follower's last commit is \(report.seqs.last.map(String.init) ?? "none"), expected \(operations)")
        }
        guard zip(report.seqs, report.seqs.dropFirst()).allSatisfy({ $0 < $1 }), report.seqs.first ?? 0 > 0 else {
            throw WorkloadError("the follower saw commits out of order or repeated")
        }
        guard zip(report.seqs, report.stamps).allSatisfy({ stamps[$0] == $1 }) else {
            throw WorkloadError("the follower read a stamp that its commit did not store")
        }

        // The headline: from the stamp in the object, as a user of the data would measure it.
        let latencies = zip(report.stamps, report.receivedAt).map { Double($1 - $0) / 1e9 }
        let afterCommit = zip(report.seqs, report.receivedAt).map { Double($1 - committedAt[$0]) / 1e9 }
        let commitSeconds = (1...operations).map { Double(committedAt[$0] - stamps[$0]) / 1e9 }
        var extras: [String: Quantity] = parts(report, of: published)
        extras.merge([
                "p50": .init(Statistics.percentile(50, of: latencies), .seconds),
                "p99": .init(Statistics.percentile(99, of: latencies), .seconds),
                "max": .init(latencies.max() ?? 0, .seconds),
                "afterCommitP50": .init(Statistics.percentile(50, of: afterCommit), .seconds),
                "afterCommitP99": .init(Statistics.percentile(99, of: afterCommit), .seconds),
                "afterCommitNegative": .init(Double(afterCommit.filter { $0 < 0 }.count), .count),
                "commitP50": .init(Statistics.percentile(50, of: commitSeconds), .seconds),
                "commitP99": .init(Statistics.percentile(99, of: commitSeconds), .seconds),
                "commitsMade": .init(Double(operations), .count),
                "commitsSeen": .init(Double(report.seqs.count), .count),
                "writerCommitsPerSecond": .init(Double(operations) / elapsed, .perSecond),
            ]) { $1 }
        return Measured(samples: latencies, extras: extras, durability: durability, checksum: operations)
    }

    /// Ours, what A knows of a commit: the version it made (its `committed` event) and when the
    /// flush that made it durable ended (its `flushed` event, reported just after the flush
    /// published the version to the lock file, ns).
    struct Published: Sendable {
        var version: Int
        var flushedAt: Int
    }

    /// Ours: the latency after A's flush, split in three at the follower's `changesComputed`
    /// event for the version holding the observed commit (the first event of a version at least
    /// the commit's; observations without one are left out, `partsMatched` counts the others).
    /// `watchAndAdopt…`: from A's `flushed` event to the adoption (event − lag) — the publish's
    /// futex wake-up of B's commit watcher and its adoption of the version; A's flush publishes,
    /// gives write ownership back (a `fcntl`) and reports the event, so this runs a few µs low,
    /// and negative when A loses its core in between. `notifier…`: the lag, from the adoption
    /// to the end of the notifier's work (the hop to the notifier actor, the versions' diff, the
    /// trackers, waking the consumer). `delivery…`: from then to the consumer holding the element
    /// (its task resumed, the element read). Empty for SQLite (no versions, no events).
    static func parts(_ report: FollowerReport, of published: [Published?]) -> [String: Quantity] {
        guard let notified = report.notified else { return [:] }
        var watchAndAdopt: [Double] = [], notifier: [Double] = [], delivery: [Double] = []
        var next = 0
        for (seq, receivedAt) in zip(report.seqs, report.receivedAt) {
            guard let commit = published[seq] else { continue }
            while next < notified.count && notified[next].version < commit.version { next += 1 }
            guard next < notified.count else { break }
            let event = notified[next]
            watchAndAdopt.append(Double(event.at - event.lag - commit.flushedAt) / 1e9)
            notifier.append(Double(event.lag) / 1e9)
            delivery.append(Double(receivedAt - event.at) / 1e9)
        }
        guard !notifier.isEmpty else { return ["partsMatched": .init(0, .count)] }
        var extras: [String: Quantity] = ["partsMatched": .init(Double(notifier.count), .count)]
        for (name, values) in [("watchAndAdopt", watchAndAdopt), ("notifier", notifier), ("delivery", delivery)] {
            extras[name + "P50"] = .init(Statistics.percentile(50, of: values), .seconds)
            extras[name + "P99"] = .init(Statistics.percentile(99, of: values), .seconds)
        }
        return extras
    }

    // MARK: Process B

    /// B's part: runs `observe` (which opens the file, calls `ready()` once it observes, then
    /// records until it has seen `operations`) under a watchdog, prints the report line, and
    /// returns the exit status. `directory` is A's: B neither creates nor removes it.
    static func follow(_ id: WorkloadID, side: Side, mode: Mode, directory: URL) async -> Int32 {
        let spec = WorkloadSpec.spec(id)
        let context = WorkloadContext(spec: spec, size: spec.size(mode), repetitions: 1, directory: directory)
        let timeout = followerTimeout(operations: context.size.operations)
        // A follower whose last commit never arrives must not hang the suite: the watchdog
        // reports the failure and exits the process.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: timeout)
            printReport(FollowerReport(error: "the last commit did not arrive within \(Int(timeout)) s"))
            exit(1)
        }
        let ready = {
            FileHandle.standardOutput.write(Data((readyLine + "\n").utf8))
        }
        var report: FollowerReport
        do {
            switch side {
            case .ours: report = try await RealmActorsSide.followCommits(context, ready: ready)
            case .sqlite: report = try SQLiteSide.followCommits(context, ready: ready)
            }
        } catch {
            report = FollowerReport(error: String(describing: error))
        }
        printReport(report)
        return report.error == nil ? 0 : 1
    }

    private static func printReport(_ report: FollowerReport) {
        let line = (try? JSONEncoder().encode(report)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        FileHandle.standardOutput.write(Data((Child.resultMarker + line + "\n").utf8))
    }
}
