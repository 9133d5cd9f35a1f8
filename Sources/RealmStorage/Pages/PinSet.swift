/// The versions readers pin, in this process and in every other attached one: what decides
/// whether a freed page is still seen (``FreeList/release(pins:durable:)``).
///
/// Exact versions, plus ranges: a process mirrors each version it pins into its slot of the lock
/// file, exactly while its slot has room, then as one range covering the rest (`LockFile`), and
/// every version in a range counts as pinned. A range over-approximates — a page of a version
/// between two pinned ones waits too — never the reverse.
///
/// Invariants: `exact` is sorted ascending without duplicates; `ranges` are non-empty.
package struct PinSet: Equatable, Sendable, ExpressibleByArrayLiteral {
    package private(set) var exact: [TransactionID]
    package private(set) var ranges: [ClosedRange<TransactionID>]

    package init(exact: some Sequence<TransactionID>, ranges: [ClosedRange<TransactionID>] = []) {
        var sorted = Array(exact)
        sorted.sort()
        self.exact = sorted.reduce(into: []) { unique, version in
            if unique.last != version { unique.append(version) }
        }
        self.ranges = ranges
    }

    package init(arrayLiteral versions: TransactionID...) {
        self.init(exact: versions)
    }

    package var isEmpty: Bool { exact.isEmpty && ranges.isEmpty }

    /// The oldest pinned version.
    package var oldest: TransactionID? {
        (exact.prefix(1) + ranges.map(\.lowerBound)).min()
    }

    /// The distinct versions known to be pinned: the exact ones and the ends of each range (the
    /// versions inside a range may or may not be; a lower bound).
    package var knownVersions: Set<TransactionID> {
        Set(exact).union(ranges.flatMap { [$0.lowerBound, $0.upperBound] })
    }

    /// The same set with `other`'s versions and ranges added.
    package func union(_ other: PinSet) -> PinSet {
        PinSet(exact: exact + other.exact, ranges: ranges + other.ranges)
    }

    /// Whether `version` counts as pinned.
    ///
    /// - Complexity: O(log exact + ranges).
    package func contains(_ version: TransactionID) -> Bool {
        firstExact(atLeast: version) == version || ranges.contains { $0.contains(version) }
    }

    /// The oldest version at or above `version` that counts as pinned.
    ///
    /// - Complexity: O(log exact + ranges).
    package func first(atLeast version: TransactionID) -> TransactionID? {
        var best = firstExact(atLeast: version)
        for range in ranges where range.upperBound >= version {
            let candidate = max(range.lowerBound, version)
            if best.map({ candidate < $0 }) ?? true { best = candidate }
        }
        return best
    }

    /// The smallest exact version at or above `version`: a binary search.
    private func firstExact(atLeast version: TransactionID) -> TransactionID? {
        var low = 0, high = exact.count
        while low < high {
            let middle = (low + high) / 2
            if exact[middle] < version { low = middle + 1 } else { high = middle }
        }
        return low < exact.count ? exact[low] : nil
    }
}
