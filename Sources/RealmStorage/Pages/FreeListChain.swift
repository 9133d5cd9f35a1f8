/// One entry of the stored free list: in a delta page, a change to the set of free pages (a run
/// freed, or taken for reuse); in a base page, a free run.
///
/// A free carries the versions that may see its pages, `createdBy..<transaction` (see
/// ``FreedRun``), so that any writer can tell from the file alone when the pages may be reused
/// (several processes write one file: the one that freed them may not be the one that reuses
/// them). A *settled* run, `createdBy = transaction = 0`, was reusable by every reader when it
/// was stored; only base pages hold settled runs. A take records the transaction that took the
/// pages, and `createdBy` 0.
struct FreeListChange: Equatable, Sendable {
    var run: PageRun
    var isTaken: Bool
    /// A free's first version that sees the pages; 0 for a take or a settled run.
    var createdBy: TransactionID
    /// A free's freeing transaction, a take's taking one; 0 for a settled run.
    var transaction: TransactionID

    static func freed(_ freed: FreedRun) -> Self {
        FreeListChange(run: freed.run, isTaken: false, createdBy: freed.createdBy, transaction: freed.freedBy)
    }

    static func taken(_ run: PageRun, by transaction: TransactionID) -> Self {
        FreeListChange(run: run, isTaken: true, createdBy: 0, transaction: transaction)
    }

    static func settled(_ run: PageRun) -> Self {
        FreeListChange(run: run, isTaken: false, createdBy: 0, transaction: 0)
    }

    var isSettled: Bool { !isTaken && createdBy == 0 && transaction == 0 }

