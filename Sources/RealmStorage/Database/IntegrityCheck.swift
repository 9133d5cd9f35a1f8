/// What ``Database/verify()`` found in a consistent database.
package struct VerificationReport: Equatable, Sendable {
    package var transaction: TransactionID
    package var pageCount: UInt64
    package var usedPages: UInt64
    package var freePages: UInt64
    /// Pages of older versions kept for replication slots (neither used by this version nor free).
    package var retainedPages: UInt64
    package var trees: Int
    package var entries: UInt64
    /// Pages in use by kind (an overflow run counts all its pages).
    package var pagesByKind: [PageKind: UInt64]
}

/// Walks trees, overflow runs and the free list, checking every page it reaches.
///
/// Two uses share one walker:
/// - *recovery* checks only pages written after the meta's durable base (the batch a crash may
///   have torn): checksum, kind, and that the page carries the transaction its parent expects,
///   which tells a real write from stale bytes left at a reused page number;
/// - *verify* checks every page, plus key order, subtree counts, and that each page of the file
///   is used exactly once or free exactly once (nothing leaked, nothing shared).
struct IntegrityCheck<Source: PageSource> {
    let source: Source
    /// Pages written by transactions at or below this are trusted (recovery); 0 checks all.
    let trustedUpTo: TransactionID
    /// Per page: 0 unseen, 1 seen. Empty in recovery mode.
    var seen: [UInt8]
    var problems: [String] = []
    var entries: UInt64 = 0
    var trees = 0
    var pagesByKind: [PageKind: UInt64] = [:]
    /// The trees the schema says hold tables, with each physical column's layout (nil for a
    /// removed property's column, whose old values stay as they were), when the caller knows the
    /// schema: their leaves must be table leaves whose columns have the layout's kinds, and every
    /// other tree's leaves value leaves. A tree of the wrong kind, or a column of another kind,
    /// is well-formed page by page, but a reader that trusts the schema reads the wrong bytes
    /// (a double read from a column of bools runs past its data). nil: either kind of leaf.
    var tableColumns: [TreeID: [ColumnSpec?]]?
    /// The columns of the table being walked, when ``tableColumns`` knows them.
    private var walkedColumns: [ColumnSpec?]?
    /// What each tree is, in words ("table 'Dog'"), added to the problems found in it so a
    /// message says what a damaged page belongs to; trees without a name are "tree N".
    var treeNames: [TreeID: String] = [:]
    /// Only these trees are walked (nil: all of them).
    var onlyTrees: Set<TreeID>?

    init(source: Source, trustedUpTo: TransactionID, accounting: Bool) {
        self.source = source
        self.trustedUpTo = trustedUpTo
        seen = accounting ? [UInt8](repeating: 0, count: Int(source.pageLimit)) : []
    }

    /// Recovery: verifies the pages the newest batch of `meta` wrote.
    static func verifyBatch(of meta: MetaPage, in source: Source) throws {
        var check = IntegrityCheck(source: source, trustedUpTo: meta.durableBase, accounting: false)
        check.walkCatalog(meta.catalog)
        check.walkReplication(meta)
        check.walkFreeList(meta)
        if let first = check.problems.first { throw StorageError(.invalidDatabase, first) }
    }

