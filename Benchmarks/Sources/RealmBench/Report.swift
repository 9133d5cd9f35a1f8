import Foundation
import GRDB

/// The unit of every number in the JSON report.
enum QuantityUnit: String, Codable, Sendable {
    case seconds = "s"
    case bytes = "B"
    case perSecond = "1/s"
    case percent = "%"
    /// A plain count (W16's commits made and seen).
    case count = "1"
}

/// A number with its unit, as written to JSON: `{"value": 0.113, "unit": "s"}`.
struct Quantity: Codable, Sendable {
    var value: Double
    var unit: QuantityUnit

    init(_ value: Double, _ unit: QuantityUnit) {
        self.value = value
        self.unit = unit
    }

    /// For humans: "113 ms", "98.2 MiB", "3,120/s".
    var formatted: String {
        switch unit {
        case .seconds: Format.duration(value)
        case .bytes: Format.bytes(value)
        case .perSecond: "\(Format.grouped(Int(value.rounded())))/s"
        case .percent: "\(Int(value.rounded())) %"
        case .count: Format.grouped(Int(value.rounded()))
        }
    }
}

/// Where and when a suite ran.
struct MachineInfo: Codable, Sendable {
    var date: String
    var hostname: String
    var cores: Int
    var memoryBytes: UInt64
    var operatingSystem: String
    var cpuModel: String?
    var swiftVersion: String?
    var sqliteVersion: String?
    var temporaryDirectory: String

    static func current() -> MachineInfo {
        let info = ProcessInfo.processInfo
        return MachineInfo(
            date: ISO8601DateFormatter().string(from: Date()),
            hostname: info.hostName,
            cores: info.activeProcessorCount,
            memoryBytes: info.physicalMemory,
            operatingSystem: info.operatingSystemVersionString,
            cpuModel: cpuModel(),
            swiftVersion: swiftVersion(),
            sqliteVersion: try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") },
            temporaryDirectory: FileManager.default.temporaryDirectory.path)
    }

    private static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The first line of `swift --version`, if a toolchain is on PATH (best effort).
    private static func swiftVersion() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}

/// One workload's row: both sides' reports and the ratio.
struct WorkloadResult: Codable, Sendable {
    var id: WorkloadID
    var what: String
    var size: WorkloadSize
    var repetitions: Int
    var target: String
    var ours: ChildReport?
    var sqlite: ChildReport?
    /// SQLite's median / ours (time or bytes): higher is better for us. Nil unless both measured.
    var ratio: Double?

    func report(_ side: Side) -> ChildReport? { side == .ours ? ours : sqlite }
}

/// The JSON file a run writes (`results/latest.json`). `formatVersion` changes when a field
/// changes meaning, so a later run can refuse to compare with an incompatible file.
struct SuiteReport: Codable, Sendable {
    static let currentFormatVersion = 1

    var formatVersion = SuiteReport.currentFormatVersion
    var mode: Mode
    var machine: MachineInfo
    var workloads: [WorkloadResult]
}

/// Number formatting for the table.
enum Format {
    static func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<1e-3: String(format: "%.1f µs", seconds * 1e6)
        case ..<1: String(format: seconds < 0.01 ? "%.2f ms" : seconds < 0.1 ? "%.1f ms" : "%.0f ms", seconds * 1e3)
        default: String(format: "%.2f s", seconds)
        }
    }

    static func bytes(_ bytes: Double) -> String {
        bytes < 1_048_576
            ? String(format: "%.0f KiB", bytes / 1024)
            : String(format: "%.1f MiB", bytes / 1_048_576)
    }

    /// 1_000_000 → "1M", 100_000 → "100k", 1_500 → "1.5k", 500 → "500".
    static func count(_ n: Int) -> String {
        func trim(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
        }
        if n >= 1_000_000 { return trim(Double(n) / 1e6) + "M" }
        if n >= 1_000 { return trim(Double(n) / 1e3) + "k" }
        return String(n)
    }

    /// 12345 → "12,345".
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func ratio(_ ratio: Double) -> String {
        String(format: ratio < 10 ? "%.2f×" : "%.1f×", ratio)
    }

    static func percentChange(from old: Double, to new: Double) -> String {
        guard old > 0 else { return "" }
        return String(format: "%+.1f%%", (new / old - 1) * 100)
    }
}

/// Prints the side-by-side table, writes the JSON and compares with the previous run.
enum Reporter {
    /// The cell for one side: the median, "—" when not implemented, "FAILED", or "" if not run.
    static func cell(_ report: ChildReport?) -> String {
        guard let report else { return "" }
        switch report.status {
        case .ok: return report.median?.formatted ?? "?"
        case .notImplemented: return "—"
        case .failed: return "FAILED"
        }
    }

    static func rssCell(_ report: ChildReport?) -> String {
        guard let report, report.status != .notImplemented else { return report == nil ? "" : "—" }
        return report.peakRSS?.formatted ?? "n/a"
    }

    /// The table row under a workload's for one of its ``WorkloadSpec/comparedExtras``: each
    /// side's value and the ratio SQLite / ours ("—" unless both sides measured it).
    static func extraRow(_ name: String, of result: WorkloadResult) -> [String] {
        func value(_ report: ChildReport?) -> Quantity? {
            report?.status == .ok ? report?.extras[name] : nil
        }
        let ours = value(result.ours)
        let sqlite = value(result.sqlite)
        let ratio = comparedExtraRatio(ours: ours, sqlite: sqlite).map(Format.ratio) ?? "—"
        return ["", "↳ \(name)", ours?.formatted ?? "", sqlite?.formatted ?? "", ratio, "", ""]
    }

