// The command line and the report shared by the many-rounds benchmarks (object-bench,
// commit-bench): `NAME [COUNT] [MEASUREMENT [ROUNDS]]`, each measurement repeated for a number of
// rounds and reported as the minimum and median of its rounds — on this machine timings move by
// up to 1.5x between runs, so before/after comparisons use the minimums.
import Foundation

/// `[COUNT] [MEASUREMENT [ROUNDS]]` from the command line, and which rounds to run.
public struct MeasurementRounds: Sendable {
    /// COUNT: objects or commits per round.
    public let count: Int
    /// MEASUREMENT: the only measurement to run (after its setup), for `perf record`.
    public let only: String?
    /// ROUNDS: how many rounds of `only` to run instead of its default.
    public let onlyRounds: Int?

    /// Parses the process's arguments; `defaultCount` when COUNT is absent.
    public init(defaultCount: Int) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        count = arguments.first.flatMap { Int($0) } ?? defaultCount
        only = arguments.count > 1 ? arguments[1] : nil
        onlyRounds = arguments.count > 2 ? Int(arguments[2]) : nil
    }

    /// The rounds of measurement `name`: `rounds` normally, the requested number when it is the
    /// only one measured, none when another one is.
    public func rounds(_ name: String, _ rounds: Int) -> Range<Int> {
        guard let only else { return 0..<rounds }
        return only == name ? 0..<(onlyRounds ?? rounds) : 0..<0
    }
}

/// Elapsed time of `body` in `unit`s of seconds (1e-9 for nanoseconds, 1e-6 for microseconds).
public func elapsed(in unit: Double, _ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return seconds(ContinuousClock.now - start) / unit
}

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Prints `title`, then one line per measurement that ran: its name, the minimum and the median
/// of its samples, with `decimals` digits.
public func printRounds(_ title: String, _ rows: [(String, [Double])], decimals: Int = 0) {
    print(title)
    print("  measurement      min   median")
    for (name, samples) in rows where !samples.isEmpty {
        let sorted = samples.sorted()
        let format = "%6.\(decimals)f   %6.\(decimals)f"
        print("  \(name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(String(format: format, sorted[0], sorted[sorted.count / 2]))")
    }
}