    /// Full check of a version; throws listing the first problems found. `tableColumns` and
    /// `treeNames`: see the properties.
    static func verifyAll(of meta: MetaPage, in source: Source, tableColumns: [TreeID: [ColumnSpec?]]? = nil,
                          treeNames: [TreeID: String] = [:]) throws -> VerificationReport {
        var check = IntegrityCheck(source: source, trustedUpTo: 0, accounting: true)
        check.tableColumns = tableColumns
        check.treeNames = treeNames
        check.mark(0, count: 2)
        check.walkCatalog(meta.catalog)
        let retained = check.walkReplication(meta)
        let free = check.walkFreeList(meta)
        let unaccounted = (Int(PageLayout.firstDataPage)..<check.seen.count).filter { check.seen[$0] == 0 }
        if !unaccounted.isEmpty {
            check.problems.append("\(unaccounted.count) pages are neither used, free nor retained for a replication slot (first: \(unaccounted[0]))")
        }
        if retained != meta.retainedPages {
            check.problems.append("the change records retain \(retained) pages but the header says \(meta.retainedPages)")
        }
        try Database.throwProblems(check.problems)
        return VerificationReport(
            transaction: meta.transaction, pageCount: meta.pageCount,
            usedPages: meta.pageCount - free - retained, freePages: free, retainedPages: retained, trees: check.trees, entries: check.entries,
            pagesByKind: check.pagesByKind)
    }

    /// Checks every page a version reaches (checksum, kind, transaction, order, counts), without
    /// accounting for the file's other pages: how a retained version (which shares most pages
    /// with newer ones) is checked. Throws listing the first problems found.
    static func verifyTrees(of meta: MetaPage, in source: Source) throws {
        var check = IntegrityCheck(source: source, trustedUpTo: 0, accounting: false)
        check.walkCatalog(meta.catalog)
        if !check.problems.isEmpty {
            let shown = check.problems.prefix(5).joined(separator: "; ")
            throw StorageError(.invalidDatabase, "Version \(meta.transaction) failed its check (\(check.problems.count) problems): \(shown)")
        }
    }

    /// Checks every page of the trees `trees` (checksum, kind, transaction, order, counts), and
    /// the catalog pages on the way to them; throws naming the first problems found and the
    /// trees they are in. What a reader checks before it reads some classes only.
    static func verifyTrees(_ trees: Set<TreeID>, of meta: MetaPage, in source: Source, tableColumns: [TreeID: [ColumnSpec?]]?,
                            treeNames: [TreeID: String]) throws {
        var check = IntegrityCheck(source: source, trustedUpTo: 0, accounting: false)
        check.tableColumns = tableColumns
        check.treeNames = treeNames
        check.onlyTrees = trees
        check.walkCatalog(meta.catalog)
        try Database.throwProblems(check.problems)
    }

    private var accounting: Bool { !seen.isEmpty }

    /// Whether the counts a tree records are compared with what it holds: whenever whole trees
    /// are walked (not in recovery, which skips the trusted pages). A page copied over another
    /// by the same transaction passes its checksum and transaction check; only the counts (and
    /// key ranges) of the pages above it tell.
    private var checksCounts: Bool { trustedUpTo == 0 }

