import Testing
@testable import RealmStorage
import RealmTestSupport

/// Freed pages are reused once no reader can see them: a steady workload keeps the file at a
/// fixed size, a pinned reader makes it grow, and releasing the reader lets the space be reused.
@Suite struct SpaceReuseTests {
    /// Live keys of the sliding window.
    static let window: UInt64 = 2_000
    static let perCommit: UInt64 = 100

    static func value(_ key: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: 100)
        withUnsafeBytes(of: key.littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        return bytes
    }

    /// A database holding keys `0..<window`.
    static func makeDatabase(_ directory: TemporaryDirectory) throws -> (Database, TreeID) {
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        let write = try database.beginWrite()
        let tree = try write.createTree()
        for key in 0..<window { try write.put(tree, key: key, value: value(key)) }
        try write.commit()
        return (database, tree)
    }

    /// Commit `step` of the workload: inserts 100 new keys at the top, deletes the 100 oldest.
    static func slide(_ database: Database, _ tree: TreeID, step: UInt64) throws {
        let write = try database.beginWrite()
        for key in (window + step * perCommit)..<(window + (step + 1) * perCommit) {
            try write.put(tree, key: key, value: value(key))
        }
        for key in (step * perCommit)..<((step + 1) * perCommit) {
            #expect(try write.remove(tree, key: key))
        }
        try write.commit()
    }

    @Test func aSteadyWorkloadStopsGrowingTheFile() throws {
        let directory = try TemporaryDirectory()
        let (database, tree) = try Self.makeDatabase(directory)
        var pageCounts: [UInt64] = []
        for step in 0..<UInt64(300) {
            try Self.slide(database, tree, step: step)
            pageCounts.append(database.pageCount)
        }
        let warm = pageCounts[29]
        let largest = pageCounts[30...].max()!
        // Without reuse, 270 commits that each rewrite ~10 leaves would add thousands of pages.
        #expect(largest <= warm + warm / 20 + 4, "page count after warm-up \(warm), later up to \(largest): \(pageCounts.suffix(10))")
        #expect(pageCounts.last! < warm * 2)
        #expect(try database.beginRead().count(of: tree) == Self.window)
        let report = try database.verify()
        #expect(report.entries == Self.window)
        #expect(report.freePages == database.freePageCount)
        #expect(report.usedPages + report.freePages == database.pageCount)
        #expect(database.freePageCount > 0, "the commits free pages")
    }

    /// A pinned version keeps its own pages and nothing more: the pages later commits create and
    /// free again are reused at once (no reader can see them), so however many commits run while
    /// it is held, the file grows by at most the pinned version's size. (Reusing only pages freed
    /// before the oldest pin grew it by every commit's copies: 300 commits, 300+ pages.)
    @Test func aPinnedReaderCostsWhatItPinsAndNoMore() throws {
        let directory = try TemporaryDirectory()
        let (database, tree) = try Self.makeDatabase(directory)
        var step: UInt64 = 0
        for _ in 0..<40 { try Self.slide(database, tree, step: step); step += 1 }
        let steady = database.pageCount
        let pinnedPages = try database.verify().usedPages

        var pinned: ReadTransaction? = try database.beginRead()
        let pinnedStep = step
        for _ in 0..<300 { try Self.slide(database, tree, step: step); step += 1 }
        let grown = database.pageCount
        #expect(grown <= steady + pinnedPages + 8, "pinned: \(steady) → \(grown) pages; the pinned version has \(pinnedPages)")
        #expect(try pinned!.count(of: tree) == Self.window)
        let oldest = pinnedStep * Self.perCommit  // deleted by the first commit after the pin
        #expect(try pinned!.value(tree, key: oldest) == Self.value(oldest), "the pinned version still holds keys deleted since")
        #expect(try database.beginRead().value(tree, key: oldest) == nil)

        // Released, its pages are reused too: the file stops growing.
        pinned = nil
        for _ in 0..<100 { try Self.slide(database, tree, step: step); step += 1 }
        #expect(database.pageCount <= grown + 4, "after the release: \(grown) → \(database.pageCount) pages")
        let report = try database.verify()
        #expect(report.freePages == database.freePageCount)
    }

    /// The space report adds up, and says where the pages are: held under a pin while a reader
    /// keeps an old version, reusable once it is released; the live bytes match the integrity
    /// check's count of pages the newest version reaches.
    @Test func theSpaceReportAccountsForEveryPage() throws {
        let directory = try TemporaryDirectory()
        let (database, tree) = try Self.makeDatabase(directory)
        var step: UInt64 = 0
        func check(_ label: String) throws -> SpaceUsage {
            try database.flush()
            let usage = database.spaceUsage
            #expect(usage.fileBytes == usage.liveBytes + usage.freeBytes + usage.heldBytes, "\(label): \(usage)")
            #expect(usage.fileBytes == database.pageCount * UInt64(PageLayout.pageSize), "\(label)")
            let usedPages = try database.verify().usedPages
            #expect(usage.liveBytes == usedPages * UInt64(PageLayout.pageSize), "\(label): \(usage)")
            return usage
        }
        for _ in 0..<20 { try Self.slide(database, tree, step: step); step += 1 }
        _ = try check("steady")
        var pinned: ReadTransaction? = try database.beginRead()
        for _ in 0..<50 { try Self.slide(database, tree, step: step); step += 1 }
        let held = try check("pinned")
        #expect(held.heldBytes > 0, "a pinned version holds pages: \(held)")
        _ = try pinned?.count(of: tree)
        pinned = nil
        try Self.slide(database, tree, step: step)  // the next write transaction releases them
        let released = try check("released")
        #expect(released.heldBytes < held.heldBytes && released.freeBytes > 0, "\(held) → \(released)")
    }

    /// Under a long-pinned reader each commit frees what it replaced (a leaf, an inner page, a
    /// catalog leaf, a free-list page), and the next commit reuses it: the free list neither
    /// grows with the commits nor is rewritten whole by each of them (which was quadratic).
    @Test func aPinnedReaderDoesNotMakeTheFreeListFeedOnItself() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        for key in 0..<1000 as Range<UInt64> { try setup.put(tree, key: key, value: Array(repeating: 1, count: 50)) }
        try setup.commit()
        let pinned = try database.beginRead()
        let commits = 1000
        for index in 0..<commits {
            let write = try database.beginWrite()
            try write.put(tree, key: UInt64(1000 + index), value: Array(repeating: 2, count: 50))
            try write.commit()
        }
        // Each commit frees the path it copied, which the next commit reuses: only the pinned
        // version's replaced pages (its last leaf and the pages above) wait.
        #expect(database.freePageCount < 40, "\(database.freePageCount) free pages after \(commits) commits")
        #expect(try pinned.value(tree, key: 5) == Array(repeating: 1, count: 50), "the pinned version is intact")
        _ = try database.verify()
    }
}
