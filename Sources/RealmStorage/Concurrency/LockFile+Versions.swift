import CRealmSync

// Published versions (see `LockFileLayout.publishedCounterOffset`): the writing process puts each
// version it makes durable into the lock file, and read-only processes attached beside it adopt
// the newest one when a reader begins. Only the writing process publishes (one writing process
// per file until the several-writers step), under its database's state lock.
extension LockFile {
    /// Publishes `meta`, durable and stored in meta slot `slot`: after this, other processes'
    /// readers may begin at it. Precondition: only the writing process calls it, one call at a
    /// time (its database's state lock), after every page of the version is written to the file.
    ///
    /// - Complexity: 20 shared stores.
    package func publish(_ meta: MetaPage, slot: Int) {
        guard hasMapping else { return }
        let counter = word(at: LockFileLayout.publishedCounterOffset)
        let buffer = Self.bufferOffset(counter &+ 1)
        let words = Self.words(of: meta, slot: slot)
        for (index, value) in words.enumerated() { setWord(value, at: buffer + 8 * index) }
        setWord(Self.checksum(words), at: buffer + 8 * words.count)
        setWord(counter &+ 1, at: LockFileLayout.publishedCounterOffset)
    }

    /// The newest published version and its meta slot, if one was published and it is not the one
    /// counted `seen` (the counter it was read at: pass it back to skip a version already
    /// adopted). Nil also when none was ever published.
    ///
    /// - Complexity: one shared load when nothing changed.
    package func publishedVersion(unless seen: UInt64?) -> (meta: MetaPage, slot: Int, counter: UInt64)? {
        guard hasMapping else { return nil }
        while true {
            let counter = word(at: LockFileLayout.publishedCounterOffset)
            guard counter != 0, counter != seen else { return nil }
            let buffer = Self.bufferOffset(counter)
            let words = (0..<(LockFileLayout.publishedWords - 1)).map { word(at: buffer + 8 * $0) }
            let stored = word(at: buffer + 8 * words.count)
            // Published again while copied (the writer reuses a buffer every second publish):
            // copy the newer one.
            guard word(at: LockFileLayout.publishedCounterOffset) == counter else { continue }
            // A whole buffer with a bad checksum is not something the publisher writes: another
            // program wrote the lock file. Adopting nothing keeps this process at its version.
            guard Self.checksum(words) == stored else { return nil }
            return (Self.meta(from: words), Int(words[17] & 1), counter)
        }
    }

    private static func bufferOffset(_ counter: UInt64) -> Int {
        LockFileLayout.publishedBuffersOffset + Int(counter & 1) * LockFileLayout.publishedBufferSize
    }

    private static func words(of meta: MetaPage, slot: Int) -> [UInt64] {
        [meta.transaction, meta.durableBase, meta.pageCount,
         meta.catalog.page, meta.catalog.transaction, meta.catalog.count,
         meta.freeList.page, meta.freeList.transaction, meta.fileID,
         meta.slots.page, meta.slots.transaction, meta.slots.count,
         meta.changeRecords.page, meta.changeRecords.transaction, meta.changeRecords.count,
         meta.retainedPages, meta.recordedPages, UInt64(slot)]
    }

    private static func meta(from words: [UInt64]) -> MetaPage {
        var meta = MetaPage(transaction: words[0], durableBase: words[1], pageCount: words[2],
                            catalog: TreeRoot(page: words[3], transaction: words[4], count: words[5]),
                            freeList: ChainHead(page: words[6], transaction: words[7]), fileID: words[8])
        meta.slots = TreeRoot(page: words[9], transaction: words[10], count: words[11])
        meta.changeRecords = TreeRoot(page: words[12], transaction: words[13], count: words[14])
        meta.retainedPages = words[15]
        meta.recordedPages = words[16]
        return meta
    }

    /// The page checksum's function over the words (it skips its input's first 8 bytes, where a
    /// page keeps its checksum: a zero word stands there).
    private static func checksum(_ words: [UInt64]) -> UInt64 {
        ([0] + words).withUnsafeBytes { PageChecksum.compute($0.baseAddress!, length: $0.count) }
    }
}
