/// One change to the set of free pages: a run freed, or taken for reuse.
struct FreeListChange: Equatable, Sendable {
    var run: PageRun
    var isTaken: Bool
}

/// How the set of free pages is stored: a chain of pages, newest first, of *delta* pages then
/// *base* pages.
///
/// A base page lists free runs; a delta page lists changes (a run freed, or taken), oldest
/// first, the tail page of the deltas being the oldest. The free set is the base's runs with every
/// change applied in order. A commit appends its changes to the head delta page (a copy of it
/// at a new page number, like every other page: the old head is freed) or starts new delta pages
/// when it is full, so a commit writes O(its own changes) free-list bytes, whatever the size of
/// the list. When the deltas outgrow the base, the commit writes the whole set as a new base
/// instead and frees every old chain page: a rewrite of n runs happens only after at least n
/// changes, so the cost per change stays O(1) amortized, and opening reads at most about twice
/// the runs of the set.
///
/// Page layout (kind `.freeList`): flags byte 1 for a delta page, 0 for a base page; the next
/// page and its transaction at 24 and 32; `count` entries of 16 bytes from 40: the first page
/// with bit 63 set for a taken run, and the page count.
struct FreeListChain: Equatable, Sendable {
    /// Every page of the chain, head first.
    var pages: [PageNumber] = []
    /// The head page and the transaction that wrote it.
    var head: ChainHead = .none
    /// Whether the head is a delta page, and its number of entries.
    var headIsDelta = false
    var headCount = 0
    /// Runs listed in base pages, and changes listed in delta pages.
    var baseEntries = 0
    var deltaEntries = 0

    static let entriesOffset = PageLayout.headerSize + 16
    static let entrySize = 16
    static let entriesPerPage = (PageLayout.pageSize - entriesOffset) / entrySize
    static let deltaFlag: UInt8 = 1
    static let takenBit: UInt64 = 1 << 63
    /// Deltas may grow to at least this many entries before a new base is written, so that a
    /// small free list is not rewritten every few commits.
    static let minimumDeltaEntries = 4 * entriesPerPage

    /// Whether a commit adding `changes` entries should write a new base rather than a delta.
    func needsNewBase(adding changes: Int) -> Bool {
        deltaEntries + changes > max(baseEntries, Self.minimumDeltaEntries)
    }

    /// Encodes one chain page (the caller allocated it and seals it).
    static func encode(_ entries: ArraySlice<FreeListChange>, isDelta: Bool, next: ChainHead,
                       into page: UnsafeMutableRawPointer, transaction: TransactionID) {
        page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        page.initializePageHeader(kind: .freeList, transaction: transaction)
        page.storeBytes(of: isDelta ? deltaFlag : 0, toByteOffset: PageLayout.flagsOffset, as: UInt8.self)
        page.setU64(PageLayout.headerSize, next.page)
        page.setU64(PageLayout.headerSize + 8, next.transaction)
        page.setU16(PageLayout.countOffset, UInt16(entries.count))
        for (slot, entry) in entries.enumerated() {
            let offset = entriesOffset + slot * entrySize
            page.setU64(offset, entry.run.start | (entry.isTaken ? takenBit : 0))
            page.setU64(offset + 8, entry.run.count)
        }
    }

