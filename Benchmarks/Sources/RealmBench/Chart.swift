import Foundation

/// The run as an SVG bar chart: one bar per workload (and per compared extra), the ratio
/// "how many times better ours is than SQLite" on a log scale, so 2× better and 2× worse are bars
/// of the same length on either side of the parity line. Each bar's target is marked.
///
/// Plain SVG 1.1 text with nothing external (no scripts, no web fonts, no CSS files), so it shows
/// the same in a browser, as an image on GitHub and in an editor.
///
/// Invariant: every piece of text that comes from the report goes through ``escape(_:)``.
enum Chart {
    /// One horizontal bar.
    struct Bar: Equatable {
        /// "W4" or "W13 ↳ fileBytes".
        var label: String
        /// What is measured and its size, in smaller type under the label.
        var detail: String
        /// Ours vs SQLite (> 1: ours is ahead); nil when it could not be computed (a side not
        /// run, not implemented or failed).
        var ratio: Double?
        /// The goal for `ratio`, from the workload's target; nil when it has no numeric one.
        var target: Double?
        /// Both sides' values, for the text at the end of the bar ("ours 12 ms · SQLite 30 ms").
        var values: String
    }

    // Layout, in SVG user units (pixels at 100 %).
    private static let width = 1_100.0
    private static let labelWidth = 400.0
    private static let valuesWidth = 250.0
    private static let rowHeight = 34.0
    private static let top = 134.0
    private static let bottomMargin = 58.0
    private static var plotLeft: Double { labelWidth + 10 }
    private static var plotRight: Double { width - valuesWidth - 10 }

    /// The bars of `suite`, in the table's order: each workload's ratio, then its compared extras.
    static func bars(_ suite: SuiteReport) -> [Bar] {
        var bars: [Bar] = []
        for result in suite.workloads {
            let spec = WorkloadSpec.spec(result.id)
            let targets = targetRatios(in: result.target)
            func target(_ index: Int) -> Double? { index < targets.count ? targets[index] : nil }
            let ok = { (side: Side) in result.report(side)?.status == .ok ? result.report(side) : nil }
            let ours = ok(.ours)?.median
            let sqlite = ok(.sqlite)?.median
            bars.append(Bar(label: result.id.rawValue,
                            detail: "\(result.what) (\(spec.sizeSummary(suite.mode)))",
                            ratio: result.ratio, target: target(0),
                            values: values(ours: ours, sqlite: sqlite, result: result)))
            for (index, name) in spec.comparedExtras.enumerated() {
                let ours = ok(.ours)?.extras[name]
                let sqlite = ok(.sqlite)?.extras[name]
                bars.append(Bar(label: "\(result.id.rawValue) ↳ \(name)", detail: "",
                                ratio: Reporter.comparedExtraRatio(ours: ours, sqlite: sqlite),
                                target: target(index + 1),
                                values: values(ours: ours, sqlite: sqlite, result: result)))
            }
        }
        return bars
    }

    /// The numbers "N×" in a target string, in order: "≥ 2×" → [2]; "insert ≥ 2×, file ≥ 1×,
    /// read ≥ 2×" → [2, 1, 2]. By the convention of ``WorkloadSpec/target``, the first is the
    /// headline ratio's goal and the next ones those of the compared extras, in their order.
    /// "flat" → [] (no numeric goal, no mark).
    static func targetRatios(in target: String) -> [Double] {
        var ratios: [Double] = []
        var number = ""
        for character in target {
            if character.isNumber || (character == "." && !number.isEmpty) {
                number.append(character)
            } else {
                if character == "×", let value = Double(number) { ratios.append(value) }
                if character != " " || number.isEmpty { number = "" }
            }
        }
        return ratios
    }

    private static func values(ours: Quantity?, sqlite: Quantity?, result: WorkloadResult) -> String {
        func text(_ quantity: Quantity?, _ side: Side) -> String {
            if let quantity { return quantity.formatted }
            return result.report(side).map { Reporter.cell($0) } ?? "not run"
        }
        return "ours \(text(ours, .ours)) · SQLite \(text(sqlite, .sqlite))"
    }

