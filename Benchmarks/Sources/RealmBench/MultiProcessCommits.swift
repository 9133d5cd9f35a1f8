import BenchModel
import Foundation

/// W8mp: W8 across processes — `processes` writer processes, each running `tasks` tasks that each
/// commit `operations` durable one-object transactions, all on one file that every process has
/// open at once (issue 39).
///
/// The workload's child (the coordinator) makes each repetition's file (the schema, no rows),
/// then starts the workers, this binary again with `--child W8mp --side … --directory …
/// --worker K --repetition R`. A worker opens the file once per task (ours: a handle per task;
/// SQLite: one `DatabasePool` per process, shared by its tasks as GRDB intends), says `READY` on
/// its stdout, and waits for `GO` on its stdin. The coordinator writes `GO` to every worker once
/// all are ready — the start barrier, so no process commits while another is still opening —
/// and the sample is from that instant to the end of the last worker's last commit
/// (`CLOCK_MONOTONIC`, one clock for every process of a host). Each worker reports the end of its
/// commits and, ours, the syncs its commits took (from the `flushed` instrumentation events), so
/// the extras give commits per sync. Afterwards the coordinator counts the objects (rows): exactly
/// `processes × tasks × operations`, or the run fails. Opening is not timed; nor is process start.
///
/// Object ids: worker `w`, task `t`, commit `i` (1-based) inserts `Person.make(id:)` with id
/// `(w × tasks + t) × operations + i`, so every commit inserts a new primary key and a lost or
/// doubled commit shows in the count (a doubled key fails the insert).
enum MultiProcessCommits {
    static let readyLine = "READY"
    static let goLine = "GO"
    /// A worker exits (failing) when it has not finished this long after it started: a stuck
    /// coordinator or writer must not hang the suite.
    static let workerTimeoutSeconds = 600.0

    /// What a worker reports: when its commits began and ended (ns, `CLOCK_MONOTONIC`), how many it
    /// made, and the syncs they took (ours; nil for SQLite, whose `synchronous=FULL` commits sync
    /// each one).
    struct WorkerReport: Codable, Sendable {
        var startedAt = 0
        var finishedAt = 0
        var commits = 0
        var syncs: Int?
        var durability = ""
        var error: String?
    }

    /// The id of the `index`-th (1-based) object that task `task` of worker `worker` inserts.
    static func objectID(worker: Int, task: Int, index: Int, size: WorkloadSize) -> Int {
        (worker * size.tasks + task) * size.operations + index
    }

    // MARK: The coordinator

    /// The coordinator's part: for each repetition, `prepare(r)` makes the file (and closes it),
    /// the workers commit, `count(r)` returns the objects the file then holds.
    static func measure(_ context: WorkloadContext, side: Side,
                        prepare: (_ repetition: Int) throws -> Void,
                        count: (_ repetition: Int) throws -> Int) throws -> Measured {
        let size = context.size
        let processes = size.processes ?? 1
        let total = processes * size.tasks * size.operations
        var samples: [Double] = []
        var syncs: [Int] = []
        var durability = ""
        for repetition in 0..<context.repetitions {
            try prepare(repetition)
            let workers = try (0..<processes).map { worker in
                try Worker(context: context, side: side, worker: worker, repetition: repetition)
            }
            defer { for worker in workers where worker.process.isRunning { worker.process.terminate() } }
            for worker in workers { try worker.waitUntilReady() }
            let go = CrossProcessLatency.now()
            for worker in workers { worker.go() }
            let reports = try workers.map { try $0.report() }
            guard let finished = reports.map(\.finishedAt).max() else { throw WorkloadError("no workers") }
            samples.append(Double(finished - go) / 1e9)
            let workerSyncs = reports.compactMap(\.syncs)
            if workerSyncs.count == reports.count { syncs.append(workerSyncs.reduce(0, +)) }
            durability = reports[0].durability
            let committed = reports.reduce(0) { $0 + $1.commits }
            let stored = try count(repetition)
            guard committed == total, stored == total else {
                throw WorkloadError("repetition \(repetition): \(committed) commits reported, \(stored) objects stored; expected \(total)")
            }
        }
        let median = Statistics.median(samples)
        var extras: [String: Quantity] = ["commitsPerSecond": .init(Double(total) / median, .perSecond)]
        if !syncs.isEmpty {
            extras["commitsPerSync"] = .init(Double(total) / Statistics.median(syncs.map(Double.init)), .count)
        }
        return Measured(samples: samples, extras: extras, durability: durability, checksum: total)
    }

    /// One worker process, seen from the coordinator (used by its one thread).
    private final class Worker {
        let index: Int
        let process = Process()
        let output = Pipe()
        let input = Pipe()
        /// What the worker printed so far (its READY line; then everything).
        private var pending = Data()

