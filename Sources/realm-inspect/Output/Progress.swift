import Foundation

/// A progress line on standard error for long work (`check`, `compact`, `query`, `dump` over
/// many objects), shown only when standard error is a terminal and `--quiet` was not given, and
/// redrawn at most 10 times a second. Standard output carries only data, so the line never
/// mixes into what a pipe receives.
struct Progress {
    private let isShown: Bool
    private let label: String
    private var lastDrawn = ContinuousClock.now
    private var drawn = false

    init(_ label: String, quiet: Bool) {
        self.label = label
        isShown = !quiet && isatty(STDERR_FILENO) == 1
    }

    /// Reports `done` of `total` (total nil when unknown).
    mutating func update(_ done: Int, of total: Int? = nil) {
        guard isShown, ContinuousClock.now - lastDrawn >= .milliseconds(100) else { return }
        lastDrawn = .now
        let amount = total.map { "\(done) of \($0) (\(Int(Double(done) * 100 / Double(max($0, 1))))%)" } ?? "\(done)"
        FileHandle.standardError.write(Data("\r\u{1B}[K\(label): \(amount)".utf8))
        drawn = true
    }

    /// Clears the line.
    mutating func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
