import CRealmSync

// Published versions (see `LockFileLayout.publishedCounterOffset`): the writing process puts each
// version it makes durable into the lock file, and read-only processes attached beside it adopt
// the newest one when a reader begins. Only the process owning writing publishes (see
// `LockFile+Writing.swift`), under its database's state lock.
extension LockFile {
    /// Publishes `meta`, durable and stored in meta slot `slot`: after this, other processes'
    /// readers may begin at it. Returns the new publish counter. Precondition: only the process
    /// owning writing calls it, one call at a time (its database's state lock), after every page
    /// of the version is written to the file.
    ///
    /// `written` are the page runs the version's batch wrote, in an encrypted file (else empty):
    /// they go into the written-pages ring before the version is published, so a follower that
    /// adopts it forgets its decrypted copies of them first.
    ///
    /// - Complexity: 20 shared stores, plus 2 per written run.
    @discardableResult
    package func publish(_ meta: MetaPage, slot: Int, written: [PageRun] = []) -> UInt64 {
        guard hasMapping else { return 0 }
        if !written.isEmpty {
            let head = word(at: LockFileLayout.ringHeadOffset)
            for (index, run) in written.enumerated() {
                let entry = LockFileLayout.ringOffset + Int((head &+ UInt64(index)) % UInt64(LockFileLayout.ringCapacity)) * LockFileLayout.ringEntrySize
                setWord(run.start, at: entry)
                setWord(run.count, at: entry + 8)
            }
            setWord(head &+ UInt64(written.count), at: LockFileLayout.ringHeadOffset)
        }
        let counter = word(at: LockFileLayout.publishedCounterOffset)
        let buffer = Self.bufferOffset(counter &+ 1)
        let words = Self.words(of: meta, slot: slot)
        for (index, value) in words.enumerated() { setWord(value, at: buffer + 8 * index) }
        setWord(Self.checksum(words), at: buffer + 8 * words.count)
        setWord(counter &+ 1, at: LockFileLayout.publishedCounterOffset)
        signalCommit()
        return counter &+ 1
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

    /// The newest published version, for a writer that builds on it (a writer joining another at
    /// open, an owner adopting another process's commits): finding none whole means another
    /// program wrote the lock file, and the data file at `path` is refused.
    package func requirePublishedVersion(path: String?) throws -> (meta: MetaPage, slot: Int, counter: UInt64) {
        guard let published = publishedVersion(unless: nil) else {
            throw StorageError(.invalidDatabase, "The lock file's published version fails its checksum: the lock file is damaged", path: path)
        }
        return published
    }

    /// The written-pages ring's head now: where a follower starts reading it.
    package var ringHead: UInt64 { word(at: LockFileLayout.ringHeadOffset) }

    /// The page runs published since the ring's head was `seen`, and the head now; nil runs when
    /// the ring wrapped past what was unread (more than its capacity since, or overwritten while
    /// read): the caller then forgets every decrypted page. Load the publish counter first: the
    /// runs of every version published by then are below the head this returns.
    package func writtenRuns(since seen: UInt64) -> (runs: [PageRun]?, head: UInt64) {
        let head = ringHead
        let capacity = UInt64(LockFileLayout.ringCapacity)
        guard head &- seen <= capacity, head >= seen else { return (nil, head) }
        var runs: [PageRun] = []
        runs.reserveCapacity(Int(head - seen))
        var index = seen
        while index < head {
            let entry = LockFileLayout.ringOffset + Int(index % capacity) * LockFileLayout.ringEntrySize
            runs.append(PageRun(start: word(at: entry), count: word(at: entry + 8)))
            index += 1
        }
        // Overwritten meanwhile by a writer more than a ring ahead: not to be trusted.
        guard ringHead &- seen <= capacity else { return (nil, head) }
        return (runs, head)
    }

    /// The commit signal word now (0 when the lock file is not mapped): a watcher loads it
    /// *before* it adopts, then waits for it to move (``waitForSignal(changeFrom:timeoutNanoseconds:)``).
    /// Every publish stores its counter and then moves the signal, so a publish the adoption
    /// missed moves the word after this load and ends the wait — and a publish that cannot be
    /// adopted (a damaged buffer) does not end the next wait again, as waiting on the counter
    /// would: the watcher sleeps until something is published after it.
    package var commitSignal: UInt32 {
        guard let signal = sharedAddress(LockFileLayout.commitSignalOffset) else { return 0 }
        return realm_shared_load32(signal)
    }

    /// Waits until the commit signal differs from `seen` (a value of ``commitSignal``), or about
    /// `timeoutNanoseconds` passed, or this process detaches; whether the signal moved. Blocks the
    /// calling thread: a watcher's own (never a task's).
    package func waitForSignal(changeFrom seen: UInt32, timeoutNanoseconds: UInt64) -> Bool {
        guard isWaiting, let signal = sharedAddress(LockFileLayout.commitSignalOffset) else { return false }
        // The futex compares the word with `seen` atomically with going to sleep: a move between
        // the caller's load and this call returns at once.
        realm_shared_wait(signal, seen, timeoutNanoseconds)
        return realm_shared_load32(signal) != seen
    }

    /// Counts this process's watcher in the lock file while it waits for publishes: writers then
    /// wake it. Balanced by ``watcherStopped()``.
    package func watcherStarted() {
        whileAttached(LockFileLayout.watcherCountOffset) { count in
            localWatchers.withLock { $0 += 1 }
            _ = realm_shared_add32(count, 1)
        }
    }

    /// Balances ``watcherStarted()`` (nothing after detaching, which took this process's
    /// watchers out of the count).
    package func watcherStopped() {
        whileAttached(LockFileLayout.watcherCountOffset) { count in
            localWatchers.withLock { watchers in
                guard watchers > 0 else { return }
                watchers -= 1
                _ = realm_shared_sub32(count, 1)
            }
        }
    }

    /// After a publish: moves the signal word and, if another process watches, wakes the
    /// watchers. This process's own watchers are not woken for its own publish (each would wake,
    /// find nothing to adopt, and cost the committing thread a context switch: measured ~10 µs a
    /// commit on two cores); they wake for other processes' publishes, or at their time-out.
    private func signalCommit() {
        guard let signal = sharedAddress(LockFileLayout.commitSignalOffset),
              let watchers = sharedAddress(LockFileLayout.watcherCountOffset) else { return }
        _ = realm_shared_add32(signal, 1)
        if realm_shared_load32(watchers) > UInt32(clamping: localWatchers.withLock { $0 }) { realm_shared_wake_all(signal) }
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
