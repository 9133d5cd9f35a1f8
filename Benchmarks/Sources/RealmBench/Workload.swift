import BenchModel
import Foundation

/// One row of the suite: a workload of PERFORMANCE.md (W1 is split into W1a, 100k rows, and W1b,
/// 1M rows, because both sizes have their own target).
enum WorkloadID: String, CaseIterable, Codable, Sendable, Comparable {
    case w1a = "W1a", w1b = "W1b", w2 = "W2", w3 = "W3", w4 = "W4", w4b = "W4b", w5 = "W5", w6 = "W6"
    case w7 = "W7", w7s = "W7s", w8 = "W8", w8mp = "W8mp", w9 = "W9", w10 = "W10", w11 = "W11", w12 = "W12"
    case w13 = "W13", w15 = "W15", w16 = "W16"

    /// Declaration order, which is the order of PERFORMANCE.md.
    static func < (lhs: WorkloadID, rhs: WorkloadID) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Whether `--filter` token `name` selects this workload: exact id, or an id followed by
    /// letters ("W1" selects W1a and W1b, "W4" W4 and W4b, "W7" W7 and W7s, "W8" W8 and W8mp).
    func matches(_ name: String) -> Bool {
        let name = name.uppercased()
        let id = rawValue.uppercased()
        return id == name || (id.hasPrefix(name) && id.dropFirst(name.count).allSatisfy(\.isLetter))
    }
}

/// The two implementations compared in every workload.
enum Side: String, CaseIterable, Codable, Sendable {
    /// RealmActors, the package in the root of this repository.
    case ours
    /// SQLite through GRDB (`DatabasePool`, WAL), what a Swift developer would use instead.
    case sqlite

    var title: String {
        switch self {
        case .ours: "ours"
        case .sqlite: "SQLite"
        }
    }
}

/// `--quick` (smoke sizes, one repetition) or the sizes of PERFORMANCE.md.
enum Mode: String, Codable, Sendable {
    case full, quick
}

/// The sizes of one workload in one mode.
///
/// `rows` is the size of the data set the workload starts from (or inserts, for W1 and W13);
/// `operations` is how many lookups, transactions or updates it times; `tasks` is the number of
/// concurrent writers (W8; per process in W8mp) or readers (W15), 1 elsewhere. W8 times
/// `tasks × operations` writes, W8mp `processes × tasks × operations`.
/// W15 runs for a fixed time, `seconds`, and its `operations` are the lookups each reader makes
/// between two advances of its handle.
struct WorkloadSize: Codable, Sendable, Equatable {
    var rows: Int
    var operations: Int = 0
    var tasks: Int = 1
    /// How many writer processes run the `tasks` each (W8mp); nil for the in-process workloads.
    /// (Optional, so JSON files written before it existed still decode.)
    var processes: Int? = nil
    /// How long a fixed-time workload (W15) runs each repetition; nil for the others, which do a
    /// fixed amount of work. (Optional, so JSON files written before it existed still decode.)
    var seconds: Double? = nil
}

/// A workload's definition: what it measures, its target ratio and its sizes.
///
/// ``all`` is THE table of sizes: change a workload's size or repetition count there and
/// nowhere else. Full sizes are those of PERFORMANCE.md; quick sizes keep the whole quick run
/// (both sides, every workload, a child process each) well under a minute on 2 cores.
struct WorkloadSpec: Sendable {
    let id: WorkloadID
    /// What is measured, in a few words, for the table.
    let what: String
    /// The target ratio from PERFORMANCE.md (SQLite / ours, higher is better).
    let target: String
    let full: WorkloadSize
    let quick: WorkloadSize
    /// Repetitions in full mode (quick mode always runs one): 3 where one costs under ~20 s on
    /// the reference machine, 1 where the result is deterministic (W11) or is already a
    /// distribution over many operations (W9).
    let fullRepetitions: Int
    /// The primary number: a duration (lower is better) or a size in bytes (lower is better).
    let unit: QuantityUnit
    /// Extras (keys of ``Measured/extras``: a duration or a size, lower is better, or a rate in
    /// 1/s, higher is better) that both sides report and that have a target of their own, so the
    /// table gives each a row with both sides' medians and their ratio under the workload's row
    /// (W13: file size and read time; W15: the writer's commits/s). The ratio is always "how
    /// many times better ours is": SQLite / ours for durations and sizes, ours / SQLite for
    /// rates. Empty for most workloads.
    var comparedExtras: [String] = []

