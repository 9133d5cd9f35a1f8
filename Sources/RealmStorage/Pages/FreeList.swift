/// A run of consecutive pages.
package struct PageRun: Equatable, Sendable {
    package var start: PageNumber
    package var count: UInt64
    package var end: PageNumber { start + count }

    package init(start: PageNumber, count: UInt64) {
        self.start = start
        self.count = count
    }
}

/// Pages that a transaction stopped using, and the versions that still see them.
///
/// A page written by transaction `C` and freed by transaction `F` (because `F` replaced it by a
/// copy, or deleted what it held) belongs to the versions `C..<F` and to no other.
struct FreedRun: Equatable, Sendable {
    var run: PageRun
    /// The transaction that wrote the pages. For pages no reader ever reads (the free list's own
    /// chain), `freedBy`: no version needs them.
    var createdBy: TransactionID
    var freedBy: TransactionID
}

/// The pages a version does not use, and when each may be reused.
///
/// ## When a freed page may be reused
///
/// A page of versions `C..<F` (see ``FreedRun``) may be overwritten once
///
/// 1. `F` is durable: had the batch writing over the page been lost in a crash, the file would
///    fall back to the newest durable version, whose pages must be intact (see FORMAT.md); and
/// 2. no reader pins a version in `C..<F`.
///
/// Rule 2 is what keeps a long-held snapshot cheap: with one version `S` pinned, the pages that
/// steady writes create and free after `S` are reused at once; only pages of `S` itself wait. (A
/// rule of "freed at or before the oldest pin" would keep every page freed since `S`: the file
/// would grow by every commit's copies for as long as `S` is held.) Versions pinned later cannot
/// see such a page: a reader pins the newest durable version, which is at or above `F`.
///
/// ``release(pins:durable:)`` applies both rules at the start of each write transaction: runs
/// wait in `awaitingDurability` until `F` is durable, then, if a pin still sees them, under that
/// pin in `pinned` until it is released.
///
/// ## What is stored
///
/// The file records every free page *and* the versions that may still see it: each run that
/// was not reusable when it was stored keeps its `(createdBy, freedBy)`, and only runs that were
/// reusable are stored as *settled*. So a writer that did not store the list itself — another
/// process taking over writing, or this one after a restart — rebuilds the same list from the
/// file alone: settled runs are reusable, the others wait in `awaitingDurability` and
/// ``release(pins:durable:)`` classifies them against the pins of every reader it knows of
/// (readers in other processes may still see them). See ``FreeListChain`` for how the set is
/// stored without rewriting it whole at each commit; ``changes`` is what this transaction did
/// to it.
///
/// Invariants: `reusable` is sorted by start and coalesced (no two runs touch); every free page
/// is in exactly one of `reusable`, `awaitingDurability` (sorted by `freedBy`) and `pinned`
/// (each run under the oldest pin in its `createdBy..<freedBy`).
package struct FreeList: Sendable {
    /// Free pages that may be reused now.
    package private(set) var reusable: [PageRun] = []
    /// Pages freed by transactions that are not durable yet, oldest first.
    private(set) var awaitingDurability: [FreedRun] = []
    /// Pages freed durably but seen by a pinned version, by that version.
    private(set) var pinned: [TransactionID: [FreedRun]] = [:]
    /// This transaction's changes to the set of free pages, in order: what the next delta of the
    /// stored free list records (see ``FreeListChain``). Emptied when a commit stores them.
    private(set) var changes: [FreeListChange] = []

    package init() {}

    /// A free list as a stored chain describes it (see ``FreeListChain/decode(head:version:pageCount:page:visit:)``):
    /// `reusable` runs (settled when stored) and `unsettled` runs, each with the versions that
    /// may see it, which wait in `awaitingDurability` until ``release(pins:durable:)`` sorts
    /// them. The two must not overlap.
    init(reusable runs: [PageRun], unsettled: [FreedRun] = []) {
        reusable = Self.coalesced(runs)
        awaitingDurability = unsettled.sorted { ($0.freedBy, $0.run.start) < ($1.freedBy, $1.run.start) }
    }

    /// The number of free pages, reusable or not.
    package var pageCount: UInt64 {
        reusable.reduce(0) { $0 + $1.count }
            + awaitingDurability.reduce(0) { $0 + $1.run.count }
            + pinned.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.run.count } }
    }

    /// The free pages that may be reused now.
    package var reusablePageCount: UInt64 { reusable.reduce(0) { $0 + $1.count } }

    /// Every free page, sorted and coalesced.
    ///
    /// - Complexity: O(n log n) in the number of runs.
    var allRuns: [PageRun] {
        Self.coalesced(reusable + awaitingDurability.map(\.run) + pinned.values.flatMap { $0.map(\.run) })
    }

    /// What a base of the stored free list holds, sorted by start: the reusable runs as settled
    /// entries, coalesced, and every other run with the versions that see it (runs that touch and
    /// share both transactions are merged).
    ///
    /// - Complexity: O(n log n) in the number of runs.
    var baseEntries: [FreeListChange] {
        let unsettled = (awaitingDurability + pinned.values.joined()).sorted { $0.run.start < $1.run.start }
        var result: [FreeListChange] = []
        result.reserveCapacity(reusable.count + unsettled.count)
        var settled = reusable[...]
        for freed in unsettled {
            while let run = settled.first, run.start < freed.run.start {
                result.append(.settled(run))
                settled.removeFirst()
            }
            if let last = result.last, !last.isSettled, last.run.end == freed.run.start,
               last.createdBy == freed.createdBy, last.transaction == freed.freedBy {
                result[result.count - 1].run.count += freed.run.count
            } else {
                result.append(.freed(freed))
            }
        }
        result += settled.map(FreeListChange.settled)
        return result
    }

    /// Makes reusable the freed pages that no version still needs: freed by a transaction at or
    /// below `durable`, and seen by no version in `pins` (every process's readers'). A run seen by
    /// a pinned version waits under the oldest such version, and is sorted again once that
    /// version no longer counts as pinned (a range's versions count, though no reader may hold
    /// them exactly).
    ///
    /// - Complexity: O(newly durable runs + runs under released pins + reusable runs).
    /// - Returns: the runs that became reusable (no version a reader or a crash may need still
    ///   reaches them), not coalesced.
    @discardableResult
    package mutating func release(pins: PinSet, durable: TransactionID) -> [PageRun] {
        let durableCount = awaitingDurability.prefix { $0.freedBy <= durable }.count
        var unpinned: [FreedRun] = []
        for pin in pinned.keys where !pins.contains(pin) {
            unpinned += pinned.removeValue(forKey: pin)!
        }
        guard durableCount > 0 || !unpinned.isEmpty else { return [] }
        var ripe: [PageRun] = []
        ripe.reserveCapacity(durableCount + unpinned.count)
        func sort(_ freed: FreedRun) {
            if let pin = pins.first(atLeast: freed.createdBy), pin < freed.freedBy {
                pinned[pin, default: []].append(freed)
            } else {
                ripe.append(freed.run)
            }
        }
        for freed in awaitingDurability[..<durableCount] { sort(freed) }
        for freed in unpinned { sort(freed) }
        awaitingDurability.removeFirst(durableCount)
        if !ripe.isEmpty { reusable = Self.merged(reusable, Self.coalesced(ripe)) }
        return ripe
    }

    /// Records the runs a transaction freed. `runs` need not be sorted or coalesced.
    mutating func record(_ runs: [FreedRun]) {
        changes.reserveCapacity(changes.count + runs.count)
        for freed in runs where freed.run.count > 0 {
            precondition(awaitingDurability.last.map { $0.freedBy <= freed.freedBy } ?? true, "free records out of order")
            awaitingDurability.append(freed)
            changes.append(.freed(freed))
        }
    }

    /// Returns pages that transaction `by` allocated but never wrote (allocated and freed by it,
    /// or skipped at the end of the file) straight to the reusable pool. No version sees them;
    /// the stored change says so as `(by, by)` (an empty range of versions), which any writer
    /// reading it treats as reusable once `by` is durable.
    package mutating func giveBack(_ run: PageRun, by transaction: TransactionID) {
        reusable = Self.merged(reusable, [run])
        changes.append(.freed(FreedRun(run: run, createdBy: transaction, freedBy: transaction)))
    }

    /// Takes, for transaction `by`, `count` consecutive reusable pages that do not cross a map
    /// section, lowest first.
    package mutating func allocate(count: UInt64, by transaction: TransactionID) -> PageNumber? {
        for index in reusable.indices {
            let run = reusable[index]
            // The lowest start in this run from which `count` pages stay inside one section.
            var start = run.start
            if !PageMap.isContiguous(page: start, count: count) {
                start = (start / PageMap.pagesPerSection + 1) * PageMap.pagesPerSection
            }
            guard start + count <= run.end else { continue }
            // What is left of the run: the pages before `start` and after the taken ones.
            let before = PageRun(start: run.start, count: start - run.start)
            let after = PageRun(start: start + count, count: run.end - start - count)
            switch (before.count > 0, after.count > 0) {
            case (false, false): reusable.remove(at: index)
            case (true, false): reusable[index] = before
            case (false, true): reusable[index] = after
            case (true, true):
                reusable[index] = before
                reusable.insert(after, at: index + 1)
            }
            changes.append(.taken(PageRun(start: start, count: count), by: transaction))
            return start
        }
        return nil
    }

    /// Forgets ``changes`` once a commit has stored them.
    mutating func clearChanges() { changes.removeAll(keepingCapacity: true) }

    /// Sorts runs and merges the ones that touch.
    static func coalesced(_ runs: [PageRun]) -> [PageRun] {
        var result: [PageRun] = []
        result.reserveCapacity(runs.count)
        for run in runs.sorted(by: { $0.start < $1.start }) where run.count > 0 {
            result.appendCoalescing(run)
        }
        return result
    }

    /// The pages in both `a` and `b`, each sorted by start and coalesced.
    ///
    /// - Complexity: O(`a.count` + `b.count`).
    static func intersection(_ a: [PageRun], _ b: [PageRun]) -> [PageRun] {
        var result: [PageRun] = []
        var i = 0, j = 0
        while i < a.count && j < b.count {
            let start = max(a[i].start, b[j].start)
            let end = min(a[i].end, b[j].end)
            if start < end { result.append(PageRun(start: start, count: end - start)) }
            if a[i].end < b[j].end { i += 1 } else { j += 1 }
        }
        return result
    }

    /// Merges two sorted, coalesced lists into one.
    ///
    /// - Complexity: O(a + b).
    static func merged(_ a: [PageRun], _ b: [PageRun]) -> [PageRun] {
        var result: [PageRun] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i].start < b[j].start) {
                result.appendCoalescing(a[i]); i += 1
            } else {
                result.appendCoalescing(b[j]); j += 1
            }
        }
        return result
    }
}

extension [PageRun] {
    /// Appends a run that starts at or after the last one, merging them if they touch.
    mutating func appendCoalescing(_ run: PageRun) {
        guard run.count > 0 else { return }
        if let last, last.end >= run.start {
            precondition(last.end == run.start, "page run freed twice")
            self[count - 1].count += run.count
        } else {
            append(run)
        }
    }
}
