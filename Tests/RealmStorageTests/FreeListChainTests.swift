import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// The stored free list (`FreeListChain`): its entries keep, for every run not yet reusable by
/// every reader, the versions that see it, so a writer that did not store the list (another
/// process, later) rebuilds the same `FreeList` from the file alone; and decoding replays and
/// checks the chain.
@Suite struct FreeListChainTests {
    static func run(_ start: PageNumber, _ count: UInt64 = 1) -> PageRun { PageRun(start: start, count: count) }

    /// Chain pages in memory at page numbers 100, 101, …, of a file of 200 pages.
    final class Pages {
        static let first: PageNumber = 100
        let memory: UnsafeMutableRawPointer
        let count: Int

        init(count: Int) {
            self.count = count
            memory = .allocate(byteCount: count * PageLayout.pageSize, alignment: PageLayout.pageSize)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: count * PageLayout.pageSize)
        }

        deinit { memory.deallocate() }

        func pointer(_ number: PageNumber) -> UnsafeMutableRawPointer {
            memory + Int(number - Self.first) * PageLayout.pageSize
        }

        func page(_ number: PageNumber) -> UnsafeRawPointer { UnsafeRawPointer(pointer(number)) }

        /// Writes `pages` (head first; each a delta or base page, its entries and transaction)
        /// as one chain starting at page 100, and returns its head.
        @discardableResult
        func write(_ pages: [(isDelta: Bool, entries: [FreeListChange], transaction: TransactionID)]) -> ChainHead {
            for (index, page) in pages.enumerated() {
                let next = index + 1 < pages.count
                    ? ChainHead(page: Self.first + PageNumber(index + 1), transaction: pages[index + 1].transaction) : .none
                FreeListChain.encode(page.entries[...], isDelta: page.isDelta, next: next,
                                     into: pointer(Self.first + PageNumber(index)), transaction: page.transaction)
            }
            return ChainHead(page: Self.first, transaction: pages[0].transaction)
        }