    /// `a + b` for counts read from the file, which may be anything: an overflow is a problem
    /// (no real tree holds 2^64 entries), never a trap.
    private mutating func sum(_ a: UInt64, _ b: UInt64, at page: PageNumber) -> UInt64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        if overflow { problems.append("page \(page) records more entries than can exist") }
        return overflow ? .max : total
    }

    private mutating func mark(_ page: PageNumber, count: UInt64 = 1) {
        guard accounting else { return }
        for number in page..<(page + count) where number < UInt64(seen.count) {
            if seen[Int(number)] != 0 { problems.append("page \(number) is used twice") }
            seen[Int(number)] = 1
        }
    }

    /// Whether the page (or run of `pages`) a reference names is to be read and checked: every
    /// page but, in recovery, those of transactions up to ``trustedUpTo``.
    ///
    /// A reference no writer produces is a problem either way, found without reading the page:
    /// transaction 0 (which writes no page) — a full check used to skip such a subtree as
    /// "trusted", so a tree root naming a page far outside the file with transaction 0 passed
    /// and the first read of the table trapped (a fuzzed log record) — and, for a trusted page,
    /// one outside the file (recovery trusts an old page's contents, not every reference to it).
    private mutating func mustRead(_ page: PageNumber, _ transaction: TransactionID, pages: UInt64 = 1) -> Bool {
        guard transaction != 0 else {
            problems.append("page \(page) is referenced as written by transaction 0, which writes no page")
            return false
        }
        if transaction > trustedUpTo { return true }
        if page < PageLayout.firstDataPage || pages > source.pageLimit || page > source.pageLimit - pages {
            problems.append("page \(page) is outside the file")
        }
        return false
    }

    /// Checks bounds, kind, transaction and checksum of a page or run; nil if it is bad. A table
    /// leaf's run length comes from its header (`pages` is then ignored).
    mutating func checked(_ page: PageNumber, _ transaction: TransactionID, _ kinds: Set<PageKind>,
                                  pages: UInt64 = 1) -> UnsafeRawPointer? {
        guard page >= PageLayout.firstDataPage, pages > 0, pages <= source.pageLimit,
              page <= source.pageLimit - pages else {
            problems.append("page \(page) is outside the file")
            return nil
        }
        let base = source.page(page)
        guard let kind = base.pageKind, kinds.contains(kind) else {
            problems.append("page \(page) has kind \(base.u8(PageLayout.kindOffset)), expected \(kinds.map { "\($0)" }.sorted())")
            return nil
        }
        var pages = pages
        if kind == .cluster {
            guard base.u8(PageLayout.flagsOffset) <= ClusterLeaf.maximumSpanShift, source.spanFits(page, base) else {
                problems.append("table leaf page \(page) claims pages past the file or a map section")
                return nil
            }
            pages = UInt64(ClusterLeaf(base).pages)
        }
        guard base.pageTransaction == transaction else {
            problems.append("page \(page) was written by transaction \(base.pageTransaction), expected \(transaction)")
            return nil
        }
        guard PageChecksum.isValid(base, length: Int(pages) * PageLayout.pageSize) else {
            problems.append("page \(page) fails its checksum")
            return nil
        }
        mark(page, count: pages)
        pagesByKind[kind, default: 0] += pages
        return base
    }

    /// Walks the replication slots and change records (value trees), and marks the pages each
    /// record retains — pages of older versions, which may hold anything a version held, so only
    /// their place is checked. Returns the number of retained pages.
    @discardableResult
    private mutating func walkReplication(_ meta: MetaPage) -> UInt64 {
        walk(meta.slots, lower: 0, upper: nil, depth: 0) { check, key, value in
            if (try? ReplicationSlot.decode(number: key, value)) == nil { check.problems.append("replication slot \(key) is malformed") }
        }
        var retained: UInt64 = 0
        walk(meta.changeRecords, lower: 0, upper: nil, depth: 0) { check, key, value in
            guard let record = try? ChangeRecord.decode(value, transaction: key) else {
                check.problems.append("the change record of transaction \(key) is malformed")
                return
            }
            guard check.accounting else { return }
            for run in record.retained {
                guard run.run.start >= PageLayout.firstDataPage, run.run.count <= check.source.pageLimit,
                      run.run.start <= check.source.pageLimit - run.run.count else {
                    check.problems.append("the change record of transaction \(key) retains pages outside the file")
                    continue
                }
                check.mark(run.run.start, count: run.run.count)
                retained += run.run.count
            }
        }
        return retained
    }

    private mutating func walkCatalog(_ root: TreeRoot) {
        let firstProblem = problems.count
        var named = Set<Int>()  // problems found inside a tree, already naming it
        defer {
            for index in firstProblem..<problems.count where !named.contains(index) { problems[index] += " (the catalog)" }
        }
        walk(root, lower: 0, upper: nil, depth: 0) { check, key, value in
            guard value.count == CatalogEntry.size, let tree = try? CatalogEntry.decode(value) else {
                check.problems.append("catalog entry \(key) is malformed")
                return
            }
            if let only = check.onlyTrees, !only.contains(key) { return }
            check.trees += 1
            let firstProblem = check.problems.count
            defer {
                let owner = check.treeNames[key] ?? "tree \(key)"
                for index in firstProblem..<check.problems.count {
                    check.problems[index] += " (\(owner))"
                    named.insert(index)
                }
            }
            let isTable = check.tableColumns.map { $0[key] != nil }
            check.walkedColumns = check.tableColumns?[key]
            defer { check.walkedColumns = nil }
            let isIndex = isTable != true && !tree.isEmpty && tree.page < check.source.pageLimit
                && [.indexLeaf, .indexInner].contains(check.source.page(tree.page).pageKind)
            let leaves: Set<PageKind> = isTable.map { $0 ? [.cluster] : [.leaf] } ?? [.leaf, .cluster]
            let counted = isIndex
                ? check.walkIndex(tree.page, tree.transaction, lower: nil, upper: nil, depth: 0)
                : check.walk(tree, lower: 0, upper: nil, depth: 0, leaves: leaves) { _, _, _ in }
            if check.checksCounts && counted != tree.count {
                check.problems.append("tree \(key) (root page \(tree.page)) records \(tree.count) entries but holds \(counted)")
            }
            check.entries = check.sum(check.entries, counted, at: tree.page)
        }
    }

    /// Walks a tree, returning the number of entries below (in recovery mode, only of new pages).
    @discardableResult
    private mutating func walk(_ root: TreeRoot, lower: UInt64, upper: UInt64?, depth: Int, leaves: Set<PageKind> = [.leaf],
                               leafValue: (inout IntegrityCheck, UInt64, UnsafeRawBufferPointer) -> Void) -> UInt64 {
        guard !root.isEmpty else { return 0 }
        return walkNode(root.page, root.transaction, lower: lower, upper: upper, depth: depth, leaves: leaves, leafValue: leafValue)
    }

    /// `leaves`: the kinds of leaf the tree may have.
    private mutating func walkNode(_ page: PageNumber, _ transaction: TransactionID, lower: UInt64, upper: UInt64?, depth: Int,
                                   leaves: Set<PageKind>, leafValue: (inout IntegrityCheck, UInt64, UnsafeRawBufferPointer) -> Void) -> UInt64 {
        guard mustRead(page, transaction) else { return 0 }
        guard depth < maximumTreeDepth else {
            problems.append("tree deeper than \(maximumTreeDepth) at page \(page)")
            return 0
        }
        guard let base = checked(page, transaction, leaves.union([.inner])) else { return 0 }
        if base.pageKind == .cluster {
            let leaf = ClusterLeaf(base)
            guard leaf.isWellFormed(deep: true) else {
                problems.append("table leaf page \(page) is malformed")
                return 0
            }
            for row in 0..<leaf.count where leaf.key(row) < lower || upper.map({ leaf.key(row) >= $0 }) == true {
                problems.append("table leaf page \(page) holds key \(leaf.key(row)) outside its range")
            }
            if let columns = walkedColumns, let mismatch = leaf.columnMismatch(columns) {
                problems.append("table leaf page \(page) \(mismatch)")
            }
            leaf.forEachOverflow { checkOverflow($0, owner: page) }
            return UInt64(leaf.count)
        }
        if base.pageKind == .leaf {
            let leaf = ValueLeaf(base)
            guard leaf.isWellFormed() else {
                problems.append("leaf \(page) is malformed")
                return 0
            }
            for index in 0..<leaf.count {
                let key = leaf.key(index)
                if key < lower || upper.map({ key >= $0 }) == true {
                    problems.append("leaf \(page) holds key \(key) outside its range")
                }
                if leaf.isOverflow(index) {
                    let run = leaf.overflow(index)
                    if let bytes = checkOverflow(run, owner: page) { leafValue(&self, key, bytes) }
                } else {
                    leafValue(&self, key, leaf.inlineValue(index))
                }
            }
            return UInt64(leaf.count)
        }
        let node = InnerNode(base)
        guard node.count >= 1, node.count <= InnerNode.capacity else {
            problems.append("inner page \(page) has \(node.count) entries")
            return 0
        }
        var total: UInt64 = 0
        for index in 0..<node.count {
            let childLower = index == 0 ? lower : node.key(index)
            let childUpper = index + 1 < node.count ? node.key(index + 1) : upper
            // Entry 0's key acts as minus infinity and is never updated (removing an emptied
            // first child promotes the next entry with its key, and later keys below it go to
            // the new first child): entry 1 is bounded by `lower`, not by entry 0's key.
            if index > 0 && ((index > 1 && node.key(index) <= node.key(index - 1)) || node.key(index) < lower) {
                problems.append("inner page \(page) has keys out of order")
            }
            let counted = walkNode(node.child(index), node.childTransaction(index), lower: childLower,
                                   upper: childUpper, depth: depth + 1, leaves: leaves, leafValue: leafValue)
            if checksCounts && counted != node.childCount(index) {
                problems.append("inner page \(page) records \(node.childCount(index)) entries under child \(index) but it holds \(counted)")
            }
            total = sum(total, node.childCount(index), at: page)
        }
        return total
    }

    /// Walks an index tree; keys must lie in `[lower, upper)` and ascend strictly.
    private mutating func walkIndex(_ page: PageNumber, _ transaction: TransactionID,
                                    lower: [UInt8]?, upper: [UInt8]?, depth: Int) -> UInt64 {
        guard mustRead(page, transaction) else { return 0 }
        guard depth < maximumTreeDepth else {
            problems.append("index deeper than \(maximumTreeDepth) at page \(page)")
            return 0
        }
        guard let base = checked(page, transaction, [.indexLeaf, .indexInner]) else { return 0 }
        let node = IndexPage(base)
        guard node.isWellFormedDeep, !node.isInner || node.count >= 1 else {
            problems.append("index page \(page) is malformed")
            return 0
        }
        func inRange(_ key: UnsafeRawBufferPointer) -> Bool {
            lower.map { bound in bound.withUnsafeBytes { IndexPage.compare(key, $0) >= 0 } } ?? true
                && upper.map { bound in bound.withUnsafeBytes { IndexPage.compare(key, $0) < 0 } } ?? true
        }
        var total: UInt64 = 0
        for index in 0..<node.count {
            // In an inner page, entry 0's key acts as minus infinity (see `walkNode`).
            if index > (node.isInner ? 1 : 0) && IndexPage.compare(node.key(index - 1), node.key(index)) >= 0 {
                problems.append("index page \(page) has keys out of order")
            }
            if !node.isInner {
                if !inRange(node.key(index)) { problems.append("index page \(page) holds a key outside its range") }
                total += 1
                continue
            }
            if index > 0 && !inRange(node.key(index)) { problems.append("index page \(page) has a separator outside its range") }
            let childLower = index == 0 ? lower : Array(node.key(index))
            let childUpper = index + 1 < node.count ? Array(node.key(index + 1)) : upper
            let counted = walkIndex(node.child(index), node.childTransaction(index), lower: childLower,
                                    upper: childUpper, depth: depth + 1)
            if checksCounts && counted != node.childCount(index) {
                problems.append("index page \(page) records \(node.childCount(index)) keys under child \(index) but it holds \(counted)")
            }
            total = sum(total, node.childCount(index), at: page)
        }
        return node.isInner ? total : UInt64(node.count)
    }

    /// Checks an overflow run a leaf refers to; returns its bytes when it was checked and is good.
    @discardableResult
    mutating func checkOverflow(_ run: OverflowReference, owner page: PageNumber) -> UnsafeRawBufferPointer? {
        guard run.length <= UInt64(StorageLimits.maximumValueLength) else {
            problems.append("leaf \(page) refers to an overflow value of \(run.length) bytes")
            return nil
        }
        let pages = OverflowRun.pages(forLength: Int(run.length))
        guard mustRead(run.page, run.transaction, pages: pages) else { return nil }
        guard let base = checked(run.page, run.transaction, [.overflow], pages: pages) else { return nil }
        guard UInt64(base.u32(PageLayout.auxOffset)) == pages, base.u64(24) == run.length else {
            problems.append("overflow run \(run.page) does not match its reference")
            return nil
        }
        return UnsafeRawBufferPointer(start: base + OverflowRun.dataOffset, count: Int(run.length))
    }

    /// Walks the free-list chain and marks its runs, reusable or still seen by some version;
    /// returns the number of free pages. Decoding checks each entry's transactions (see
    /// ``FreeListChain``): a free's versions end at or before the version checked.
    @discardableResult
    private mutating func walkFreeList(_ meta: MetaPage) -> UInt64 {
        let head = meta.freeList
        var chainPages = 0
        var current = head
        while current.page != 0 {
            guard chainPages < Int(source.pageLimit) else {
                problems.append("the free list has a cycle")
                return 0
            }
            // New pages are only ever put at the head: the first trusted page ends the new ones.
            guard mustRead(current.page, current.transaction) else { break }
            guard let base = checked(current.page, current.transaction, [.freeList]) else { return 0 }
            chainPages += 1
            current = ChainHead(page: base.u64(PageLayout.headerSize), transaction: base.u64(PageLayout.headerSize + 8))
        }
        guard accounting else { return 0 }
        do {
            let (list, _) = try FreeListChain.decode(head: head, version: meta.transaction, pageCount: source.pageLimit,
                                                     page: source.page)
            for run in list.allRuns { mark(run.start, count: run.count) }
            return list.pageCount
        } catch let error as StorageError {
            problems.append(error.message)
        } catch {
            problems.append("\(error)")
        }
        return 0
    }
}