    /// Whether a free names a nonempty or empty range of versions that starts at a real
    /// transaction (no transaction 0 writes pages): `1 ≤ createdBy ≤ transaction`.
    var isOrderedFree: Bool { !isTaken && createdBy >= 1 && createdBy <= transaction }
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
/// page and its transaction at 24 and 32; `count` entries of 32 bytes from 40: the first page
/// with bit 63 set for a taken run, the page count, `createdBy` and `transaction` (see
/// ``FreeListChange``).
///
/// What decoding checks beyond the runs themselves (`transaction` of an entry; `T` the page's
/// transaction, `V` the version's): every chain page has `T ≤ V`; a base entry is a free, settled
/// `(0, 0)` or `1 ≤ createdBy ≤ transaction ≤ T`; a delta entry has `1 ≤ transaction ≤ T`,
/// above the base's `T` and at or above the entry replayed before it (changes are stored in
/// commit order), and is a take with `createdBy` 0 or a free with `1 ≤ createdBy ≤ transaction`.
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
    static let entrySize = 32
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
            page.setU64(offset + 16, entry.createdBy)
            page.setU64(offset + 24, entry.transaction)
        }
    }

    /// Reads a chain of version `version`, validating every field against `pageCount` and the
    /// transactions (see the type's notes), and replays it into the set of free pages: settled
    /// runs are reusable; every other run keeps the versions that may see it and waits in
    /// ``FreeList``'s `awaitingDurability` for ``FreeList/release(pins:durable:)``, which the
    /// caller runs against the pins it knows of. `visit` sees each chain page (for integrity
    /// checks and recovery).
    ///
    /// - Throws: `.invalidDatabase` for a chain that points outside the file or loops, a damaged
    ///   page, a base page before a delta page, a change that frees a page twice or takes a page
    ///   that is not free, or transactions out of order or range.
    /// - Complexity: O(entries + pages the entries free + pageCount / 64).
    static func decode(
        head: ChainHead, version: TransactionID, pageCount: UInt64, page: (PageNumber) -> UnsafeRawPointer,
        visit: (PageNumber, TransactionID) throws -> Void = { _, _ in }
    ) throws -> (FreeList, FreeListChain) {
        var chain = FreeListChain(head: head)
        var deltaPages: [(number: PageNumber, base: UnsafeRawPointer)] = []
        var free = PageBitmap(pageCount: pageCount)
        // Every free in replay order (base runs first): the newest free of a page says who sees it.
        var frees: [FreeListChange] = []
        var baseTransaction: TransactionID = 0
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
            guard current.transaction <= version else {
                throw StorageError(.invalidDatabase, "Free-list page \(current.page) was written by transaction \(current.transaction), after version \(version)")
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
                deltaPages.append((current.page, base))
                chain.deltaEntries += base.pageCount16
            } else {
                for slot in 0..<base.pageCount16 {
                    let change = try entry(base, slot, pageCount: pageCount)
                    guard !change.isTaken, change.isSettled || change.isOrderedFree && change.transaction <= current.transaction
                    else { throw damagedEntry(change, in: current.page) }
                    try free.add(change.run)
                    if !change.isSettled { frees.append(change) }
                }
                chain.baseEntries += base.pageCount16
                baseTransaction = max(baseTransaction, current.transaction)
                seenBase = true
            }
            current = ChainHead(page: base.u64(PageLayout.headerSize), transaction: base.u64(PageLayout.headerSize + 8))
        }
        var previous: TransactionID = 1
        for (number, base) in deltaPages.reversed() {
            for slot in 0..<base.pageCount16 {
                let change = try entry(base, slot, pageCount: pageCount)
                guard change.transaction > baseTransaction, change.transaction >= previous, change.transaction <= base.pageTransaction,
                      change.isTaken ? change.createdBy == 0 : change.isOrderedFree
                else { throw damagedEntry(change, in: number) }
                previous = change.transaction
                if change.isTaken { try free.take(change.run) } else {
                    try free.add(change.run)
                    frees.append(change)
                }
            }
        }
        // Each free page's versions come from the newest free of it: walk the frees newest first
        // and give each page still free the first pair found.
        var claimed = PageBitmap(pageCount: pageCount)
        var unsettled: [FreedRun] = []
        for change in frees.reversed() {
            var start = change.run.start
            func close(at end: PageNumber) {
                if end > start {
                    unsettled.append(FreedRun(run: PageRun(start: start, count: end - start),
                                              createdBy: change.createdBy, freedBy: change.transaction))
                }
            }
            for number in change.run.start..<change.run.end {
                if free.contains(number) && !claimed.contains(number) {
                    claimed.insert(number)
                } else {
                    close(at: number)
                    start = number + 1
                }
            }
            close(at: change.run.end)
        }
        for freed in unsettled { try free.take(freed.run) }
        return (FreeList(reusable: free.runs, unsettled: unsettled), chain)
    }

    private static func damagedEntry(_ change: FreeListChange, in page: PageNumber) -> StorageError {
        StorageError(.invalidDatabase, "Free-list page \(page) has an entry with impossible transactions (\(change.isTaken ? "taken" : "freed") run at \(change.run.start), created by \(change.createdBy), transaction \(change.transaction))")
    }

    /// Entry `slot` of a chain page, unchecked (a page this process wrote or verified).
    static func change(_ base: UnsafeRawPointer, _ slot: Int) -> FreeListChange {
        let offset = entriesOffset + slot * entrySize
        let first = base.u64(offset)
        return FreeListChange(run: PageRun(start: first & ~takenBit, count: base.u64(offset + 8)), isTaken: first & takenBit != 0,
                              createdBy: base.u64(offset + 16), transaction: base.u64(offset + 24))
    }

    private static func entry(_ base: UnsafeRawPointer, _ slot: Int, pageCount: UInt64) throws -> FreeListChange {
        let change = change(base, slot)
        let run = change.run
        // `start` is checked before `end` is computed: both come from the file.
        guard run.start >= PageLayout.firstDataPage, run.start <= pageCount, run.count > 0,
              run.count <= pageCount - run.start
        else { throw StorageError(.invalidDatabase, "A free-list page has a bad run (\(run.start), \(run.count))") }
        return change
    }
}

/// One bit per page of a file, while a stored free list is replayed: which are free (and which
/// have had their versions found).
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

    func contains(_ number: PageNumber) -> Bool {
        words[Int(number / 64)] & (1 << (number % 64)) != 0
    }

    mutating func insert(_ number: PageNumber) {
        words[Int(number / 64)] |= 1 << (number % 64)
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
