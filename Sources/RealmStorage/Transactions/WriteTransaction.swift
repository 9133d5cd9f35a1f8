/// Identifies a tree (a table, an index, …) in the catalog.
package typealias TreeID = UInt64

/// The one transaction that may change the database, building the next version by copy-on-write.
///
/// Nothing it does is visible to readers until it is prepared and flushed. Pages of older versions
/// are never modified: changing one allocates a new page (from the free list, or at the end of
/// the file), copies it, and frees the old number for reuse once no reader can see it.
///
/// Not thread-safe: one thread (or actor) uses it at a time. `Database` guarantees there is at
/// most one per database.
package final class WriteTransaction: PageSource {
    package let database: Database
    /// `database.map.addressing`, copied: reading a committed page touches no reference count.
    private let committedPages: PageAddressing
    package let transaction: TransactionID
    /// The database's discard generation when this began; a failed flush bumps it, so a
    /// transaction built on discarded commits cannot be prepared.
    let generation: UInt64
    let base: VersionTip
    /// Unflushed commits below this transaction, newest first.
    let below: [PreparedCommit]

    package private(set) var pageLimit: UInt64
    var freeList: FreeList
    /// The runs that became reusable when this transaction began (see ``FreePageMemory``).
    let newlyReusable: [PageRun]
    /// Pages of older versions this transaction no longer uses.
    var freed: [FreedRun] = []
    /// The pages this transaction wrote, by number. `@exclusivity(unchecked)`: read on every
    /// page access (``page(_:)``), where the runtime's dynamic exclusivity check cost as much as
    /// the lookup. Safe because one thread uses a transaction at a time (see above) and every
    /// access is a single lookup, insertion, removal or iteration that calls no code touching
    /// `dirty` while it runs.
    @exclusivity(unchecked) var dirty = PageTable()
    var catalog: TreeRoot
    /// The replication slots and change records of this version (see ``ReplicationSlot``),
    /// the pages the records retain and the counter of pages they have retained in all: the
    /// base's, as edited by this transaction.
    var slotsRoot: TreeRoot
    var changeRecordsRoot: TreeRoot
    var retainedPages: UInt64
    package internal(set) var recordedPages: UInt64
    /// The slots a retention limit invalidated at this commit's prepare (see ``recordChanges()``),
    /// for the runtime to report.
    package internal(set) var invalidatedSlots: [ReplicationSlot] = []
    /// Roots of the trees this transaction has touched; `nil` for a dropped tree.
    var roots: [TreeID: TreeRoot?] = [:]
    /// Index entries added but not yet in their trees (see ``indexInsert(_:key:)``).
    var pendingIndexEntries: [TreeID: PendingIndexEntries] = [:]
    /// The greatest key of table `tree`, known because the last row inserted into it went after
    /// all others (ascending keys: the bulk insert's case). A key above it needs no existence
    /// check (one descent fewer per insert), and ``lastRowKey(in:)`` answers without a descent.
    /// Invariant: while set, `key` is the greatest key of `tree`. Keys enter a table only through
    /// `insertRow` (which keeps it), and leave through `removeRow` (which clears it when it
    /// removes `key`) or `dropTree` (which clears it).
    var rightEdge: (tree: TreeID, key: UInt64)?
    /// Counts the edits that may have moved a table row: new pages (copies, splits), released
    /// pages (merges, deletions), row inserts and removals. Equal before and after an edit
    /// means that every row is where it was (at the same address, the same index in its leaf),
    /// as after a value written in place; the object layer keeps the positions it found then.
    package internal(set) var positionChanges: UInt64 = 0
    /// The row heap budget of the layout last inserted into (see `rowHeapBudget(_:)`).
    var lastRowHeapBudget: (layout: [ColumnSpec], budget: Int)?
    /// What this transaction did to table rows, for change notifications (see ``RowChangeLog``).
    package internal(set) var changeLog = RowChangeLog()
    private var isFinished = false

    /// - Parameters:
    ///   - pins: the versions readers pin, in every process; `durable`: the newest durable version. Freed
    ///     pages that neither needs are reused (see ``FreeList``).
    init(database: Database, base: VersionTip, below: [PreparedCommit], generation: UInt64,
         transaction: TransactionID, pins: PinSet, durable: TransactionID) {
        precondition(transaction > base.meta.transaction)
        self.database = database
        committedPages = database.map.addressing
        self.base = base
        self.below = below
        self.generation = generation
        self.transaction = transaction
        pageLimit = base.meta.pageCount
        catalog = base.meta.catalog
        slotsRoot = base.meta.slots
        changeRecordsRoot = base.meta.changeRecords
        retainedPages = base.meta.retainedPages
        recordedPages = base.meta.recordedPages
        var freeList = base.freeList
        newlyReusable = freeList.release(pins: pins, durable: durable)
        self.freeList = freeList
        // A small commit's few entries in one allocation each, instead of growing through
        // capacities 1, 2, 4, 8 (commit-bench memory-sync counted 61 allocations a commit).
        freed.reserveCapacity(16)
        roots.reserveCapacity(8)
    }

    deinit {
        if !isFinished {
            for (_, page) in dirty { page.deallocate() }
            database.writeTransactionEnded()
        }
    }

    package func ownPage(_ number: PageNumber) -> UnsafeRawPointer? {
        dirty[number].map { UnsafeRawPointer($0.pointer) }
    }

    package func page(_ number: PageNumber) -> UnsafeRawPointer {
        if let page = dirty[number] { return UnsafeRawPointer(page.pointer) }
        for commit in below {
            if let page = commit.pages[number] { return UnsafeRawPointer(page.pointer) }
        }
        return committedPages.pointer(number)
    }

    // MARK: Pages

    /// Allocates `count` contiguous pages: reused ones if any are free, else at the end of the file
    /// (skipping to the next map section if the run would straddle one).
    func allocate(pages count: UInt64) -> PageNumber {
        if let start = freeList.allocate(count: count, by: transaction) { return start }
        var start = pageLimit
        if !PageMap.isContiguous(page: start, count: count) {
            let next = (start / PageMap.pagesPerSection + 1) * PageMap.pagesPerSection
            freeList.giveBack(PageRun(start: start, count: next - start), by: transaction)
            start = next
        }
        pageLimit = start + count
        return start
    }

    /// A new, uninitialized page (or run) owned by this transaction.
    func newPage(pages count: Int = 1) -> (number: PageNumber, pointer: UnsafeMutableRawPointer) {
        positionChanges &+= 1
        let number = allocate(pages: UInt64(count))
        let page = DirtyPage.allocate(pages: count)
        dirty[number] = page
        return (number, page.pointer)
    }

    /// The page made writable: itself if this transaction already owns it, else a copy at a new
    /// number (the old number is freed). A wide table leaf is copied whole.
    ///
    /// Precondition: a table leaf was checked first (``PageSource/checkedPageOfTree(_:)``), so
    /// its span lies within the file.
    func writable(_ number: PageNumber) -> (number: PageNumber, pointer: UnsafeMutableRawPointer) {
        if let page = dirty[number] { return (number, page.pointer) }
        let source = page(number)
        let pages = Self.span(of: source)
        let copy = newPage(pages: pages)
        copy.pointer.copyMemory(from: source, byteCount: pages * PageLayout.pageSize)
        copy.pointer.setU64(PageLayout.transactionOffset, transaction)
        freed.append(FreedRun(run: PageRun(start: number, count: UInt64(pages)), createdBy: source.pageTransaction,
                              freedBy: transaction))
        return copy
    }

    /// The pages a tree page spans: a table leaf's 1, 2 or 4; 1 for any other.
    static func span(of base: UnsafeRawPointer) -> Int {
        base.pageKind == .cluster ? ClusterLeaf(base).pages : 1
    }

    /// Gives up pages this version no longer references: `count` pages from `number`, or, by
    /// default, the pages of the tree page there (``span(of:)``).
    func release(_ number: PageNumber, pages count: UInt64? = nil) {
        positionChanges &+= 1
        let count = count ?? UInt64(Self.span(of: page(number)))
        if let page = dirty.removeValue(forKey: number) {
            page.deallocate()  // never written: reusable at once
            freeList.giveBack(PageRun(start: number, count: count), by: transaction)
        } else {
            freed.append(FreedRun(run: PageRun(start: number, count: count), createdBy: page(number).pageTransaction,
                                  freedBy: transaction))
        }
    }

    // MARK: Trees

    /// Creates an empty tree and returns its id.
    package func createTree() throws -> TreeID {
        try checkActive()
        let existing = try lastKey(in: catalog) ?? 0
        let id = max(existing, roots.keys.max() ?? 0) + 1
        roots[id] = .some(.empty)
        return id
    }

    /// Creates an empty tree with a given id (a copy keeps its source's ids); throws if the id is
    /// taken.
    package func createTree(id: TreeID) throws {
        try checkActive()
        if let known = roots[id], known != nil { throw StorageError(.invalidInput, "Tree \(id) exists") }
        if roots[id] == nil, try withValue(in: catalog, forKey: id, { _ in true }) == true {
            throw StorageError(.invalidInput, "Tree \(id) exists")
        }
        roots[id] = .some(.empty)
    }

    /// Deletes a tree and frees all its pages.
    package func dropTree(_ id: TreeID) throws {
        pendingIndexEntries[id] = nil
        if rightEdge?.tree == id { rightEdge = nil }
        let root = try root(of: id)
        try releaseSubtree(root)
        roots[id] = .some(nil)
        changeLog.record(.drop, id, 0)
    }

    /// The ids of every tree, in order.
    package func treeIDs() throws -> [TreeID] {
        var ids = Set<TreeID>()
        try forEach(in: catalog) { key, _ in ids.insert(key); return true }
        for (id, root) in roots { if root == nil { ids.remove(id) } else { ids.insert(id) } }
        return ids.sorted()
    }

    /// The current root of a tree, with every entry added to it in this transaction (an index's
    /// buffered entries are inserted first); throws if there is no such tree.
    package func root(of id: TreeID) throws -> TreeRoot {
        if !pendingIndexEntries.isEmpty { try applyPendingIndexEntries(of: id) }
        return try storedRoot(of: id)
    }

    /// The root as last stored, without an index's buffered entries.
    func storedRoot(of id: TreeID) throws -> TreeRoot {
        if let known = roots[id] {
            guard let known else { throw StorageError(.invalidInput, "Tree \(id) was deleted") }
            return known
        }
        guard let root = try withValue(in: catalog, forKey: id, CatalogEntry.decode) else {
            throw StorageError(.invalidInput, "No tree with id \(id)")
        }
        return root
    }

    /// The number of entries in a tree. O(1).
    package func count(of id: TreeID) throws -> UInt64 { try root(of: id).count }

    /// Stores `value` under `key`, replacing any previous value. Returns true if the key is new.
    @discardableResult
    package func put(_ id: TreeID, key: UInt64, value: UnsafeRawBufferPointer) throws -> Bool {
        try checkActive()
        var root = try self.root(of: id)
        let inserted = try put(into: &root, key: key, value: value)
        roots[id] = .some(root)
        return inserted
    }

    /// Stores `value` under `key` (convenience over ``put(_:key:value:)-(_,_,UnsafeRawBufferPointer)``).
    @discardableResult
    package func put(_ id: TreeID, key: UInt64, value: some Collection<UInt8>) throws -> Bool {
        try value.withContiguousStorageIfAvailable { try put(id, key: key, value: UnsafeRawBufferPointer($0)) }
            ?? Array(value).withUnsafeBytes { try put(id, key: key, value: $0) }
    }

    /// Removes `key`. Returns true if it was present.
    @discardableResult
    package func remove(_ id: TreeID, key: UInt64) throws -> Bool {
        try checkActive()
        var root = try self.root(of: id)
        guard try remove(from: &root, key: key) else { return false }
        roots[id] = .some(root)
        return true
    }

    /// A copy of the value under `key`.
    package func value(_ id: TreeID, key: UInt64) throws -> [UInt8]? {
        try withValue(in: root(of: id), forKey: key) { Array($0) }
    }

    // MARK: Finishing

    func checkActive() throws {
        guard !isFinished else { throw StorageError(.wrongTransactionState, "The write transaction has already ended") }
    }

    /// Discards every change.
    package func abort() {
        guard !isFinished else { return }
        isFinished = true
        for (_, page) in dirty { page.deallocate() }
        dirty = PageTable()
        database.writeTransactionEnded()
    }

    /// Seals the transaction into a commit that later write transactions can build on at once.
    /// Nothing reaches the file until ``Database/flush()``; readers see it only after that.
    package func prepare() throws -> TransactionID {
        try checkActive()
        try database.checkVersionLimit()
        try applyPendingIndexEntries()
        // 1. Record changed tree roots in the catalog.
        for (id, root) in roots.sorted(by: { $0.key < $1.key }) {
            if let root {
                var entry = [UInt8](repeating: 0, count: CatalogEntry.size)
                CatalogEntry.encode(root, into: &entry)
                _ = try entry.withUnsafeBytes { try put(into: &catalog, key: id, value: $0) }
            } else {
                _ = try remove(from: &catalog, key: id)
            }
        }
        // 2. Replication: with a slot, the commit's change record, holding the pages it freed
        //    instead of the free list; and the pages of records every slot has confirmed, freed.
        try recordChanges()
        // 3. The free list: this transaction's changes appended to the stored chain (or the whole
        //    set written anew). The pages it frees are recorded first, so the chain holds them.
        let released = freed.map(\.run)
        freeList.record(freed)
        freed = []
        let (chain, chainFreed) = storeFreeList()
        // 4. Seal every page.
        for (_, page) in dirty {
            PageChecksum.seal(page.pointer, length: page.pages * PageLayout.pageSize)
        }
        let meta = MetaPage(
            transaction: transaction, durableBase: base.meta.durableBase, pageCount: pageLimit,
            catalog: catalog,
            freeList: chain.head,
            fileID: base.meta.fileID,
            slots: slotsRoot,
            changeRecords: changeRecordsRoot,
            retainedPages: retainedPages,
            recordedPages: recordedPages
        )
        let commit = PreparedCommit(
            tip: VersionTip(meta: meta, freeList: freeList, chain: chain), pages: dirty, freed: released + chainFreed)
        dirty = PageTable()
        isFinished = true
        try database.enqueue(commit, generation: generation)
        return transaction
    }

    /// Stores the free list of this version (see ``FreeListChain``): appends this transaction's
    /// changes to the chain, or writes the whole set as a new base once the deltas have outgrown
    /// it. Returns the chain and the chain pages it freed.
    private func storeFreeList() -> (FreeListChain, [PageRun]) {
        let old = base.chain
        guard !freeList.changes.isEmpty else { return (old, []) }  // nothing freed or taken
        let perPage = FreeListChain.entriesPerPage
        // A base is written when the deltas (with this commit's, and the page or two it takes)
        // would outgrow it.
        if old.needsNewBase(adding: freeList.changes.count + 2) {
            let oldPages = old.pages.map { PageRun(start: $0, count: 1) }
            freeList.record(oldPages.map { FreedRun(run: $0, createdBy: transaction, freedBy: transaction) })
            // Runs reusable now are stored settled; the others keep the versions that see them.
            var pages: [WritablePage] = []
            var entries = freeList.baseEntries
            while entries.count > pages.count * perPage {  // taking pages may split a free run
                for _ in 0..<((entries.count + perPage - 1) / perPage - pages.count) { pages.append(newPage()) }
                entries = freeList.baseEntries
            }
            for index in pages.indices {
                let slice = entries[min(index * perPage, entries.count)..<min((index + 1) * perPage, entries.count)]
                let next = index + 1 < pages.count ? ChainHead(page: pages[index + 1].number, transaction: transaction) : .none
                FreeListChain.encode(slice, isDelta: false, next: next, into: pages[index].pointer, transaction: transaction)
            }
            freeList.clearChanges()
            let chain = FreeListChain(
                pages: pages.map(\.number), head: pages.first.map { ChainHead(page: $0.number, transaction: transaction) } ?? .none,
                headIsDelta: false, headCount: min(entries.count, perPage), baseEntries: entries.count, deltaEntries: 0)
            return (chain, oldPages)
        }
        // A delta: the head delta page is copied if it has room (its old number is freed), and
        // new pages hold the rest; the oldest entries go nearest the older chain.
        var carried: [FreeListChange] = []
        var next = old.head
        var kept = old.pages[...]
        var chainFreed: [PageRun] = []
        if old.headIsDelta && old.headCount < perPage {
            let head = page(old.head.page)
            carried = (0..<head.pageCount16).map { FreeListChain.change(head, $0) }
            next = ChainHead(page: head.u64(PageLayout.headerSize), transaction: head.u64(PageLayout.headerSize + 8))
            kept = kept.dropFirst()
            chainFreed = [PageRun(start: old.head.page, count: 1)]
            freeList.record([FreedRun(run: chainFreed[0], createdBy: transaction, freedBy: transaction)])
        }
        var pages: [WritablePage] = []
        repeat { pages.append(newPage()) } while carried.count + freeList.changes.count > pages.count * perPage
        let entries = carried + freeList.changes
        var remaining = entries[...]
        var headCount = 0
        for index in pages.indices.reversed() {
            let slice = remaining.prefix(perPage)
            remaining = remaining.dropFirst(slice.count)
            let successor = index + 1 < pages.count ? ChainHead(page: pages[index + 1].number, transaction: transaction) : next
            FreeListChain.encode(slice, isDelta: true, next: successor, into: pages[index].pointer, transaction: transaction)
            headCount = slice.count
        }
        let chain = FreeListChain(
            pages: pages.map(\.number) + kept, head: ChainHead(page: pages[0].number, transaction: transaction),
            headIsDelta: true, headCount: headCount, baseEntries: old.baseEntries,
            deltaEntries: old.deltaEntries + freeList.changes.count)
        freeList.clearChanges()
        return (chain, chainFreed)
    }

    /// Prepares and flushes: returns once the commit is durable (or visible, without sync).
    package func commit() throws {
        _ = try prepare()
        try database.flush()
    }
}

/// A catalog value: a tree's root (page, transaction, count), 24 bytes.
enum CatalogEntry {
    static let size = 24

    static func encode(_ root: TreeRoot, into bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            base.setU64(0, root.page)
            base.setU64(8, root.transaction)
            base.setU64(16, root.count)
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> TreeRoot {
        guard bytes.count == size, let base = bytes.baseAddress else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: bad catalog entry")
        }
        return TreeRoot(page: base.u64(0), transaction: base.u64(8), count: base.u64(16))
    }
}
