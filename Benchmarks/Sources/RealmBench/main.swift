import Foundation

/// Command-line options of `realm-bench`. The `--child` form is internal: the parent re-runs
/// this binary with it, one process per (workload, side).
struct Options {
    var mode: Mode = .full
    var filter: [String]? = nil
    var sides: [Side] = Side.allCases
    var output: URL = Options.defaultOutput
    /// `--chart PATH`; nil: beside the JSON output, same name with `.svg`.
    var chart: URL? = nil
    var help = false
    var child: WorkloadID? = nil
    var childDirectory: URL? = nil
    /// `--follower` (with `--child W16`): this process is W16's observing process B, started by
    /// the workload's child A (see `CrossProcessLatency`).
    var follower = false
    /// `--worker K --repetition R` (with `--child W8mp`): this process is writer K of W8mp's
    /// repetition R, started by the workload's child (see `MultiProcessCommits`).
    var worker: Int? = nil
    var repetition = 0

    /// `Benchmarks/results/latest.json`, found from this source file so that it is the same
    /// whether the suite is run from the repository root or from `Benchmarks/`.
    static var defaultOutput: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // RealmBench
            .deletingLastPathComponent() // Sources
            .deletingLastPathComponent() // Benchmarks
            .appendingPathComponent("results/latest.json")
    }

    static let usage = """
        USAGE: realm-bench [--quick] [--filter W3,W7] [--side sqlite|ours|both] [--encrypted] [--output PATH] [--chart PATH]

        Runs the workloads of PERFORMANCE.md (W1a, W1b, W2 … W8, W8mp, W9 … W16) for RealmActors ("ours") and
        SQLite through GRDB, each workload and side in a child process of its own, then prints a
        side-by-side table (medians, ratio SQLite/ours, peak RSS), writes every number as JSON
        and draws the ratios as an SVG bar chart.

        OPTIONS:
          --quick            Small sizes and one repetition: a smoke test (seconds).
          --filter LIST      Comma-separated workloads to run, e.g. W3,W7 (an id followed by
                             letters is included: W1 = W1a and W1b, W4 = W4 and W4b,
                             W8 = W8 and W8mp).
          --side SIDE        sqlite, ours or both (default both).
          --encrypted        Our realm files are encrypted (Configuration.encryptionKey): the
                             cost of encryption, compared with a run without it.
          --output PATH      JSON output (default Benchmarks/results/latest.json). An existing
                             file is first moved to previous.json (or NAME.previous.json) and
                             the run is compared with it.
          --chart PATH       SVG bar chart of the ratios (default: the JSON path with .svg,
                             e.g. Benchmarks/results/latest.svg).
          --help             Show this help.

        Exit status: 0 when every workload that ran succeeded ("not implemented" is not a
        failure), 1 when a child crashed or a workload failed, 64 on bad arguments.
        """

    /// How `--encrypted` reaches the children (see `RealmActorsSide.encryptionKey`).
    static let encryptedEnvironmentVariable = "REALM_BENCH_ENCRYPTED"

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(for flag: String) throws -> String {
            guard let value = iterator.next(), !value.hasPrefix("--") else {
                throw UsageError(description: "\(flag) needs a value")
            }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--quick": options.mode = .quick
            case "--encrypted": setenv(Options.encryptedEnvironmentVariable, "1", 1)  // children inherit it
            case "--help", "-h": options.help = true
            case "--filter":
                let names = try value(for: argument).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                for name in names where !WorkloadID.allCases.contains(where: { $0.matches(name) }) {
                    throw UsageError(description: "unknown workload \(name)")
                }
                options.filter = names
            case "--side":
                let name = try value(for: argument)
                if name == "both" {
                    options.sides = Side.allCases
                } else if let side = Side(rawValue: name) {
                    options.sides = [side]
                } else {
                    throw UsageError(description: "--side must be sqlite, ours or both")
                }
            case "--output": options.output = URL(fileURLWithPath: try value(for: argument))
            case "--chart": options.chart = URL(fileURLWithPath: try value(for: argument))
            case "--child":
                let name = try value(for: argument)
                guard let id = WorkloadID(rawValue: name) else { throw UsageError(description: "unknown workload \(name)") }
                options.child = id
            case "--follower": options.follower = true
            case "--worker", "--repetition":
                let text = try value(for: argument)
                guard let number = Int(text), number >= 0 else { throw UsageError(description: "\(argument) needs a number") }
                if argument == "--worker" { options.worker = number } else { options.repetition = number }
            case "--directory": options.childDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            default: throw UsageError(description: "unknown argument \(argument)")
            }
        }
        if options.child != nil && (options.sides.count != 1 || options.childDirectory == nil) {
            throw UsageError(description: "--child needs --side sqlite|ours and --directory")
        }
        return options
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    log("realm-bench: \(error)\n\n\(Options.usage)")
    exit(64)
}
if options.help {
    print(Options.usage)
    exit(0)
}
if let workload = options.child, options.follower {
    exit(await CrossProcessLatency.follow(workload, side: options.sides[0], mode: options.mode,
                                          directory: options.childDirectory!))
}
if let workload = options.child, let worker = options.worker {
    exit(await MultiProcessCommits.work(workload, side: options.sides[0], mode: options.mode,
                                        directory: options.childDirectory!, worker: worker, repetition: options.repetition))
}
if let workload = options.child {
    exit(await Child.run(workload, side: options.sides[0], mode: options.mode, directory: options.childDirectory!))
}