        func decode(_ head: ChainHead, version: TransactionID) throws -> (FreeList, FreeListChain) {
            try FreeListChain.decode(head: head, version: version, pageCount: 200, page: page)
        }
    }

    static func freed(_ start: PageNumber, _ count: UInt64 = 1, _ createdBy: TransactionID, _ freedBy: TransactionID) -> FreeListChange {
        .freed(FreedRun(run: run(start, count), createdBy: createdBy, freedBy: freedBy))
    }

    /// A list with a pinned run, a run awaiting durability and reusable runs is stored as a base,
    /// then a commit's changes as a delta; decoding gives the unsettled runs their versions back,
    /// and `release` with the same pins makes the same runs reusable as the writer's own list.
    /// A pin in C..<F keeps the run out of `reusable`; pins outside it (below C, at F) do not.
    @Test func unsettledRunsKeepTheirVersionsThroughABaseAndADelta() throws {
        var list = FreeList()
        list.record([FreedRun(run: Self.run(10), createdBy: 3, freedBy: 8),    // seen by 3..<8
                     FreedRun(run: Self.run(20), createdBy: 6, freedBy: 8),    // by 6..<8
                     FreedRun(run: Self.run(30, 2), createdBy: 8, freedBy: 9)])  // by 8
        list.release(pins: [5], durable: 8)
        #expect(list.reusable == [Self.run(20)], "10 waits for pin 5, 30 for durability")
        list.clearChanges()
        let base = list.baseEntries
        #expect(base == [Self.freed(10, 1, 3, 8), .settled(Self.run(20)), Self.freed(30, 2, 8, 9)])

        // Transaction 10: frees 40, takes 20 (the reusable page), gives back 50.
        list.record([FreedRun(run: Self.run(40), createdBy: 7, freedBy: 10)])
        #expect(list.allocate(count: 1, by: 10) == 20)
        list.giveBack(Self.run(50), by: 10)
        #expect(list.changes == [Self.freed(40, 1, 7, 10), .taken(Self.run(20), by: 10), Self.freed(50, 1, 10, 10)])

        let pages = Pages(count: 2)
        let head = pages.write([(true, list.changes, 10), (false, base, 9)])
        let (decoded, chain) = try pages.decode(head, version: 10)
        #expect(chain.pages == [100, 101] && chain.headIsDelta && chain.baseEntries == 3 && chain.deltaEntries == 3)
        #expect(decoded.reusable.isEmpty, "no run was settled but 20, which was taken")
        #expect(decoded.awaitingDurability == [
            FreedRun(run: Self.run(10), createdBy: 3, freedBy: 8), FreedRun(run: Self.run(30, 2), createdBy: 8, freedBy: 9),
            FreedRun(run: Self.run(40), createdBy: 7, freedBy: 10), FreedRun(run: Self.run(50), createdBy: 10, freedBy: 10),
        ])
        #expect(decoded.pageCount == list.pageCount)

        // The same pins give the same reusable runs as the writer's list.
        var writer = list
        writer.release(pins: [5], durable: 10)
        var reader = decoded
        reader.release(pins: [5], durable: 10)
        #expect(reader.reusable == writer.reusable)
        #expect(reader.reusable == [Self.run(30, 2), Self.run(40), Self.run(50)], "10 is seen by the pinned version 5")
        #expect(reader.release(pins: [3], durable: 10).isEmpty, "version 3 sees page 10 too")
        #expect(reader.release(pins: [], durable: 10) == [Self.run(10)], "released with its pin")

        // createdBy and freedBy both matter: a pin below C or at F does not hold the page.
        for pin: TransactionID in [2, 8] {
            var other = decoded
            other.release(pins: [pin], durable: 10)
            #expect(other.reusable.contains(Self.run(10)), "pin \(pin) does not see page 10")
        }
        // Not durable yet: a run waits for its freeing transaction, whatever the pins.
        var early = decoded
        early.release(pins: [], durable: 8)
        #expect(early.reusable == [Self.run(10)])
    }

    /// Replaying deltas: a run taken in part keeps the versions of the rest; a page freed again
    /// takes the versions of its newest free; a page taken and not freed again is not free.
    @Test func theNewestFreeOfAPageGivesItsVersions() throws {
        let pages = Pages(count: 3)
        let head = pages.write([
            (true, [Self.freed(51, 1, 6, 7), Self.freed(10, 1, 6, 7)], 7),
            (true, [.taken(Self.run(10, 2), by: 6), .taken(Self.run(51), by: 6), Self.freed(60, 1, 4, 6)], 6),
            (false, [.settled(Self.run(10, 5)), Self.freed(50, 4, 2, 5)], 5),
        ])
        let (list, _) = try pages.decode(head, version: 7)
        #expect(list.reusable == [Self.run(12, 3)])
        #expect(list.awaitingDurability == [
            FreedRun(run: Self.run(50), createdBy: 2, freedBy: 5), FreedRun(run: Self.run(52, 2), createdBy: 2, freedBy: 5),
            FreedRun(run: Self.run(60), createdBy: 4, freedBy: 6),
            FreedRun(run: Self.run(10), createdBy: 6, freedBy: 7), FreedRun(run: Self.run(51), createdBy: 6, freedBy: 7),
        ])
        var released = list
        released.release(pins: [3, 6], durable: 7)
        #expect(released.reusable == [Self.run(12, 3), Self.run(60)], "3 sees 50-53; 6 sees 10 and 51")
    }

    /// The base and delta above replay to the same set; a delta that takes a page that is not
    /// free, or frees one twice, is damage, never a trap.
    @Test func aChainReplaysItsDeltasAndRejectsImpossibleChanges() throws {
        let pages = Pages(count: 3)
        func write(base: [FreeListChange], older: [FreeListChange], newer: [FreeListChange]) -> ChainHead {
            pages.write([(true, newer, 7), (true, older, 6), (false, base, 5)])
        }
        var head = write(base: [.settled(Self.run(10, 5)), .settled(Self.run(50, 2))],
                         older: [.taken(Self.run(10, 2), by: 6), Self.freed(60, 1, 2, 6)],
                         newer: [Self.freed(10, 1, 7, 7), .taken(Self.run(50, 2), by: 7)])
        let (list, chain) = try pages.decode(head, version: 7)
        #expect(list.allRuns == [Self.run(10, 1), Self.run(12, 3), Self.run(60, 1)])
        #expect(chain.pages == [100, 101, 102] && chain.headIsDelta && chain.baseEntries == 2 && chain.deltaEntries == 4)

        head = write(base: [.settled(Self.run(10, 5))], older: [.taken(Self.run(20), by: 6)], newer: [])
        #expect(throws: StorageError.self) { try pages.decode(head, version: 7) }
        head = write(base: [.settled(Self.run(10, 5))], older: [Self.freed(12, 1, 2, 6)], newer: [])
        #expect(throws: StorageError.self) { try pages.decode(head, version: 7) }
    }

    /// Entries whose transactions no writer stores are damage (`IntegrityCheck` and opening
    /// decode the chain): each variant of a valid chain below is refused.
    @Test(arguments: [
        "valid", "base: created after freed", "base: freed after its page", "base: half settled", "base: a take",
        "delta: settled", "delta: not after the base", "delta: out of order", "delta: a take with createdBy",
        "delta: after its page", "delta: created by 0", "chain: page after the version",
    ])
    func entriesWithImpossibleTransactionsAreRefused(variant: String) throws {
        var base: [FreeListChange] = [.settled(Self.run(10, 2)), Self.freed(20, 1, 3, 5)]
        var older: [FreeListChange] = [Self.freed(30, 1, 4, 6), .taken(Self.run(10), by: 6)]
        var newer: [FreeListChange] = [Self.freed(40, 1, 5, 7)]
        var version: TransactionID = 7
        switch variant {
        case "valid": break
        case "base: created after freed": base[1] = Self.freed(20, 1, 5, 4)
        case "base: freed after its page": base[1] = Self.freed(20, 1, 3, 6)
        case "base: half settled": base[1] = Self.freed(20, 1, 0, 5)
        case "base: a take": base[1] = .taken(Self.run(20), by: 5)
        case "delta: settled": older[0] = .settled(Self.run(30))
        case "delta: not after the base": older[0] = Self.freed(30, 1, 4, 5)
        case "delta: out of order": newer = [Self.freed(40, 1, 5, 7), Self.freed(41, 1, 5, 6)]
        case "delta: a take with createdBy": older[1].createdBy = 2
        case "delta: after its page": older[0] = Self.freed(30, 1, 4, 7)
        case "delta: created by 0": newer[0].createdBy = 0
        case "chain: page after the version": version = 6
        default: Issue.record("unknown variant \(variant)")
        }
        let pages = Pages(count: 3)
        let head = pages.write([(true, newer, 7), (true, older, 6), (false, base, 5)])
        if variant == "valid" {
            let (list, _) = try pages.decode(head, version: version)
            #expect(list.allRuns == [Self.run(11), Self.run(20), Self.run(30), Self.run(40)])
        } else {
            #expect(throws: StorageError.self, "\(variant)") { try pages.decode(head, version: version) }
        }
    }

    /// A file written while a reader pins an old version, through base rewrites and deltas:
    /// decoding the chain from the file's bytes alone (as a writer in another process would)
    /// gives the writer's own list — with the pin, the same runs are reusable and the pinned
    /// version's pages are not; without it, every free page is.
    @Test(arguments: [11, 12] as [UInt64])
    func aFileWrittenUnderAPinDecodesToTheWritersList(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        for key in 0..<UInt64(3_000) { try setup.put(tree, key: key, value: [UInt8](repeating: UInt8(key & 0xFF), count: 40)) }
        try setup.commit()
        func churn(_ commits: Int) throws -> Int {
            var bases = 0
            for _ in 0..<commits {
                let write = try database.beginWrite()
                for _ in 0..<Int(random.next() % 6 + 1) {
                    let key = random.next() % 3_000
                    try write.put(tree, key: key, value: [UInt8](repeating: UInt8(random.next() & 0xFF), count: Int(random.next() % 80)))
                }
                try write.commit()
                if database.state.withLock({ $0.publishedTip.chain.deltaEntries == 0 }) { bases += 1 }
            }
            return bases
        }
        _ = try churn(50)
        var pinned: ReadTransaction? = try database.beginRead()
        let pin = try #require(pinned).transaction
        let bases = try churn(400)
        #expect(bases > 0, "seed \(seed): the chain was rewritten as a base while the version was pinned")

        let tip = database.state.withLock { $0.publishedTip }
        var writer = tip.freeList
        writer.release(pins: [pin], durable: tip.meta.transaction)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var (decoded, _) = try data.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!
            let meta = try #require([0, 1].compactMap { try? MetaPage.decode(base + $0 * PageLayout.pageSize).get() }
                .max { $0.transaction < $1.transaction })
            #expect(meta == tip.meta)
            return try FreeListChain.decode(head: meta.freeList, version: meta.transaction, pageCount: meta.pageCount) {
                base + Int($0) * PageLayout.pageSize
            }
        }
        #expect(decoded.allRuns == writer.allRuns, "seed \(seed)")
        var other = decoded
        other.release(pins: [pin], durable: tip.meta.transaction)
        #expect(other.reusable == writer.reusable, "seed \(seed)")
        #expect(other.reusablePageCount < other.pageCount, "seed \(seed): the pinned version's pages wait")
        #expect(decoded.release(pins: [], durable: tip.meta.transaction).count > 0)
        #expect(decoded.reusablePageCount == decoded.pageCount, "seed \(seed): without the pin every free page is reusable")

        // The check accounts for runs still seen by a version (they are free, not lost).
        let report = try database.verify()
        #expect(report.freePages == tip.freeList.pageCount)
        pinned = nil
        _ = try churn(5)
        try database.close()
        let reopened = try Database.open(path: path)
        _ = try reopened.verify()
        #expect(reopened.state.withLock { $0.publishedTip.freeList.reusablePageCount == $0.publishedTip.freeList.pageCount },
                "one process: every free page is reusable on open")
        try reopened.close()
    }
}
