import Foundation
import Synchronization
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Readers on their own threads while one writer commits continuously to a file (durability
/// `.none`): every read transaction sees one whole version, a pinned version never changes, and
/// the count of live versions follows the pins.
@Suite struct ConcurrencyTests {
    static let keys: UInt64 = 50
    /// 50 values of 200 bytes span several leaves, so a reader that mixed versions would see it.
    static let valueLength = 200
    static let pinnedKeys: UInt64 = 600

    /// The value every key of the "same" tree holds after commit `counter`.
    static func value(_ counter: UInt64) -> [UInt8] {
        var bytes = (0..<valueLength).map { UInt8(truncatingIfNeeded: UInt64($0) &* 7 &+ counter) }
        withUnsafeBytes(of: counter.littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        return bytes
    }

    /// Runs `body(index)` on `count` new threads (not a pool: a reader that waits for the writer
    /// must not take the thread the writer needs) and returns when all have finished.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }

    /// State the threads share (a class, because the closures escape into `Thread`s).
    final class Shared: Sendable {
        let writerDone = Atomic<Bool>(false)
        let first = Atomic<Int>(0)
        let second = Atomic<Int>(0)
        let failures = Lock<[String]>([])
        let pin = Lock<ReadTransaction?>(nil)
        let laterPin = Lock<ReadTransaction?>(nil)
        let started = Atomic<Int>(0)

        /// Readers call this first; the writer waits for `count` of them, so that the reads
        /// overlap the commits however the threads are scheduled.
        func readerStarted() { started.add(1, ordering: .releasing) }
        func waitForReaders(_ count: Int) {
            while started.load(ordering: .acquiring) < count { sched_yield() }
        }

        func fail(_ message: String) { failures.withLock { $0.append(message) } }
        var failureList: [String] { failures.withLock { $0 } }
        var isWriterDone: Bool { writerDone.load(ordering: .acquiring) }
        func writerFinished() { writerDone.store(true, ordering: .releasing) }
    }

    @Test func readersSeeOnlyWholeVersionsWhileAWriterCommits() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        // Tree `same`: keys 0..<50, all holding value(counter). Tree `log`: keys 0...counter.
        let (same, log): (TreeID, TreeID)
        do {
            let setup = try database.beginWrite()
            (same, log) = (try setup.createTree(), try setup.createTree())
            for key in 0..<Self.keys { try setup.put(same, key: key, value: Self.value(0)) }
            try setup.put(log, key: 0, value: [0])
            try setup.commit()
        }
        let commits: UInt64 = 250
        let readers = 3
        let shared = Shared()  // `first`: reads done
        Self.onThreads(readers + 1) { worker in
            if worker == readers {
                shared.waitForReaders(readers)
                do {
                    for counter in 1...commits {
                        let write = try database.beginWrite()
                        for key in 0..<Self.keys { try write.put(same, key: key, value: Self.value(counter)) }
                        try write.put(log, key: counter, value: [UInt8(truncatingIfNeeded: counter)])
                        // Some churn elsewhere, so freed pages are reused while readers read.
                        if counter > 20 { try write.remove(log, key: counter - 20) }
                        try write.commit()
                    }
                } catch {
                    shared.fail("writer: \(error)")
                }
                shared.writerFinished()
                return
            }
            shared.readerStarted()
            var previous: TransactionID = 0
            var count = 0
            // Read until the writer is done, and at least 50 times (a reader may start late).
            while !shared.isWriterDone || count < 50 {
                count += 1
                do {
                    let read = try database.beginRead()
                    if read.transaction < previous { shared.fail("version went back: \(read.transaction) after \(previous)") }
                    previous = read.transaction
                    var counters = Set<UInt64>()
                    var entries = 0
                    var intact = true
                    var expected: (counter: UInt64, bytes: [UInt8])?
                    try read.forEach(in: read.root(of: same)) { _, bytes in
                        entries += 1
                        let counter = bytes.loadUnaligned(as: UInt64.self)
                        counters.insert(counter)
                        if expected?.counter != counter { expected = (counter, Self.value(counter)) }
                        intact = intact && bytes.elementsEqual(expected!.bytes)
                        return true
                    }
                    let counter = counters.first ?? .max
                    let logCount = try read.count(of: log)
                    let lastLogged = try read.lastKey(in: read.root(of: log))
                    if counters.count != 1 || entries != Int(Self.keys) || !intact || lastLogged != counter
                        || logCount != min(counter + 1, 21) {
                        shared.fail("version \(read.transaction): counters \(counters.sorted()), \(entries) keys, intact \(intact), log \(logCount) entries ending at \(String(describing: lastLogged))")
                    }
                } catch {
                    shared.fail("reader: \(error)")
                }
            }
            shared.first.add(count, ordering: .relaxed)
        }
        let found = shared.failureList
        #expect(found.isEmpty, "\(found.count) failures: \(found.prefix(5))")
        #expect(shared.first.load(ordering: .relaxed) >= readers * 50)
        #expect(try database.beginRead().value(same, key: 7) == Self.value(commits))
        #expect(database.activeVersionCount == 1, "every reader released its version")
        _ = try database.verify()
    }

    /// A version pinned before 120 commits that rewrite every key (freeing the pinned pages and
    /// reusing earlier free ones) reads byte for byte the same throughout, from another thread
    /// as well, while `activeVersionCount` follows the pins.
    @Test func aPinnedVersionStaysUnchangedAcrossManyCommits() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        let tree: TreeID
        do {
            let setup = try database.beginWrite()
            tree = try setup.createTree()
            for key in 0..<Self.pinnedKeys { try setup.put(tree, key: key, value: Self.pinnedValue(key: key, version: 0)) }
            try setup.put(tree, key: 9_999, value: testValue(key: 9_999, version: 0, length: 7_000))  // an overflow run
            try setup.commit()
        }
        // Churn first, so that the free list holds reusable pages when the version is pinned.
        for version in 1...UInt64(10) { try Self.rewrite(database, tree, version: version, stride: 3) }
        #expect(database.freePageCount > 0)
        #expect(database.activeVersionCount == 1)

        let pinned = try database.beginRead()
        let snapshot = try Self.entries(pinned, tree)
        let pinnedFreePages = database.freePageCount
        #expect(database.activeVersionCount == 1, "the pinned version is the newest")
        let second = try database.beginRead()  // a second reader of the same version
        #expect(database.activeVersionCount == 1)

        let shared = Shared()  // `first`: mismatching passes, `second`: passes
        let pageCountBefore = database.pageCount
        // The reader thread takes the pinned transaction from `shared` rather than capturing it,
        // so that no closure context still holds it when the test releases it below.
        shared.pin.withLock { $0 = pinned }
        Self.onThreads(2) { worker in
            if worker == 0 {  // keeps reading the pinned version while the commits run
                guard let pinned = shared.pin.withLock({ $0 }) else { return }
                shared.readerStarted()
                while !shared.isWriterDone || shared.second.load(ordering: .relaxed) < 5 {
                    do {
                        if try !Self.matches(pinned, tree, snapshot) { shared.first.add(1, ordering: .relaxed) }
                    } catch {
                        shared.fail("pinned reader: \(error)")
                    }
                    shared.second.add(1, ordering: .relaxed)
                }
                return
            }
            shared.waitForReaders(1)
            do {
                for version in 11...UInt64(130) {
                    try Self.rewrite(database, tree, version: version, stride: 1)
                    if version == 80 {
                        let pin = try database.beginRead()
                        shared.laterPin.withLock { $0 = pin }
                    }
                }
            } catch {
                shared.fail("writer: \(error)")
            }
            shared.writerFinished()
        }
        shared.pin.withLock { $0 = nil }
        #expect(shared.failureList.isEmpty, "\(shared.failureList)")
        #expect(shared.first.load(ordering: .relaxed) == 0,
                "the pinned version changed in \(shared.first.load(ordering: .relaxed)) of \(shared.second.load(ordering: .relaxed)) passes")
        #expect(try Self.entries(pinned, tree) == snapshot)
        #expect(try Self.entries(second, tree) == snapshot)
        #expect(pinned.transaction + 100 < database.latestTransaction)
        // Every commit rewrote every page, so without reuse of pages freed before the pin the
        // file would have grown by far more than its size again.
        #expect(database.freePageCount > pinnedFreePages, "the pinned version's pages wait in the free list")
        #expect(database.pageCount > pageCountBefore, "pages freed after the pin cannot be reused: the file grows")

        // Pins: the first version (two readers), the version of commit 80, and the newest.
        #expect(database.activeVersionCount == 3)
        _ = consume second
        #expect(database.activeVersionCount == 3, "one reader still pins the first version")
        _ = consume pinned
        #expect(database.activeVersionCount == 2)
        shared.laterPin.withLock { $0 = nil }
        #expect(database.activeVersionCount == 1)
        // With the pins gone the next commits reuse the space: the file stops growing.
        let pageCountAfter = database.pageCount
        for version in 131...UInt64(150) { try Self.rewrite(database, tree, version: version, stride: 1) }
        #expect(database.pageCount == pageCountAfter)
        _ = try database.verify()
    }

    /// Begin/end read transactions on several threads as fast as possible while commits run:
    /// the live-version count stays bounded by the readers, and drops back to one.
    @Test func activeVersionCountFollowsConcurrentPins() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        let tree: TreeID
        do {
            let setup = try database.beginWrite()
            tree = try setup.createTree()
            try setup.put(tree, key: 0, value: [0])
            try setup.commit()
        }
        let readers = 3
        let shared = Shared()  // `first`: the most live versions seen, `second`: errors
        Self.onThreads(readers + 1) { worker in
            if worker == readers {
                shared.waitForReaders(readers)
                for counter in 1...UInt64(300) {
                    do {
                        let write = try database.beginWrite()
                        try write.put(tree, key: counter % 10, value: [UInt8(truncatingIfNeeded: counter)])
                        try write.commit()
                    } catch {
                        shared.second.add(1, ordering: .relaxed)
                    }
                    shared.first.max(database.activeVersionCount, ordering: .relaxed)
                }
                shared.writerFinished()
                return
            }
            shared.readerStarted()
            var held: [ReadTransaction] = []
            var rounds = 0
            while !shared.isWriterDone || rounds < 20 {
                rounds += 1
                do {
                    held.append(try database.beginRead())  // hold up to 2 versions per reader
                    if held.count > 2 { held.removeFirst() }
                    shared.first.max(database.activeVersionCount, ordering: .relaxed)
                } catch {
                    shared.second.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(shared.second.load(ordering: .relaxed) == 0)
        // Each reader pins at most 2 versions, and the newest is always live.
        let maximum = shared.first.load(ordering: .relaxed)
        #expect(maximum <= readers * 2 + 1)
        #expect(maximum >= 2, "readers pinned older versions while commits ran")
        #expect(database.activeVersionCount == 1)
        _ = try database.verify()
    }

    // MARK: Helpers

    /// Rewrites every `stride`-th key with a value of `version`.
    static func rewrite(_ database: Database, _ tree: TreeID, version: UInt64, stride step: UInt64) throws {
        let write = try database.beginWrite()
        for key in stride(from: version % step, to: pinnedKeys, by: Int(step)) {
            try write.put(tree, key: key, value: pinnedValue(key: key, version: version))
        }
        try write.put(tree, key: 9_999, value: testValue(key: 9_999, version: version, length: 7_000))
        try write.commit()
    }

    /// A value naming its key and version (cheap to make: the writer makes 70,000).
    static func pinnedValue(key: UInt64, version: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: version &* 31 &+ key), count: 60 + Int(key % 50))
        withUnsafeBytes(of: (key.littleEndian, version.littleEndian)) { bytes.replaceSubrange(0..<16, with: $0) }
        return bytes
    }

    /// Whether the tree holds exactly `expected`, compared in key order without copying.
    static func matches(_ read: ReadTransaction, _ tree: TreeID, _ expected: [UInt64: [UInt8]]) throws -> Bool {
        var count = 0
        var same = true
        try read.forEach(in: read.root(of: tree)) { key, value in
            count += 1
            same = expected[key].map { value.elementsEqual($0) } ?? false
            return same
        }
        return same && count == expected.count
    }

    static func entries(_ read: ReadTransaction, _ tree: TreeID) throws -> [UInt64: [UInt8]] {
        var entries: [UInt64: [UInt8]] = [:]
        try read.forEach(in: read.root(of: tree)) { key, value in entries[key] = Array(value); return true }
        return entries
    }
}