// The parent: one child per (workload, side), strictly one at a time (the machine has 2 cores and
// the workloads are measured alone).
let suiteStart = ContinuousClock.now
let specs = WorkloadSpec.all.filter { spec in
    options.filter.map { names in names.contains { spec.id.matches($0) } } ?? true
}
var results: [WorkloadResult] = []
for spec in specs {
    var result = WorkloadResult(
        id: spec.id, what: spec.what, size: spec.size(options.mode),
        repetitions: spec.repetitions(options.mode), target: spec.target)
    for side in options.sides {
        let report = ChildProcess.run(spec.id, side: side, mode: options.mode)
        let seconds = report.childSeconds.map { String(format: " (child %.1f s)", $0) } ?? ""
        log("\(spec.id.rawValue) \(side.rawValue): \(Reporter.cell(report))\(seconds)\(report.error.map { " — \($0)" } ?? "")")
        if side == .ours { result.ours = report } else { result.sqlite = report }
    }
    if let ours = result.ours, let sqlite = result.sqlite, ours.status == .ok, sqlite.status == .ok {
        if let a = ours.checksum, let b = sqlite.checksum, a != b {
            result.ours?.status = .failed
            result.ours?.error = "checksum \(a) differs from SQLite's \(b): the two sides disagree"
        } else if let o = ours.median?.value, let s = sqlite.median?.value, o > 0 {
            result.ratio = s / o
        }
    }
    results.append(result)
}

let suite = SuiteReport(mode: options.mode, machine: MachineInfo.current(), workloads: results)
print("")
Reporter.printTable(suite)
do {
    if let previous = try Reporter.write(suite, to: options.output) {
        Reporter.printComparison(suite, with: previous)
    }
    print("\nJSON: \(options.output.path)")
} catch {
    log("realm-bench: could not write \(options.output.path): \(error)")
    exit(1)
}
let chartPath = options.chart ?? Chart.defaultPath(forJSON: options.output)
do {
    try Chart.write(suite, to: chartPath)
    print("Chart: \(chartPath.path)")
} catch {
    log("realm-bench: could not write \(chartPath.path): \(error)")
    exit(1)
}
print(String(format: "Total time: %.1f s", Stopwatch.seconds(ContinuousClock.now - suiteStart)))

let failures = results.flatMap { [$0.ours, $0.sqlite] }.compactMap { $0 }.filter { $0.status == .failed }
if !failures.isEmpty {
    log("realm-bench: \(failures.count) workload run(s) failed: "
        + failures.map { "\($0.workload.rawValue) \($0.side.rawValue)" }.joined(separator: ", "))
    exit(1)
}
