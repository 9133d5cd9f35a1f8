import Foundation
import Synchronization
import Testing
import RealmActors
import RealmTestSupport

final class FLItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}

/// A process that opens a file read-only beside the process writing it follows the writer's
/// commits: its reads, `refresh()`, change streams and `observe` callbacks see them.
///
/// Two processes in one: the follower opens the file through a symbolic link to its directory,
/// so the runtime (whose registry is by path) opens it a second time, with its own description
/// of the lock file — which open-file-description locks (Linux) treat as another process's.
/// The real-process case: `realm-inspect` on a file this process writes (InspectorTests).
@Suite(.timeLimit(.minutes(1))) struct FollowerTests {
    struct Pair {
        let directory: TemporaryDirectory
        let writer: Realm.Configuration
        let follower: Realm.Configuration
    }

    static func pair() throws -> Pair {
        let directory = try TemporaryDirectory()
        let data = directory.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let link = directory.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: data)
        let writer = Realm.Configuration(fileURL: data.appendingPathComponent("items.realm"), objectTypes: [FLItem.self])
        var follower = Realm.Configuration(fileURL: link.appendingPathComponent("items.realm"), objectTypes: [FLItem.self])
        follower.readOnly = true
        return Pair(directory: directory, writer: writer, follower: follower)
    }

    @Test func aReadOnlyProcessSeesTheWritersCommitsInItsChangeStreams() async throws {
        let pair = try Self.pair()
        let writer = try Realm(configuration: pair.writer)
        try writer.write { for id in 0..<5 { writer.create(FLItem.self, value: ["id": id, "value": id]) } }
        let follower = try Realm(configuration: pair.follower)
        #expect(follower.objects(FLItem.self).count == 5)

        var changes = follower.objects(FLItem.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("no initial"); return }
        #expect(initial.map(\.id) == [0, 1, 2, 3, 4])

        // Another process's commit: an insertion, a modification and a deletion, which reach
        // the follower without a change log (its notifier compares the versions' trees).
        try writer.write {
            writer.create(FLItem.self, value: ["id": 5, "value": 5])
            writer.object(ofType: FLItem.self, forPrimaryKey: 2)!.value = 20
            writer.delete(writer.object(ofType: FLItem.self, forPrimaryKey: 0)!)
        }
        guard case .update(let after, let deletions, let insertions, let modifications) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(after.map(\.id) == [1, 2, 3, 4, 5])
        #expect(deletions == [0] && insertions == [4] && modifications == [1])
        #expect(after[1].value == 20)

        // A write that stores the values already there changes nothing: no element. The next
        // commit's element is the next one delivered.
        try writer.write { writer.object(ofType: FLItem.self, forPrimaryKey: 3)!.value = 3 }
        try writer.write { writer.object(ofType: FLItem.self, forPrimaryKey: 4)!.value = 40 }
        guard case .update(_, let deletions2, let insertions2, let modifications2) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(deletions2 == [] && insertions2 == [] && modifications2 == [3])

        #expect(follower.refresh() || follower.objects(FLItem.self).count == 5)
        #expect(follower.objects(FLItem.self).count == 5)
        #expect(follower.object(ofType: FLItem.self, forPrimaryKey: 4)?.value == 40)
    }

    /// Compaction on launch is skipped while another process has the file open (as in Realm):
    /// `shouldCompactOnLaunch` is not asked, and the file is not replaced under the reader.
    @Test func compactionOnLaunchIsSkippedWhileAnotherProcessReads() throws {
        let pair = try Self.pair()
        do {
            let writer = try Realm(configuration: pair.writer)
            try writer.write { for id in 0..<50 { writer.create(FLItem.self, value: ["id": id]) } }
        }
        let follower = try Realm(configuration: pair.follower)
        let inode = { (try FileManager.default.attributesOfItem(atPath: pair.writer.fileURL!.path)[.systemFileNumber] as? NSNumber)?.uint64Value }
        let before = try inode()
        let asked = Mutex(0)
        var compacting = pair.writer
        compacting.shouldCompactOnLaunch = { _, _ in
            asked.withLock { $0 += 1 }
            return true
        }
        let writer = try Realm(configuration: compacting)
        #expect(asked.withLock { $0 } == 0)
        #expect(try inode() == before)
        try writer.write { writer.create(FLItem.self, value: ["id": 50]) }
        #expect(follower.refresh())
        #expect(follower.objects(FLItem.self).count == 51)
    }
}
