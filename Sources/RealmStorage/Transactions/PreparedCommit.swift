/// A page (or overflow run) written by a transaction and not yet in the file.
package struct DirtyPage {
    package let pointer: UnsafeMutableRawPointer
    /// 1 for a page, the run length for an overflow run.
    package let pages: Int

    static func allocate(pages: Int) -> DirtyPage {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: pages * PageLayout.pageSize, alignment: PageLayout.pageSize)
        return DirtyPage(pointer: pointer, pages: pages)
    }

    func deallocate() { pointer.deallocate() }
}

/// The state a write transaction starts from: the newest version (committed or prepared), its
/// free list and how that list is stored (which the next commit extends or replaces).
package struct VersionTip: Sendable {
    package var meta: MetaPage
    package var freeList: FreeList
    var chain: FreeListChain
}

/// A transaction that has been sealed but whose pages may not be in the file yet.
///
/// `prepare()` turns a write transaction into one of these; `flush()` writes a batch of them with
/// one sync. Until then, write transactions built on top read their pages from here.
///
/// `@unchecked Sendable`: immutable after init (the page buffers are never written again), and the
/// buffers are freed only in `deinit`, when no transaction can still read them.
package final class PreparedCommit: @unchecked Sendable {
    package let tip: VersionTip
    let pages: PageTable
    /// The pages this commit stopped using (older copies of what it rewrote, the previous
    /// free-list chain). When an earlier commit of the same flush wrote one of them, that copy
    /// belongs to a version no reader will ever see, and the flush skips it.
    let freed: [PageRun]

    init(tip: VersionTip, pages: PageTable, freed: [PageRun]) {
        self.tip = tip
        self.pages = pages
        self.freed = freed
    }

    package var transaction: TransactionID { tip.meta.transaction }

    deinit {
        for (_, page) in pages { page.deallocate() }
    }
}