    /// The whole SVG document for `suite`.
    static func svg(_ suite: SuiteReport) -> String {
        let bars = bars(suite)
        let scale = LogScale(values: bars.flatMap { [$0.ratio, $0.target] }.compactMap { $0 },
                             left: plotLeft, right: plotRight)
        let plotBottom = top + Double(bars.count) * rowHeight
        let height = plotBottom + bottomMargin
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" \
            viewBox="0 0 \(number(width)) \(number(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">

            """
        let quick = suite.mode == .quick
        let title = (quick ? "QUICK MODE · " : "") + "RealmActors vs SQLite (GRDB): how many times better ours is"
        svg += "<title>\(escape(title))</title>\n"
        svg += rect(x: 0, y: 0, width: width, height: height, fill: "#ffffff")
        svg += text(title, x: 16, y: 28, size: 18, weight: "bold", fill: quick ? "#b3261e" : "#111111")
        let machine = suite.machine
        let subtitle = quick
            ? "Quick mode: smoke-test sizes and one repetition, not PERFORMANCE.md's sizes; an example of the chart, not a measurement."
            : "Full mode: PERFORMANCE.md's sizes, medians of the repetitions."
        svg += text(subtitle, x: 16, y: 48, size: 12, weight: quick ? "bold" : "normal", fill: quick ? "#b3261e" : "#333333")
        let about = "\(machine.date) · \(machine.cores) cores · \(machine.cpuModel ?? "unknown CPU") · "
            + "SQLite \(machine.sqliteVersion ?? "?")"
        svg += text(about, x: 16, y: 66, size: 11, fill: "#444444")
        svg += text("Bar: SQLite's median / ours (a time or a size; ours / SQLite for a rate), log scale from 1×: "
                    + "right of 1×, ours is ahead.", x: 16, y: 84, size: 11, fill: "#444444")
        svg += text("Black tick: the target. Green: target met; amber: ours ahead but short of the target; red: SQLite ahead.",
                    x: 16, y: 99, size: 11, fill: "#444444")

        // Grid and axis labels.
        for tick in scale.ticks {
            let x = scale.x(tick.value)
            svg += line(x1: x, y1: top - 6, x2: x, y2: plotBottom,
                        stroke: tick.value == 1 ? "#333333" : "#dddddd", width: tick.value == 1 ? 1.5 : 1)
            if tick.labeled {
                svg += text(String(format: "%g×", tick.value), x: x, y: plotBottom + 16, size: 11, fill: "#444444", anchor: "middle")
            }
        }
        svg += text("← SQLite ahead", x: scale.x(1) - 6, y: top - 12, size: 11, fill: "#666666", anchor: "end")
        svg += text("ours ahead →", x: scale.x(1) + 6, y: top - 12, size: 11, fill: "#666666")
        svg += text("ratio (log scale)", x: (plotLeft + plotRight) / 2, y: plotBottom + 34, size: 11,
                    fill: "#444444", anchor: "middle")

        for (row, bar) in bars.enumerated() {
            let y = top + Double(row) * rowHeight
            if row % 2 == 1 { svg += rect(x: 0, y: y, width: width, height: rowHeight, fill: "#f6f6f6") }
            let middle = y + rowHeight / 2
            if bar.detail.isEmpty {
                svg += text(bar.label, x: 16, y: middle + 4, size: 12, fill: "#333333")
            } else {
                svg += text(bar.label, x: 16, y: middle - 3, size: 12, weight: "bold", fill: "#111111")
                svg += text(shortened(bar.detail, to: 68), x: 16, y: middle + 11, size: 10, fill: "#555555")
            }
            if let ratio = bar.ratio {
                let (from, to) = (scale.x(1), scale.x(ratio))
                svg += rect(x: min(from, to), y: y + 8, width: max(abs(to - from), 1.5), height: rowHeight - 16,
                            fill: color(ratio: ratio, target: bar.target))
                svg += text(Format.ratio(ratio), x: plotRight + 10, y: middle - 3, size: 12, weight: "bold", fill: "#111111")
            } else {
                svg += text("—", x: plotRight + 10, y: middle - 3, size: 12, weight: "bold", fill: "#111111")
            }
            if let target = bar.target {
                let x = scale.x(target)
                svg += line(x1: x, y1: y + 4, x2: x, y2: y + rowHeight - 4, stroke: "#000000", width: 2.5)
            }
            let goal = bar.target.map { String(format: " · target %g×", $0) } ?? ""
            svg += text(bar.values + goal, x: plotRight + 10, y: middle + 11, size: 10, fill: "#555555")
        }
        svg += "</svg>\n"
        return svg
    }

    /// Writes the chart of `suite` to `path`, creating its directory.
    static func write(_ suite: SuiteReport, to path: URL) throws {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(svg(suite).utf8).write(to: path, options: .atomic)
    }

    /// Where the chart goes by default: beside the JSON, same name, `.svg`.
    static func defaultPath(forJSON json: URL) -> URL {
        json.deletingPathExtension().appendingPathExtension("svg")
    }

    /// `text` cut to `length` characters with an ellipsis, so that it stays in the label column
    /// (SVG text does not wrap).
    private static func shortened(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    /// Green when the target is met (or there is none and ours is ahead), amber when ours is
    /// ahead of SQLite but short of the target, red when SQLite is ahead.
    private static func color(ratio: Double, target: Double?) -> String {
        if ratio >= (target ?? 1) { return "#2e9d4f" }
        return ratio >= 1 ? "#e0a526" : "#d64545"
    }

    // MARK: SVG pieces

    /// `text` with XML's five special characters replaced by entities.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Coordinates with at most one decimal: enough at screen resolution, and the file stays
    /// small and stable from run to run.
    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    private static func rect(x: Double, y: Double, width: Double, height: Double, fill: String) -> String {
        "<rect x=\"\(number(x))\" y=\"\(number(y))\" width=\"\(number(width))\" height=\"\(number(height))\" fill=\"\(fill)\"/>\n"
    }

    private static func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double) -> String {
        "<line x1=\"\(number(x1))\" y1=\"\(number(y1))\" x2=\"\(number(x2))\" y2=\"\(number(y2))\" "
            + "stroke=\"\(stroke)\" stroke-width=\"\(number(width))\"/>\n"
    }

    private static func text(_ content: String, x: Double, y: Double, size: Double, weight: String = "normal",
                             fill: String, anchor: String = "start") -> String {
        "<text x=\"\(number(x))\" y=\"\(number(y))\" font-size=\"\(number(size))\" font-weight=\"\(weight)\" "
            + "fill=\"\(fill)\" text-anchor=\"\(anchor)\">\(escape(content))</text>\n"
    }
}

/// A logarithmic x axis over whole decades that contain every value and 1×.
struct LogScale {
    /// A grid line; `labeled` ones get a number under the plot.
    struct Tick {
        var value: Double
        var labeled: Bool
    }

    /// Powers of ten bounding the axis.
    let lowExponent: Int
    let highExponent: Int
    let left: Double
    let right: Double

    /// The axis spans from the decade below the smallest value to the decade above the largest,
    /// at least 0.1×…10×, at most 0.001×…10,000× (a value beyond is drawn at the edge).
    init(values: [Double], left: Double, right: Double) {
        let positive = values.filter { $0 > 0 && $0.isFinite }
        let low = positive.min().map { log10($0).rounded(.down) } ?? -1
        let high = positive.max().map { log10($0).rounded(.up) } ?? 1
        lowExponent = Int(min(max(low, -3), -1))
        highExponent = Int(max(min(high, 4), 1))
        self.left = left
        self.right = right
    }

    /// The x coordinate of `value`, clamped to the axis.
    func x(_ value: Double) -> Double {
        let position = (log10(max(value, 1e-9)) - Double(lowExponent)) / Double(highExponent - lowExponent)
        return left + min(max(position, 0), 1) * (right - left)
    }

    /// 1, 2 and 5 of every decade; all labeled when the axis spans at most 3 decades, else only
    /// the powers of ten (the labels would collide).
    var ticks: [Tick] {
        let fewDecades = highExponent - lowExponent <= 3
        var ticks: [Tick] = []
        for exponent in lowExponent...highExponent {
            let decade = pow(10, Double(exponent))
            for multiple in exponent == highExponent ? [1.0] : [1, 2, 5] {
                ticks.append(Tick(value: decade * multiple, labeled: multiple == 1 || fewDecades))
            }
        }
        return ticks
    }
}