    /// How many times better ours is on one compared extra: SQLite / ours for a duration or a
    /// size (lower is better), ours / SQLite for a rate (higher is better), so that, as for the
    /// headline ratio, above 1 means ours is ahead. Nil unless both are positive.
    static func comparedExtraRatio(ours: Quantity?, sqlite: Quantity?) -> Double? {
        guard let ours, let sqlite, ours.value > 0, sqlite.value > 0 else { return nil }
        return ours.unit == .perSecond ? ours.value / sqlite.value : sqlite.value / ours.value
    }

    static func printTable(_ suite: SuiteReport) {
        let header = ["workload", "what", "ours (median)", "SQLite (median)", "ratio (target)",
                      "peak RSS ours", "peak RSS SQLite"]
        var rows: [[String]] = []
        for result in suite.workloads {
            let spec = WorkloadSpec.spec(result.id)
            let ratio = result.ratio.map(Format.ratio) ?? "—"
            rows.append([
                result.id.rawValue,
                "\(result.what) (\(spec.sizeSummary(suite.mode)))",
                cell(result.ours), cell(result.sqlite),
                "\(ratio) (\(result.target))",
                rssCell(result.ours), rssCell(result.sqlite),
            ])
            rows += spec.comparedExtras.map { extraRow($0, of: result) }
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        // Left-align text columns, right-align numbers.
        let rightAligned: Set<Int> = [2, 3, 5, 6]
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { column, text in
                let pad = String(repeating: " ", count: widths[column] - text.count)
                return rightAligned.contains(column) ? pad + text : text + pad
            }.joined(separator: " | ") + " |"
        }
        print(line(header))
        print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
        rows.forEach { print(line($0)) }

        print("\nNotes (\(suite.mode.rawValue) mode; medians of the repetitions shown; ratio = SQLite / ours, higher is better):")
        for result in suite.workloads {
            for side in Side.allCases {
                guard let report = result.report(side) else { continue }
                var parts: [String] = []
                switch report.status {
                case .notImplemented:
                    continue // summarised below, by issue
                case .failed:
                    parts.append("FAILED: \(report.error ?? "unknown error")")
                case .ok:
                    if let durability = report.durability { parts.append(durability) }
                    parts.append(result.id == .w9 ? "\(report.samples.count) updates"
                                 : result.id == .w16 ? "\(Format.grouped(report.samples.count)) changes observed"
                                 : "\(report.samples.count) rep\(report.samples.count == 1 ? "" : "s")")
                    for (name, value) in report.extras.sorted(by: { $0.key < $1.key }) {
                        parts.append("\(name) \(value.formatted)")
                    }
                }
                let label = "\(result.id.rawValue) \(side.title):".padding(toLength: 12, withPad: " ", startingAt: 0)
                print("  \(label) \(parts.joined(separator: "; "))")
            }
        }
        for side in Side.allCases {
            let missing = suite.workloads.compactMap { $0.report(side) }.filter { $0.status == .notImplemented }
            guard !missing.isEmpty else { continue }
            let byIssue = Dictionary(grouping: missing) { $0.issue ?? 0 }.sorted { $0.key < $1.key }
            let list = byIssue.map { issue, reports in
                "issue \(issue): " + reports.map(\.workload.rawValue).joined(separator: ", ")
            }
            print("  \(side.title) not implemented yet (—): \(list.joined(separator: "; "))")
        }
    }

    /// Where the previous run's JSON goes when `path` is replaced: `previous.json` beside a
    /// `latest.json`, otherwise `<name>.previous.json`.
    static func previousPath(for path: URL) -> URL {
        let directory = path.deletingLastPathComponent()
        if path.lastPathComponent == "latest.json" { return directory.appendingPathComponent("previous.json") }
        let stem = path.deletingPathExtension().lastPathComponent
        return directory.appendingPathComponent("\(stem).previous.json")
    }

    /// Moves an existing `path` to ``previousPath(for:)``, writes `suite` to `path` and returns
    /// the previous report, if there was a readable one.
    static func write(_ suite: SuiteReport, to path: URL) throws -> SuiteReport? {
        let manager = FileManager.default
        try manager.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        let previousPath = previousPath(for: path)
        if manager.fileExists(atPath: path.path) {
            if manager.fileExists(atPath: previousPath.path) { try manager.removeItem(at: previousPath) }
            try manager.moveItem(at: path, to: previousPath)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(suite).write(to: path, options: .atomic)
        guard let data = try? Data(contentsOf: previousPath) else { return nil }
        return try? JSONDecoder().decode(SuiteReport.self, from: data)
    }

    /// Prints each side's median change against `previous`, for the workloads both runs have.
    static func printComparison(_ suite: SuiteReport, with previous: SuiteReport) {
        guard previous.formatVersion == suite.formatVersion else {
            print("\n(previous.json has format \(previous.formatVersion); not compared)")
            return
        }
        let caveat = previous.mode == suite.mode ? "" : " — NOTE: it ran in \(previous.mode.rawValue) mode, sizes differ"
        print("\nChange vs the previous run (\(previous.machine.date)\(caveat)):")
        for result in suite.workloads {
            guard let old = previous.workloads.first(where: { $0.id == result.id }) else { continue }
            let parts = Side.allCases.compactMap { side -> String? in
                guard let new = result.report(side)?.median, let before = old.report(side)?.median else { return nil }
                return "\(side.title) \(before.formatted) → \(new.formatted) (\(Format.percentChange(from: before.value, to: new.value)))"
            }
            if !parts.isEmpty {
                print("  \(result.id.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0)) \(parts.joined(separator: "; "))")
            }
        }
    }
}