    func size(_ mode: Mode) -> WorkloadSize { mode == .full ? full : quick }
    func repetitions(_ mode: Mode) -> Int { mode == .full ? fullRepetitions : 1 }

    static let all: [WorkloadSpec] = [
        .init(id: .w1a, what: "bulk insert, one transaction", target: "≥ 2×",
              full: .init(rows: 100_000), quick: .init(rows: 10_000), fullRepetitions: 3, unit: .seconds),
        .init(id: .w1b, what: "bulk insert, one transaction", target: "≥ 2×",
              full: .init(rows: 1_000_000), quick: .init(rows: 50_000), fullRepetitions: 3, unit: .seconds),
        .init(id: .w2, what: "random PK lookups, read name+age", target: "≥ 2×",
              full: .init(rows: 1_000_000, operations: 100_000), quick: .init(rows: 50_000, operations: 10_000),
              fullRepetitions: 3, unit: .seconds),
        .init(id: .w3, what: "count age<30 && score>0.5, no index", target: "≥ 10×",
              full: .init(rows: 1_000_000), quick: .init(rows: 50_000), fullRepetitions: 3, unit: .seconds),
        .init(id: .w4, what: "indexed email == x lookups", target: "≥ 1.5×",
              full: .init(rows: 1_000_000, operations: 10_000), quick: .init(rows: 50_000, operations: 1_000),
              fullRepetitions: 3, unit: .seconds),
        // W4's lookups through the type-safe query instead of the string predicate; the SQLite
        // side is the same statement as W4's, so W4b / W4 is what the query form costs us.
        .init(id: .w4b, what: "indexed email == x lookups, type-safe query", target: "≥ 1.5×",
              full: .init(rows: 1_000_000, operations: 10_000), quick: .init(rows: 50_000, operations: 1_000),
              fullRepetitions: 3, unit: .seconds),
        .init(id: .w5, what: "iterate all, read age+name", target: "≥ 3×",
              full: .init(rows: 1_000_000), quick: .init(rows: 50_000), fullRepetitions: 3, unit: .seconds),
        .init(id: .w6, what: "sort by age,name; read first 100", target: "≥ 2×",
              full: .init(rows: 100_000, operations: 100), quick: .init(rows: 10_000, operations: 100),
              fullRepetitions: 3, unit: .seconds),
        .init(id: .w7, what: "sequential durable 1-row txns", target: "≥ 1.2×",
              full: .init(rows: 0, operations: 10_000), quick: .init(rows: 0, operations: 500),
              fullRepetitions: 3, unit: .seconds),
        // Not in PERFORMANCE.md: issue 14's "a held snapshot costs what it pins" (time and file
        // size of W7's commits while a frozen snapshot of the first version is held; the extras
        // give the same commits without it).
        .init(id: .w7s, what: "W7 with a snapshot held throughout", target: "flat",
              full: .init(rows: 0, operations: 16_000), quick: .init(rows: 0, operations: 300),
              fullRepetitions: 1, unit: .seconds),
        .init(id: .w8, what: "concurrent durable 1-row txns", target: "≥ 5×",
              full: .init(rows: 0, operations: 1_000, tasks: 8), quick: .init(rows: 0, operations: 50, tasks: 8),
              fullRepetitions: 3, unit: .seconds),
        // W8 across processes (issue 39; see MultiProcessCommits): 4 processes × 2 tasks on one
        // file, against 4 SQLite processes in WAL mode. PERFORMANCE.md sets no target: measured.
        .init(id: .w8mp, what: "W8 across processes: concurrent durable 1-row txns", target: "measured (issue 39)",
              full: .init(rows: 0, operations: 1_000, tasks: 2, processes: 4),
              quick: .init(rows: 0, operations: 50, tasks: 2, processes: 4),
              fullRepetitions: 3, unit: .seconds),
        .init(id: .w9, what: "commit → observer latency (p50)", target: "> 1×, p99 ≤ 5 ms",
              full: .init(rows: 100_000, operations: 100), quick: .init(rows: 10_000, operations: 20),
              fullRepetitions: 1, unit: .seconds),
        .init(id: .w10, what: "open file, read first object", target: "≥ 1×",
              full: .init(rows: 1_000_000), quick: .init(rows: 50_000), fullRepetitions: 3, unit: .seconds),
        .init(id: .w11, what: "file size after insert+checkpoint", target: "≥ 1×",
              full: .init(rows: 1_000_000), quick: .init(rows: 50_000), fullRepetitions: 1, unit: .bytes),
        .init(id: .w12, what: "update score on every row, one txn", target: "≥ 2×",
              full: .init(rows: 100_000), quick: .init(rows: 10_000), fullRepetitions: 3, unit: .seconds),
        .init(id: .w13, what: "medium values: insert, one txn; file; read all", target: "insert ≥ 2×, file ≥ 1×, read ≥ 2×",
              full: .init(rows: 100_000), quick: .init(rows: 5_000), fullRepetitions: 3, unit: .seconds,
              comparedExtras: ["fileBytes", "readSeconds"]),
        // Fixed time rather than fixed work: both sides get the same seconds and the throughputs
        // are compared. The sample is the readers' time per 1,000 lookups (all readers together,
        // so ratio = our lookups/s over SQLite's); the writer's commits/s has its own row. 10 s
        // (1 s quick) is long enough for hundreds of durable commits and every reader advancing
        // many times. One repetition in full mode would do, but 3 × 10 s is within budget.
        .init(id: .w15, what: "4 readers' PK lookups during durable writes", target: "readers ≥ 2×, writer ≥ 1×",
              full: .init(rows: 1_000_000, operations: 1_000, tasks: 4, seconds: 10),
              quick: .init(rows: 50_000, operations: 1_000, tasks: 4, seconds: 1),
              fullRepetitions: 3, unit: .seconds, comparedExtras: ["writerCommitsPerSecond"]),
        // Two processes (see CrossProcessLatency): one repetition, its samples already a
        // distribution (one per observed change, from the stamp the commit stored; the median is
        // p50). 1,000 commits at 200/s is
        // 5 s; quick, 100 (0.5 s).
        .init(id: .w16, what: "commit → observer in another process (p50)", target: "> 1×, p99 ≤ 5 ms",
              full: .init(rows: 1, operations: 1_000), quick: .init(rows: 1, operations: 100),
              fullRepetitions: 1, unit: .seconds),
    ]

