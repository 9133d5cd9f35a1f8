import Foundation
import Testing
import RealmActors
import RealmTestSupport
// The model the child declares (its versions of `MXItem`, and `MXMigration`), declared once there.
@testable import realm_schema_process

/// Migrations while other processes have the file open (issue 39), with real processes: the
/// other process is `realm-schema-process`, which opens the file with one version of the model
/// and migrates it if it is older. Realm's rules: the processes migrating at once migrate once
/// (each decides again once it owns writing); an open handle follows additive changes and stops,
/// with "Unsupported schema changes were made by another client or process", at a class or
/// property removed or changed; an older schema version than the file's is refused.
@Suite(.timeLimit(.minutes(2))) struct MigratingProcessesTests {
    /// A file at schema version 1 with items 0, 1, 2 (value = id), and its configuration.
    static func fileAtVersion1(_ directory: TemporaryDirectory) throws -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("items.realm"), objectTypes: [MXItemV1.self])
        configuration.schemaVersion = 1
        let realm = try Realm(configuration: configuration)
        try realm.write { for id in 0..<3 { realm.create(MXItemV1.self, value: ["id": id, "value": id, "note": "n\(id)"]) } }
        return configuration
    }

    /// A version-1 file with a handle reading it as a process that uses it does: the items sorted
    /// (results), item 1, and a change stream of the items past its initial element.
    static func reading(in directory: TemporaryDirectory) async throws
        -> (Realm.Configuration, Realm, Results<MXItemV1>, MXItemV1, RealmChanges<RealmCollectionChange<FrozenResults<MXItemV1>>>.AsyncIterator) {
        let configuration = try fileAtVersion1(directory)
        let realm = try Realm(configuration: configuration)
        let items = realm.objects(MXItemV1.self).sorted(byKeyPath: "id")
        let item = try #require(realm.object(ofType: MXItemV1.self, forPrimaryKey: 1))
        var changes = items.changes.makeAsyncIterator()
        guard case .initial = await changes.next() else { throw Realm.Error(.fail, "no initial element") }
        return (configuration, realm, items, item, changes)
    }

    /// `realm-schema-process open <file> <model> <version>`, its standard error in the directory.
    static func spawn(_ configuration: Realm.Configuration, _ model: String, version: Int, in directory: TemporaryDirectory,
                      _ name: String = "child") throws -> ChildProcess {
        try ChildProcess(executable: try TestExecutable.path(named: "realm-schema-process", override: "REALM_SCHEMA_PROCESS"),
                         arguments: ["open", configuration.fileURL!.path, model, "\(version)"],
                         standardError: directory.url.appendingPathComponent("\(name).stderr").path)
    }

    /// Every line the child writes, until it exits, and how it ended: read on a thread of its
    /// own (``BlockingCall``), never a task's. A child still running after 60 s is killed (its
    /// lines then end early, and the status says so).
    static func finish(_ child: ChildProcess) async -> (lines: [String], status: ChildProcess.Status) {
        // The child is used only by the reading thread until the call returns; the test touches
        // only its immutable pid (to kill it) meanwhile.
        nonisolated(unsafe) let child = child
        let pid = child.pid
        let reading = BlockingCall { () -> [String] in
            var lines: [String] = []
            while let line = child.readLine() { lines.append(line) }
            _ = child.wait()
            return lines
        }
        if await !reading.returns(within: 60) {
            Issue.record("realm-schema-process \(pid) still runs after 60 s")
            _ = kill(pid, SIGKILL)
        }
        let lines = await reading.value()
        return (lines, child.wait())
    }

    /// Waits until `count` threads of other processes wait for a lock of the file's lock file
    /// (the write byte lock: a writer waiting for this process's transaction). Polled, since
    /// nothing else says when a thread blocks in `fcntl`; false after about 20 s.
    static func waitForLockWaiters(_ count: Int, on configuration: Realm.Configuration) async throws -> Bool {
        var inode = stat()
        guard stat(configuration.fileURL!.path + ".lock", &inode) == 0 else { return false }
        for _ in 0..<20_000 {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            if locks.split(separator: "\n").filter({ $0.contains("->") && $0.contains(":\(inode.st_ino) ") }).count >= count { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    /// Two processes open a version-1 file at once, both with version 2 and a migration block:
    /// one migrates, the other (waiting for write ownership meanwhile) decides again on the
    /// migrated version and writes nothing; both open on the migrated data. A process that then
    /// opens with version 1 is refused with Realm's error.
    @Test func twoProcessesOpeningAtOnceMigrateOnce() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.fileAtVersion1(directory)
        // This process owns writing while both children open, so both see the file at
        // version 1 and wait, inside their migration's write, for the other to finish.
        let holder = try Realm(configuration: configuration)
        holder.beginWrite()
        let children = try (0..<2).map { try Self.spawn(configuration, "added", version: 2, in: directory, "child\($0)") }
        #expect(try await Self.waitForLockWaiters(2, on: configuration), "both children wait for write ownership")
        holder.cancelWrite()
        var outcomes: [(lines: [String], status: ChildProcess.Status)] = []
        for child in children { outcomes.append(await Self.finish(child)) }
        for outcome in outcomes {
            #expect(outcome.status == .exited(0), "\(outcome)")
            #expect(outcome.lines.last == "opened items=3 migrations=1 values=migrated,migrated,migrated", "\(outcome.lines)")
        }
        #expect(outcomes.flatMap(\.lines).filter { $0.hasPrefix("migrating") } == ["migrating 1"], "exactly one migration ran")
        #expect(try schemaVersionAtURL(configuration.fileURL!) == 2)

        // An older schema version than the file's, in another process and in this one.
        let older = await Self.finish(try Self.spawn(configuration, "v1", version: 1, in: directory, "older"))
        #expect(older.status == .exited(1))
        #expect(older.lines == ["error schemaMismatch Provided schema version 1 is less than last set version 2."], "\(older.lines)")
        let refused = try #require(throws: Realm.Error.self) { try Realm(configuration: configuration) }
        #expect(refused.code == .schemaMismatch && refused.message == "Provided schema version 1 is less than last set version 2.")
    }

    /// A process reading the file (objects, results, a change stream) while another migrates it
    /// with an additive change follows it, as Realm's handles do: it sees the other process's
    /// objects and keeps writing its own (the new property gets its default value).
    @Test func anOpenHandleFollowsAnotherProcessesAdditiveMigration() async throws {
        let directory = try TemporaryDirectory()
        let (configuration, realm, items, item, stream) = try await Self.reading(in: directory)
        var changes = stream

        let child = await Self.finish(try Self.spawn(configuration, "added", version: 2, in: directory))
        #expect(child.lines == ["migrating 1", "opened items=3 migrations=1 values=migrated,migrated,migrated"], "\(child)")
        #expect(realm.refresh())
        #expect(items.map(\.value) == [0, 1, 2] && item.value == 1 && item.note == "n1")
        guard case .update(let after, _, _, _) = await changes.next() else { Issue.record("no update after the migration"); return }
        #expect(after.map(\.value) == [0, 1, 2])

        try realm.write { realm.create(MXItemV1.self, value: ["id": 3, "value": 3, "note": "n3"]) }
        #expect(items.map(\.value) == [0, 1, 2, 3])
        var migrated = configuration
        migrated.objectTypes = [MXItemAdded.self, MXMigration.self]
        migrated.schemaVersion = 2
        let reader = try Realm(configuration: migrated)
        #expect(reader.objects(MXItemAdded.self).sorted(byKeyPath: "id").map(\.extra) == ["migrated", "migrated", "migrated", ""])
    }

    /// A process reading the file while another migrates it destructively (a property retyped,
    /// another removed) stops at the last version its classes can read, as in Realm: `refresh`
    /// stays there, its objects read that version's values (never the retyped column's bytes as
    /// the old type), its writes throw Realm's "Unsupported schema changes were made by another
    /// client or process", and its change streams end with that error. The file is intact.
    @Test func anOpenHandleStopsAtAnotherProcessesDestructiveMigration() async throws {
        let directory = try TemporaryDirectory()
        let (configuration, realm, items, item, stream) = try await Self.reading(in: directory)
        var changes = stream

        let child = await Self.finish(try Self.spawn(configuration, "retyped", version: 2, in: directory))
        #expect(child.lines == ["migrating 1", "opened items=3 migrations=1 values=v0,v1,v2"], "\(child)")
        #expect(!realm.refresh())
        #expect(items.map(\.value) == [0, 1, 2] && item.value == 1 && item.note == "n1")
        let refused = try #require(throws: Realm.Error.self) {
            try realm.write { realm.create(MXItemV1.self, value: ["id": 3, "value": 3, "note": "n3"]) }
        }
        #expect(refused.code == .schemaMismatch, "\(refused)")
        #expect(refused.message.hasPrefix("Unsupported schema changes were made by another client or process:"), "\(refused)")
        #expect(refused.message.contains("- Property 'MXItem.note' has been removed."), "\(refused)")
        #expect(refused.message.contains("- Property 'MXItem.value' has been changed from 'int' to 'string'."), "\(refused)")
        guard case .error(let streamError) = await changes.next() else { Issue.record("the change stream did not end with the error"); return }
        #expect("\(streamError)".contains("Unsupported schema changes were made by another client or process"), "\(streamError)")
        let end = await changes.next()
        #expect(end.map { _ in true } == nil, "the stream ended")
        #expect(items.count == 3, "the handle still reads its version")

        var migrated = configuration
        migrated.objectTypes = [MXItemRetyped.self, MXMigration.self]
        migrated.schemaVersion = 2
        let reader = try Realm(configuration: migrated)
        #expect(reader.objects(MXItemRetyped.self).sorted(byKeyPath: "id").map(\.value) == ["v0", "v1", "v2"])
        _ = try reader.checkIntegrity()
    }

    /// A process migrating while another is in the middle of a write transaction waits for it
    /// (write ownership), then migrates on top of its commit: nothing is lost, the migration
    /// block sees the other process's last object.
    @Test func aMigrationWaitsForAnotherProcessesWrite() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.fileAtVersion1(directory)
        let realm = try Realm(configuration: configuration)
        realm.beginWrite()
        realm.create(MXItemV1.self, value: ["id": 3, "value": 3, "note": "n3"])
        let child = try Self.spawn(configuration, "added", version: 2, in: directory)
        #expect(try await Self.waitForLockWaiters(1, on: configuration), "the migration waits for this process's write")
        try realm.commitWrite()
        let outcome = await Self.finish(child)
        #expect(outcome.status == .exited(0))
        #expect(outcome.lines == ["migrating 1", "opened items=4 migrations=1 values=migrated,migrated,migrated,migrated"], "\(outcome.lines)")
        #expect(realm.refresh())
        #expect(realm.objects(MXItemV1.self).count == 4)
    }
}