    /// Reads a chain, validating every field against `pageCount`, and replays it into the set of
    /// free pages (all reusable: nothing pins a version of a file being opened). `visit` sees each
    /// chain page (for integrity checks and recovery).
    ///
    /// - Throws: `.invalidDatabase` for a chain that points outside the file or loops, a damaged
    ///   page, a base page before a delta page, or a change that frees a page twice or takes a page
    ///   that is not free.
    /// - Complexity: O(entries + pageCount / 64).
    static func decode(
        head: ChainHead, pageCount: UInt64, page: (PageNumber) -> UnsafeRawPointer,
        visit: (PageNumber, TransactionID) throws -> Void = { _, _ in }
    ) throws -> (FreeList, FreeListChain) {
        var chain = FreeListChain(head: head)
        var deltaPages: [UnsafeRawPointer] = []
        var free = PageBitmap(pageCount: pageCount)
        var current = head
        var first = true
        var seenBase = false
        while current.page != 0 {
            guard current.page >= PageLayout.firstDataPage, current.page < pageCount, chain.pages.count < pageCount else {
                throw StorageError(.invalidDatabase, "Free list points outside the file (page \(current.page))")
            }
            try visit(current.page, current.transaction)
            let base = page(current.page)
            let flags = base.u8(PageLayout.flagsOffset)
            guard base.pageKind == .freeList, base.pageCount16 <= entriesPerPage, flags <= deltaFlag else {
                throw StorageError(.invalidDatabase, "Free-list page \(current.page) is damaged")
            }
            guard base.pageTransaction == current.transaction else {
                throw StorageError(.invalidDatabase, "Free-list page \(current.page) holds transaction \(base.pageTransaction) where the chain expects \(current.transaction) (a stale or overwritten page)")
            }
            let isDelta = flags == deltaFlag
            if first {
                chain.headIsDelta = isDelta
                chain.headCount = base.pageCount16
                first = false
            }
            chain.pages.append(current.page)
            if isDelta {
                guard !seenBase else { throw StorageError(.invalidDatabase, "Free-list page \(current.page) is out of order") }
                deltaPages.append(base)
                chain.deltaEntries += base.pageCount16
            } else {
                for slot in 0..<base.pageCount16 {
                    let change = try entry(base, slot, pageCount: pageCount)
                    guard !change.isTaken else { throw StorageError(.invalidDatabase, "Free-list page \(current.page) is damaged") }
                    try free.add(change.run)
                }
                chain.baseEntries += base.pageCount16
                seenBase = true
            }
            current = ChainHead(page: base.u64(PageLayout.headerSize), transaction: base.u64(PageLayout.headerSize + 8))
        }
        for base in deltaPages.reversed() {
            for slot in 0..<base.pageCount16 {
                let change = try entry(base, slot, pageCount: pageCount)
                if change.isTaken { try free.take(change.run) } else { try free.add(change.run) }
            }
        }
        return (FreeList(reusable: free.runs), chain)
    }

    /// Entry `slot` of a chain page, unchecked (a page this process wrote or verified).
    static func change(_ base: UnsafeRawPointer, _ slot: Int) -> FreeListChange {
        let offset = entriesOffset + slot * entrySize
        let first = base.u64(offset)
        return FreeListChange(run: PageRun(start: first & ~takenBit, count: base.u64(offset + 8)), isTaken: first & takenBit != 0)
    }

    private static func entry(_ base: UnsafeRawPointer, _ slot: Int, pageCount: UInt64) throws -> FreeListChange {
        let offset = entriesOffset + slot * entrySize
        let first = base.u64(offset)
        let run = PageRun(start: first & ~takenBit, count: base.u64(offset + 8))
        // `start` is checked before `end` is computed: both come from the file.
        guard run.start >= PageLayout.firstDataPage, run.start <= pageCount, run.count > 0,
              run.count <= pageCount - run.start
        else { throw StorageError(.invalidDatabase, "A free-list page has a bad run (\(run.start), \(run.count))") }
        return FreeListChange(run: run, isTaken: first & takenBit != 0)
    }
}

/// One bit per page of a file: which are free, while a stored free list is replayed.
struct PageBitmap {
    private var words: [UInt64]

    init(pageCount: UInt64) {
        words = [UInt64](repeating: 0, count: Int((pageCount + 63) / 64))
    }

    mutating func add(_ run: PageRun) throws {
        for number in run.start..<run.end {
            let (word, bit) = (Int(number / 64), number % 64)
            guard words[word] & (1 << bit) == 0 else {
                throw StorageError(.invalidDatabase, "The free list lists page \(number) twice")
            }
            words[word] |= 1 << bit
        }
    }

    mutating func take(_ run: PageRun) throws {
        for number in run.start..<run.end {
            let (word, bit) = (Int(number / 64), number % 64)
            guard words[word] & (1 << bit) != 0 else {
                throw StorageError(.invalidDatabase, "The free list reuses page \(number), which is not free")
            }
            words[word] &= ~(1 << bit)
        }
    }

    /// The free pages as sorted, coalesced runs.
    var runs: [PageRun] {
        var result: [PageRun] = []
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let bit = UInt64(bits.trailingZeroBitCount)
                result.appendCoalescing(PageRun(start: UInt64(index) * 64 + bit, count: 1))
                bits &= bits - 1
            }
        }
        return result
    }
}
