import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child process reports for one (workload, side): the single JSON line it prints.
///
/// Every workload runs in a child of its own so that `peakRSS` (the child's `ru_maxrss`, setup
/// included) belongs to that workload alone, and so that one workload's heap, caches and open
/// files cannot distort the next one.
struct ChildReport: Codable, Sendable {
    enum Status: String, Codable, Sendable {
        case ok, notImplemented, failed
    }

    var workload: WorkloadID
    var side: Side
    var status: Status
    /// The issue that will implement the workload, when `status == .notImplemented`.
    var issue: Int?
    /// Why the workload failed, when `status == .failed`.
    var error: String?
    /// The median of `samples`: the headline number.
    var median: Quantity?
    /// One per repetition (W9: one latency per update), in `median`'s unit.
    var samples: [Double] = []
    var extras: [String: Quantity] = [:]
    var durability: String?
    var checksum: Int?
    /// The child's peak resident set size, setup included.
    var peakRSS: Quantity?
    /// The child's whole run time (setup, repetitions, cleanup): what the workload costs the suite.
    var childSeconds: Double?

    static func failure(_ workload: WorkloadID, _ side: Side, _ error: String) -> ChildReport {
        ChildReport(workload: workload, side: side, status: .failed, error: error)
    }
}

/// The child's side of the protocol: run one workload of one side, print one result line.
enum Child {
    /// Prefix of the result line on the child's stdout, so that anything else a library prints
    /// there cannot be mistaken for the result.
    static let resultMarker = "REALM-BENCH-RESULT "

    /// Runs `id` for `side` in `directory`, which must not exist yet (the child creates and
    /// removes it; the parent removes it too should the child die), and prints the report line.
    /// Returns the process exit status: 0 unless the workload failed.
    static func run(_ id: WorkloadID, side: Side, mode: Mode, directory: URL) async -> Int32 {
        let start = ContinuousClock.now
        let spec = WorkloadSpec.spec(id)
        var report = ChildReport(workload: id, side: side, status: .failed)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let context = WorkloadContext(
                spec: spec, size: spec.size(mode), repetitions: spec.repetitions(mode), directory: directory)
            switch try await side.implementation.run(context) {
            case .notImplemented(let issue):
                report.status = .notImplemented
                report.issue = issue
            case .measured(let measured):
                guard !measured.samples.isEmpty else { throw WorkloadError("no samples") }
                report.status = .ok
                report.samples = measured.samples
                report.median = Quantity(Statistics.median(measured.samples), spec.unit)
                report.extras = measured.extras
                report.durability = measured.durability
                report.checksum = measured.checksum
            }
        } catch {
            report.status = .failed
            report.error = String(describing: error)
        }
        // REALM_BENCH_KEEP_FILES=1 keeps the files for inspection (realm-engine-bench --inspect).
        if ProcessInfo.processInfo.environment["REALM_BENCH_KEEP_FILES"] == nil {
            try? FileManager.default.removeItem(at: directory)
        }
        report.peakRSS = Quantity(Double(peakResidentBytes()), .bytes)
        report.childSeconds = Stopwatch.seconds(ContinuousClock.now - start)

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = (try? encoder.encode(report)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        FileHandle.standardOutput.write(Data((resultMarker + line + "\n").utf8))
        return report.status == .failed ? 1 : 0
    }

    /// `getrusage(RUSAGE_SELF).ru_maxrss` in bytes (Linux reports KiB, Darwin bytes).
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss) * 1024
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        return Int(usage.ru_maxrss)
        #endif
    }
}

/// The parent's side: re-executes this binary with the hidden `--child` arguments.
enum ChildProcess {
    /// This executable, to re-run as a child.
    static var executableURL: URL {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        #endif
    }

    /// Runs (`id`, `side`) in a child and returns its report. A child that crashes, exits
    /// without a result line or prints garbage yields a `.failed` report, never a throw.
    /// The child's stderr is passed through for diagnostics.
    static func run(_ id: WorkloadID, side: Side, mode: Mode) -> ChildReport {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("realm-bench-\(id.rawValue)-\(side.rawValue)-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = executableURL
        process.arguments = ["--child", id.rawValue, "--side", side.rawValue, "--directory", directory.path]
            + (mode == .quick ? ["--quick"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(id, side, "could not start the child process: \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()

        let text = String(decoding: data, as: UTF8.self)
        let resultLine = text.split(separator: "\n").last { $0.hasPrefix(Child.resultMarker) }
        let decoded = resultLine.flatMap {
            try? JSONDecoder().decode(ChildReport.self, from: Data($0.dropFirst(Child.resultMarker.count).utf8))
        }
        let exit = process.terminationReason == .uncaughtSignal
            ? "killed by signal \(process.terminationStatus)"
            : "exited with status \(process.terminationStatus)"
        guard var report = decoded else {
            return .failure(id, side, "child \(exit) without a result")
        }
        if process.terminationReason == .uncaughtSignal || (process.terminationStatus != 0 && report.status != .failed) {
            report.status = .failed
            report.error = report.error ?? "child \(exit)"
        }
        return report
    }
}
