import Synchronization
import Foundation
import Testing
@testable import RealmStorage

/// What the reader and writer threads share.
private final class Shared: Sendable {
    let failures = Lock<[String]>([])
    let writerDone = Atomic<Bool>(false)
}

/// Readers on several threads during continuous commits see only whole versions, and a pinned
/// version never changes while later commits free and reuse pages.
@Suite struct SnapshotIsolationTests {
    /// Every commit writes the same counter value under 40 keys (in a value tree) and sets one
    /// table row's column to it: a reader must always see one value everywhere.
    @Test func readersSeeOnlyWholeVersionsWhileAWriterCommits() throws {
        let database = try Database.inMemory()
        let layout = [ColumnSpec(.int)]
        let setup = try database.beginWrite()
        let values = try setup.createTree()
        let table = try setup.createTree()
        for key in 0..<UInt64(40) { try setup.put(values, key: key, value: withUnsafeBytes(of: UInt64(0)) { Array($0) }) }
        try setup.insertRow(table, key: 1, values: [.int(0)], layout: layout)
        try setup.commit()

        let commits = 300
        let readers = 3
        let shared = Shared()
        // One thread each (concurrentPerform would run only as many at once as there are cores,
        // and spinning readers could then starve the writer).
        let finished = DispatchGroup()
        for worker in 0...readers {
            finished.enter()
            Thread {
                defer { finished.leave() }
                run(worker)
            }.start()
        }
        finished.wait()

        @Sendable func run(_ worker: Int) {
            if worker == readers {
                do {
                    for counter in 1...UInt64(commits) {
                        let write = try database.beginWrite()
                        for key in 0..<UInt64(40) {
                            try write.put(values, key: key, value: withUnsafeBytes(of: counter) { Array($0) })
                        }
                        try write.updateValue(table, key: 1, column: 0, value: .int(Int64(counter)), layout: layout)
                        try write.commit()
                    }
                } catch {
                    shared.failures.withLock { $0.append("writer: \(error)") }
                }
                shared.writerDone.store(true, ordering: .releasing)
                return
            }
            var reads = 0
            while !shared.writerDone.load(ordering: .acquiring) || reads < 50 {
                reads += 1
                do {
                    let read = try database.beginRead()
                    var seen = Set<UInt64>()
                    try read.forEach(in: read.root(of: values)) { _, bytes in
                        seen.insert(bytes.loadUnaligned(as: UInt64.self))
                        return true
                    }
                    guard let (leaf, row) = try read.row(in: read.root(of: table), key: 1) else {
                        shared.failures.withLock { $0.append("row missing at version \(read.transaction)") }
                        continue
                    }
                    seen.insert(UInt64(leaf.int(row, 0)))
                    if seen.count != 1 { shared.failures.withLock { $0.append("version \(read.transaction) mixes \(seen.sorted())") } }
                } catch {
                    shared.failures.withLock { $0.append("reader: \(error)") }
                }
            }
        }
        #expect(shared.failures.withLock { $0 }.isEmpty, "\(shared.failures.withLock { $0.prefix(5) })")
        _ = try database.verify()
    }

    @Test func aPinnedVersionNeverChanges() throws {
        let database = try Database.inMemory()
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        for key in 0..<UInt64(2_000) { try setup.put(tree, key: key, value: testValue(key: key, version: 0, length: 60)) }
        try setup.commit()
        let pinned = try database.beginRead()
        var before: [UInt64: [UInt8]] = [:]
        try pinned.forEach(in: pinned.root(of: tree)) { key, value in before[key] = Array(value); return true }
        #expect(database.activeVersionCount == 1)
        for version in 1...UInt64(120) {  // rewrite everything, repeatedly: pages are freed and reused
            let write = try database.beginWrite()
            for key in stride(from: version % 7, to: 2_000, by: 7) {
                try write.put(tree, key: key, value: testValue(key: key, version: version, length: 60))
            }
            try write.commit()
        }
        #expect(database.activeVersionCount == 2)
        var after: [UInt64: [UInt8]] = [:]
        try pinned.forEach(in: pinned.root(of: tree)) { key, value in after[key] = Array(value); return true }
        #expect(after == before)
        _ = consume pinned
        #expect(database.activeVersionCount == 1)
        _ = try database.verify()
    }
}