    static func spec(_ id: WorkloadID) -> WorkloadSpec {
        all.first { $0.id == id }!
    }

    /// The sizes, compactly, for the table: "1M rows", "100k × 100k", "8 × 1k".
    func sizeSummary(_ mode: Mode) -> String {
        let size = size(mode)
        switch id {
        case .w7, .w7s: return "\(Format.count(size.operations)) txns"
        case .w8: return "\(size.tasks) × \(Format.count(size.operations)) txns"
        case .w8mp: return "\(size.processes ?? 1) processes × \(size.tasks) × \(Format.count(size.operations)) txns"
        case .w2, .w4, .w4b: return "\(Format.count(size.operations)) of \(Format.count(size.rows))"
        case .w9: return "\(Format.count(size.operations)) updates, \(Format.count(size.rows)) rows"
        case .w15:
            return "\(String(format: "%g", size.seconds ?? 0)) s, \(Format.count(size.rows)) rows"
        case .w16:
            return "\(Format.count(size.operations)) commits at \(Int(CrossProcessLatency.commitsPerSecond))/s"
        case .w13: return "\(Format.count(size.rows)) notes of 0–\(Format.grouped(Note.maxBodyLength)) B"
        default: return "\(Format.count(size.rows)) rows"
        }
    }
}

/// Everything one side needs to run one workload in a child process.
struct WorkloadContext: Sendable {
    let spec: WorkloadSpec
    let size: WorkloadSize
    let repetitions: Int
    /// A fresh, empty directory owned by this run; the child removes it when done.
    let directory: URL
}

/// What one side reports for one workload.
enum WorkloadOutcome: Sendable {
    case measured(Measured)
    /// This side has no implementation of the workload yet; `issue` is the tracker issue that
    /// will add it. Not a failure.
    case notImplemented(issue: Int)
}

/// The numbers one side measured for one workload.
///
/// Invariant: `samples` is not empty and is in the spec's unit; the headline number is their
/// median. A sample is one repetition's timed part (setup excluded), except for W9, where it is
/// one update's latency (so the median is p50; W16: one per change observed), and W11, where it is the file size. W13's sample
/// is the insert; its file size and read time are extras.
struct Measured: Sendable {
    var samples: [Double]
    /// Secondary numbers: commits/s (W7, W8), p50/p99 (W9), file parts (W11), file size and read
    /// time (W13).
    var extras: [String: Quantity] = [:]
    /// Durability / journal mode the measurement ran under, as read back from the database.
    var durability: String
    /// A value both sides must compute identically from the same data (a count, a sum), proving
    /// the work was done and the two sides agree. `nil` when the workload has no such value.
    var checksum: Int?
}