        init(context: WorkloadContext, side: Side, worker: Int, repetition: Int) throws {
            index = worker
            process.executableURL = ChildProcess.executableURL
            process.arguments = ["--child", context.spec.id.rawValue, "--side", side.rawValue,
                                 "--directory", context.directory.path,
                                 "--worker", String(worker), "--repetition", String(repetition)]
                + (context.size == context.spec.quick ? ["--quick"] : [])
            process.standardOutput = output
            process.standardInput = input
            try process.run()
        }

        /// Reads the worker's stdout until its READY line.
        func waitUntilReady() throws {
            let reader = output.fileHandleForReading
            while !String(decoding: pending, as: UTF8.self).contains(MultiProcessCommits.readyLine + "\n") {
                let chunk = reader.availableData
                guard !chunk.isEmpty else { throw WorkloadError("worker \(index) exited before it was ready") }
                pending.append(chunk)
            }
        }

        func go() {
            input.fileHandleForWriting.write(Data((MultiProcessCommits.goLine + "\n").utf8))
        }

        /// Waits for the worker to exit and returns its report.
        func report() throws -> WorkerReport {
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: pending + rest, as: UTF8.self)
            guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(Child.resultMarker) }),
                  let report = try? JSONDecoder().decode(
                      WorkerReport.self, from: Data(line.dropFirst(Child.resultMarker.count).utf8))
            else { throw WorkloadError("worker \(index) (status \(process.terminationStatus)) printed no result") }
            if let error = report.error { throw WorkloadError("worker \(index): \(error)") }
            return report
        }
    }

    // MARK: A worker

    /// How one side commits in a worker: `open(task)` (untimed) returns the task's commit, which
    /// inserts one person in a durable transaction of its own.
    typealias OpenCommitter = @Sendable (_ task: Int) async throws -> (Person) async throws -> Void

    /// A worker's part: runs `size.tasks` tasks, each opening its committer, then — once every
    /// task is open, `READY` is printed and the coordinator's `GO` is read — committing its
    /// objects. Prints the report line and returns the exit status. `directory` is the
    /// coordinator's: the worker neither creates nor removes it.
    static func work(_ id: WorkloadID, side: Side, mode: Mode, directory: URL, worker: Int, repetition: Int) async -> Int32 {
        let spec = WorkloadSpec.spec(id)
        let context = WorkloadContext(spec: spec, size: spec.size(mode), repetitions: 1, directory: directory)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: workerTimeoutSeconds)
            printReport(WorkerReport(error: "not finished within \(Int(workerTimeoutSeconds)) s"))
            exit(1)
        }
        var report: WorkerReport
        do {
            switch side {
            case .ours:
                let syncs = RealmActorsSide.Recorded(0)
                report = try await run(context, worker: worker,
                                       open: RealmActorsSide.crossProcessCommitter(context, repetition: repetition, syncs: syncs))
                report.syncs = syncs.current
                report.durability = RealmActorsSide.durability
            case .sqlite:
                let pool = try SQLiteSide.crossProcessPool(context, repetition: repetition)
                report = try await run(context, worker: worker, open: SQLiteSide.crossProcessCommitter(pool))
                report.durability = try SQLiteSide.durability(of: pool)
            }
        } catch {
            report = WorkerReport(error: String(describing: error))
        }
        printReport(report)
        return report.error == nil ? 0 : 1
    }

    private static func run(_ context: WorkloadContext, worker: Int, open: @escaping OpenCommitter) async throws -> WorkerReport {
        let size = context.size
        let (opened, openedContinuation) = AsyncStream<Void>.makeStream()
        let starts = (0..<size.tasks).map { _ in AsyncStream<Void>.makeStream() }
        var report = WorkerReport()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<size.tasks {
                let start = starts[task].stream
                group.addTask {
                    let commit: (Person) async throws -> Void
                    do {
                        commit = try await open(task)
                        openedContinuation.yield()
                    } catch {
                        openedContinuation.yield()  // the worker goes on to GO, then fails with this
                        throw error
                    }
                    for await _ in start { break }
                    for index in 1...size.operations {
                        try await commit(Person.make(id: objectID(worker: worker, task: task, index: index, size: size)))
                    }
                    return size.operations
                }
            }
            var arrivals = opened.makeAsyncIterator()
            for _ in 0..<size.tasks { await arrivals.next() }
            FileHandle.standardOutput.write(Data((readyLine + "\n").utf8))
            try await waitForGo()
            report.startedAt = CrossProcessLatency.now()
            for start in starts { start.continuation.yield(); start.continuation.finish() }
            for try await commits in group { report.commits += commits }
            report.finishedAt = CrossProcessLatency.now()
        }
        return report
    }

    /// Reads the coordinator's `GO` line from stdin on a thread of its own (a blocking read must
    /// not hold one of the cooperative pool's threads).
    private static func waitForGo() async throws {
        let line: String? = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: readLine()) }
        }
        guard line == goLine else { throw WorkloadError("expected \(goLine) on stdin, read \(line ?? "end of input")") }
    }

    private static func printReport(_ report: WorkerReport) {
        let line = (try? JSONEncoder().encode(report)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        FileHandle.standardOutput.write(Data((Child.resultMarker + line + "\n").utf8))
    }
}