extension Database {
    /// Checks the whole newest version: every page's checksum and transaction, tree order and
    /// counts, overflow runs, and that every page is used or free exactly once.
    ///
    /// A layer that knows the schema adds two checks, both given the version checked:
    /// - `tableColumns` reads from it the trees that hold tables, with their columns' layouts
    ///   (throwing if it cannot): each must be a tree of table leaves whose columns have those
    ///   kinds, and every other tree one of value leaves or an index;
    /// - `contents`, run only once every page passed (so its reads meet no damage), checks what
    ///   the pages hold — that links name objects that exist — and returns its problems in words.
    ///
    /// `treeNames` says what the trees are ("table 'Dog'") in the messages.
    package func verify(treeNames: [TreeID: String] = [:],
                        tableColumns: ((ReadTransaction) throws -> [TreeID: [ColumnSpec?]])? = nil,
                        contents: ((ReadTransaction) throws -> [String])? = nil) throws -> VerificationReport {
        let reader = try beginRead()
        let report = try IntegrityCheck.verifyAll(of: reader.meta, in: reader, tableColumns: tableColumns?(reader), treeNames: treeNames)
        try Self.throwProblems(contents?(reader) ?? [])
        return report
    }

    /// Throws the problems a check found (none: returns), counting them and naming the first five.
    package static func throwProblems(_ problems: [String]) throws {
        guard !problems.isEmpty else { return }
        let shown = problems.prefix(5).joined(separator: "; ")
        throw StorageError(.invalidDatabase, "Integrity check failed (\(problems.count) problem\(problems.count == 1 ? "" : "s")): \(shown)")
    }

    /// Checks every page of the trees `trees` at `reader`'s version (and the catalog pages that
    /// lead to them), without reading the rest of the file; throws naming the first problems.
    package static func verify(_ trees: Set<TreeID>, at reader: ReadTransaction, tableColumns: [TreeID: [ColumnSpec?]]? = nil,
                               treeNames: [TreeID: String] = [:]) throws {
        try IntegrityCheck.verifyTrees(trees, of: reader.meta, in: reader, tableColumns: tableColumns, treeNames: treeNames)
    }
}