/// One side of the suite: runs a workload in the current (child) process.
protocol BenchmarkSide: Sendable {
    /// Runs `context.spec` with its setup untimed and its measured part timed, in
    /// `context.directory`. Throws when the workload fails (a wrong answer is a failure too).
    func run(_ context: WorkloadContext) async throws -> WorkloadOutcome
}

extension Side {
    /// The implementation of this side.
    var implementation: any BenchmarkSide {
        switch self {
        case .ours: RealmActorsSide()
        case .sqlite: SQLiteSide()
        }
    }
}

/// A failure a workload detects itself (wrong count, missing row), as opposed to a database error.
struct WorkloadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Monotonic timing of the measured part of a workload.
enum Stopwatch {
    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// Seconds `body` took on the monotonic `ContinuousClock`.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return seconds(ContinuousClock.now - start)
    }

    /// Seconds `body` took on the monotonic `ContinuousClock`.
    static func time(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return seconds(ContinuousClock.now - start)
    }
}

/// Order statistics over samples.
enum Statistics {
    /// The median (mean of the two middle values for an even count). `values` must not be empty.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The nearest-rank percentile `p` (0...100). `values` must not be empty.
    static func percentile(_ p: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Shared by both sides of W15, so they look up and update the same objects.
enum W15 {
    /// Random ids drawn per reader and for the writer; each cycles through its list.
    static let idsPerRole = 100_000
    static func readerSeed(_ reader: Int) -> UInt64 { 0x15_0000 + UInt64(reader) }
    static let writerSeed: UInt64 = 0x15_FFFF

    /// The score the writer's `commit`-th commit of `repetition` sets: at least 1, so never a
    /// value from the data set (scores are in 0..<1), and different in every commit of a run.
    static func score(repetition: Int, commit: Int) -> Double {
        1 + Double(repetition) * 1e9 + Double(commit)
    }

    /// What one reader did in one repetition.
    struct ReaderTally: Sendable {
        var lookups = 0
        /// From the reader's start (as it begins, just after the shared start) to the end of its
        /// last batch: it finishes the batch under way at the deadline, so this is a little over
        /// the workload's time, and its lookups are divided by this, not by the nominal time.
        var seconds = 0.0
    }

    /// What the writer did in one repetition: its commits, the time from its start to the end
    /// of its last commit (which may end after the deadline), and the last object and score
    /// written.
    struct WriterTally: Sendable {
        var commits = 0
        var seconds = 0.0
        var last: (id: Int, score: Double)?
    }

    /// How many lookups our readers make between two suspension points (`Task.yield()`). Actors
    /// share the cooperative thread pool, one thread per core (2 here): a reader that kept its
    /// thread for a whole batch of 1,000 lookups (milliseconds) would hold the writer's
    /// continuation, waiting for a thread after each durable commit, for that long, and the
    /// writer's commits/s would measure the readers' batch length. SQLite's readers and writer
    /// are threads of their own, preempted by the kernel. Measured here in quick mode (4 runs
    /// each, a busy machine): yielding every 1,000 lookups, the writer made 126–333 commits/s;
    /// every 100, 780–1,951, with the readers' lookups/s unchanged within the noise.
    static let lookupsPerYield = 100

    /// The priority of our writer's task: above the readers', as a service runs its write path.
    /// The cooperative pool hands a free thread to the highest-priority job waiting, so the
    /// writer's continuation after each durable commit no longer queues behind the readers'
    /// batches. Measured at full size (one run each, `readerLookupsPerSecond`,
    /// `writerCommitsPerSecond`): at the readers' priority, yielding every 100 lookups,
    /// 840–901k/s and 1,609–1,678/s (SQLite 240k/s and 1,691/s); yielding every 10, 746k/s and
    /// 2,475/s; every 1,000, 1,052k/s and 331/s. At `.high`, yielding every 100, 826k/s and
    /// 2,396/s; every 1,000, 843k/s and 2,549/s. So readers slow our writer through CPU
    /// scheduling, not through the file: pins, the free list and the write lock do not show.
    static let writerPriority = TaskPriority.high

    /// Every name is "name-" and 6 letters: the readers' check that each lookup read a real row.
    static let nameBytes = 11
}
