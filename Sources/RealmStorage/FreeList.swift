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

/// The pages a version does not use, and when each may be reused.
///
/// A page freed by transaction `F` (because `F` replaced it by a copy, or deleted what it held) is
/// still part of every version older than `F`. It may be reused once `F` is at or below the
/// *horizon*: the oldest version a reader still pins, and never above the newest durable version
/// (if the batch being built were lost in a crash, the file falls back to that version, so none
/// of its pages may be overwritten). Records are kept per freeing transaction until then; at the
/// start of each write transaction `release(upTo:)` merges the ripe ones into `reusable`.
///
/// The free list's own chain pages are the exception: readers never read them, only the writer
/// and recovery do, so the chain a commit replaces may be reused as soon as that commit is
/// durable, whatever readers pin (`pendingChain`). Without this, a pinned reader would make every
/// commit free and rewrite an ever longer chain: quadratic time and file growth.
///
/// Invariants: `reusable` is sorted by start, coalesced (no two runs touch) and disjoint from every
/// pending run; `pending` and `pendingChain` are sorted by freeing transaction.
package struct FreeList: Equatable, Sendable {
    package private(set) var reusable: [PageRun] = []
    package private(set) var pending: [(freedBy: TransactionID, runs: [PageRun])] = []
    /// Replaced free-list chain pages, by the transaction that replaced them.
    package private(set) var pendingChain: [(freedBy: TransactionID, runs: [PageRun])] = []

    /// Marks a stored entry as a replaced chain page (transaction ids stay below 2^63).
    static let chainTag: TransactionID = 1 << 63

    package init() {}

    package static func == (lhs: FreeList, rhs: FreeList) -> Bool {
        lhs.reusable == rhs.reusable
            && lhs.pending.elementsEqual(rhs.pending) { $0.freedBy == $1.freedBy && $0.runs == $1.runs }
            && lhs.pendingChain.elementsEqual(rhs.pendingChain) { $0.freedBy == $1.freedBy && $0.runs == $1.runs }
    }

    /// The number of free pages, reusable or not.
    package var pageCount: UInt64 {
        reusable.reduce(0) { $0 + $1.count }
            + (pending + pendingChain).reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.count } }
    }

    /// Makes the pages freed by transactions at or below `horizon` reusable, and the replaced
    /// chain pages of transactions at or below `durable`.
    package mutating func release(upTo horizon: TransactionID, chainUpTo durable: TransactionID) {
        let ripe = pending.prefix { $0.freedBy <= horizon }.count
        let ripeChain = pendingChain.prefix { $0.freedBy <= durable }.count
        guard ripe > 0 || ripeChain > 0 else { return }
        let merged = reusable + pending.prefix(ripe).flatMap(\.runs) + pendingChain.prefix(ripeChain).flatMap(\.runs)
        pending.removeFirst(ripe)
        pendingChain.removeFirst(ripeChain)
        reusable = Self.coalesced(merged)
    }

    /// Records the pages a transaction freed. `runs` need not be sorted or coalesced.
    package mutating func record(freedBy transaction: TransactionID, runs: [PageRun]) {
        guard !runs.isEmpty else { return }
        precondition(pending.last.map { $0.freedBy < transaction } ?? true, "free records out of order")
        pending.append((transaction, Self.coalesced(runs)))
    }

    /// Records the chain pages a transaction replaced (reusable once it is durable).
    package mutating func recordChain(freedBy transaction: TransactionID, runs: [PageRun]) {
        guard !runs.isEmpty else { return }
        precondition(pendingChain.last.map { $0.freedBy < transaction } ?? true, "free records out of order")
        pendingChain.append((transaction, Self.coalesced(runs)))
    }

    /// Returns pages that were never written (allocated and freed by the same transaction)
    /// straight to the reusable pool.
    package mutating func giveBack(_ run: PageRun) {
        reusable = Self.coalesced(reusable + [run])
    }

    /// Takes `count` consecutive reusable pages that do not cross a map section, lowest first.
    package mutating func allocate(count: UInt64) -> PageNumber? {
        for index in reusable.indices {
            let run = reusable[index]
            // The lowest start in this run from which `count` pages stay inside one section.
            var start = run.start
            if !PageMap.isContiguous(page: start, count: count) {
                start = (start / PageMap.pagesPerSection + 1) * PageMap.pagesPerSection
            }
            guard start + count <= run.end else { continue }
            var replacement: [PageRun] = []
            if start > run.start { replacement.append(PageRun(start: run.start, count: start - run.start)) }
            if start + count < run.end { replacement.append(PageRun(start: start + count, count: run.end - start - count)) }
            reusable.replaceSubrange(index...index, with: replacement)
            return start
        }
        return nil
    }

    /// Sorts runs and merges the ones that touch.
    static func coalesced(_ runs: [PageRun]) -> [PageRun] {
        var result: [PageRun] = []
        result.reserveCapacity(runs.count)
        for run in runs.sorted(by: { $0.start < $1.start }) where run.count > 0 {
            if let last = result.last, last.end >= run.start {
                precondition(last.end == run.start, "page run freed twice")
                result[result.count - 1].count += run.count
            } else {
                result.append(run)
            }
        }
        return result
    }

    // MARK: Persistence

    /// Every record as `(freedBy, run)` with reusable runs tagged 0 and replaced chain pages
    /// tagged with ``chainTag``, the order they are stored in.
    var entries: [(freedBy: TransactionID, run: PageRun)] {
        reusable.map { (0, $0) } + pending.flatMap { record in record.runs.map { (record.freedBy, $0) } }
            + pendingChain.flatMap { record in record.runs.map { (record.freedBy | Self.chainTag, $0) } }
    }

    /// A free-list page: the header, the next page of the chain (with its transaction), then
    /// `count` entries of `(freedBy, start, count)`, 24 bytes each.
    static let entriesOffset = PageLayout.headerSize + 16
    static let entrySize = 24
    static let entriesPerPage = (PageLayout.pageSize - entriesOffset) / entrySize

    /// How many chain pages the current entries need (counted, not materialized: called in a
    /// loop at every commit).
    var chainPagesNeeded: Int {
        let count = reusable.count + (pending + pendingChain).reduce(0) { $0 + $1.runs.count }
        return (count + Self.entriesPerPage - 1) / Self.entriesPerPage
    }

    /// Writes the entries into the chain's pages (already allocated, in order; extra pages stay
    /// empty). The caller seals the pages.
    func encode(into pages: [(number: PageNumber, pointer: UnsafeMutableRawPointer)], transaction: TransactionID) {
        let all = entries
        var next = 0
        for (index, page) in pages.enumerated() {
            page.pointer.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
            page.pointer.initializePageHeader(kind: .freeList, transaction: transaction)
            let successor = index + 1 < pages.count ? pages[index + 1].number : 0
            page.pointer.setU64(PageLayout.headerSize, successor)
            page.pointer.setU64(PageLayout.headerSize + 8, successor == 0 ? 0 : transaction)
            let count = min(Self.entriesPerPage, all.count - next)
            page.pointer.setU16(PageLayout.countOffset, UInt16(count))
            for slot in 0..<count {
                let entry = all[next + slot]
                let offset = Self.entriesOffset + slot * Self.entrySize
                page.pointer.setU64(offset, entry.freedBy)
                page.pointer.setU64(offset + 8, entry.run.start)
                page.pointer.setU64(offset + 16, entry.run.count)
            }
            next += count
        }
    }

    /// Reads a chain, validating every field against `pageCount`. `visit` sees each chain page
    /// (for integrity checks and recovery).
    static func decode(
        head: ChainHead, pageCount: UInt64, page: (PageNumber) -> UnsafeRawPointer,
        visit: (PageNumber, TransactionID) throws -> Void = { _, _ in }
    ) throws -> FreeList {
        var list = FreeList()
        var reusable: [PageRun] = []
        var current = head
        var seen = 0
        while current.page != 0 {
            guard current.page >= PageLayout.firstDataPage, current.page < pageCount, seen < pageCount else {
                throw StorageError(.invalidDatabase, "Free list points outside the file (page \(current.page))")
            }
            try visit(current.page, current.transaction)
            let base = page(current.page)
            guard base.pageKind == .freeList, base.pageCount16 <= entriesPerPage else {
                throw StorageError(.invalidDatabase, "Free-list page \(current.page) is damaged")
            }
            for slot in 0..<base.pageCount16 {
                let offset = entriesOffset + slot * entrySize
                let freedBy = base.u64(offset)
                let run = PageRun(start: base.u64(offset + 8), count: base.u64(offset + 16))
                // `start` is checked before `end` is computed: both come from the file.
                guard run.start >= PageLayout.firstDataPage, run.start <= pageCount, run.count > 0,
                      run.count <= pageCount - run.start
                else { throw StorageError(.invalidDatabase, "Free-list page \(current.page) has a bad run") }
                if freedBy == 0 {
                    reusable.append(run)
                } else if freedBy & chainTag != 0 {
                    let transaction = freedBy & ~chainTag
                    if let last = list.pendingChain.last, last.freedBy == transaction {
                        list.pendingChain[list.pendingChain.count - 1].runs.append(run)
                    } else {
                        guard list.pendingChain.last.map({ $0.freedBy < transaction }) ?? true else {
                            throw StorageError(.invalidDatabase, "Free-list page \(current.page) is out of order")
                        }
                        list.pendingChain.append((transaction, [run]))
                    }
                } else if let last = list.pending.last, last.freedBy == freedBy {
                    list.pending[list.pending.count - 1].runs.append(run)
                } else {
                    guard list.pending.last.map({ $0.freedBy < freedBy }) ?? true else {
                        throw StorageError(.invalidDatabase, "Free-list page \(current.page) is out of order")
                    }
                    list.pending.append((freedBy, [run]))
                }
            }
            current = ChainHead(page: base.u64(PageLayout.headerSize), transaction: base.u64(PageLayout.headerSize + 8))
            seen += 1
        }
        list.reusable = reusable
        return list
    }
}
