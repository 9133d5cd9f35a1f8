import Testing
@testable import RealmStorage

/// When a freed page may be reused (`FreeList.release(pins:durable:)`). How the list is stored:
/// `FreeListChainTests`.
@Suite struct FreeListTests {
    static func run(_ start: PageNumber, _ count: UInt64 = 1) -> PageRun { PageRun(start: start, count: count) }

    /// A page of versions C..<F is reused once F is durable and no pin lies in C..<F: pages a
    /// long-held snapshot cannot see are not held back by it.
    @Test func aFreedPageWaitsOnlyForPinsThatSeeIt() {
        var list = FreeList()
        list.record([
            FreedRun(run: Self.run(10), createdBy: 3, freedBy: 8),   // seen by versions 3..<8
            FreedRun(run: Self.run(20), createdBy: 6, freedBy: 8),   // seen by 6..<8
            FreedRun(run: Self.run(30), createdBy: 8, freedBy: 9),   // seen by 8 only
        ])
        list.release(pins: [5], durable: 7)
        #expect(list.reusable.isEmpty, "nothing is durably freed yet")
        list.release(pins: [5], durable: 9)
        #expect(list.reusable == [Self.run(20), Self.run(30)], "version 5 sees only page 10")
        #expect(list.pageCount == 3)
        list.release(pins: [5, 9], durable: 9)
        #expect(list.reusable == [Self.run(20), Self.run(30)])
        list.release(pins: [9], durable: 9)
        #expect(list.reusable == [Self.run(10), Self.run(20), Self.run(30)], "released with its pin")
    }

    /// A run under a released pin is checked again against the others: it may still be seen.
    @Test func aRunMovesToTheNextPinThatSeesIt() {
        var list = FreeList()
        list.record([FreedRun(run: Self.run(40, 3), createdBy: 2, freedBy: 10)])
        list.release(pins: [4, 6], durable: 10)
        #expect(list.reusable.isEmpty)
        list.release(pins: [6], durable: 10)
        #expect(list.reusable.isEmpty, "version 6 still sees it")
        list.release(pins: [], durable: 10)
        #expect(list.reusable == [Self.run(40, 3)])
    }

    /// `release` returns exactly the runs that became reusable; `FreePageMemory` collects them
    /// until they hold its threshold, then gives back those still reusable (a run collected
    /// twice, or reused meanwhile, is handled).
    @Test func freePageMemoryGivesBackCollectedRunsThatAreStillReusable() {
        var list = FreeList()
        list.record([FreedRun(run: Self.run(10, 2), createdBy: 1, freedBy: 4),
                     FreedRun(run: Self.run(20), createdBy: 3, freedBy: 4)])
        #expect(list.release(pins: [2], durable: 4) == [Self.run(20)], "version 2 sees pages 10 and 11")
        #expect(list.release(pins: [], durable: 4) == [Self.run(10, 2)])
        #expect(list.release(pins: [], durable: 4).isEmpty)

        var memory = FreePageMemory()
        let big = FreePageMemory.threshold
        #expect(memory.note(ripe: [Self.run(100, big / 2)], reusable: [Self.run(100, big / 2)]).isEmpty)
        // Pages 100..<110 were reused since, then freed again with 90..<100; 5000 is elsewhere.
        let given = memory.note(ripe: [Self.run(90, 20), Self.run(5_000, big / 2)],
                                reusable: [Self.run(90, 10), Self.run(110, big / 2 - 10), Self.run(5_000, big / 2)])
        #expect(given == [Self.run(90, 10), Self.run(110, big / 2 - 10), Self.run(5_000, big / 2)])
        #expect(memory.note(ripe: [Self.run(1, 1)], reusable: [Self.run(1, 1)]).isEmpty, "collecting starts over")
        #expect(FreeList.intersection([Self.run(0, 10), Self.run(20, 10)], [Self.run(5, 20)])
                    == [Self.run(5, 5), Self.run(20, 5)])
    }
}
