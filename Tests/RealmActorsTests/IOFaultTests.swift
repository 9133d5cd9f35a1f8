import Foundation
import Testing
import RealmActors
@testable import RealmRuntime
import RealmTestSupport

final class Ledger: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note = ""
}

/// A full disk, a failed sync and a torn write, met through the public API: the failing call
/// throws a clear `Realm.Error`, every acknowledged commit survives, the file opens afterwards,
/// and nothing of a failed commit is ever visible.
@Suite struct IOFaultTests {
    /// A configuration whose file, when first opened, gets `disk`'s faults.
    static func configuration(_ directory: TemporaryDirectory, disk: FaultInjector) -> Realm.Configuration {
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("faults.realm"), objectTypes: [Ledger.self])
        SharedRealmFile.injectFaults(disk, forPath: configuration.fileURL!.standardizedFileURL.path)
        return configuration
    }

    static func forget(_ configuration: Realm.Configuration) {
        SharedRealmFile.injectFaults(nil, forPath: configuration.fileURL!.standardizedFileURL.path)
    }

    /// The ids in the file, read by a fresh handle after every handle of the faulty one is gone.
    static func reopenedIDs(_ configuration: Realm.Configuration) throws -> [Int] {
        forget(configuration)
        let realm = try Realm(configuration: configuration)
        return realm.objects(Ledger.self).map(\.id).sorted()
    }

    @Test func aFullDiskFailsTheCommitCleanlyAndTheRealmCarriesOn() throws {
        let directory = try TemporaryDirectory()
        let disk = FaultInjector()
        let configuration = Self.configuration(directory, disk: disk)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for id in 1...50 { realm.add(Ledger(value: ["id": id, "note": String(repeating: "a", count: 300)])) } }
            disk.failWrites(with: .fail(errno: ENOSPC))
            do {
                try realm.write { for id in 51...400 { realm.add(Ledger(value: ["id": id, "note": String(repeating: "b", count: 300)])) } }
                Issue.record("the commit succeeded on a full disk")
            } catch let error as Realm.Error {
                #expect(error.code == .outOfDiskSpace, "\(error)")
                #expect(error.message.contains("No space left"), "\(error.message)")
            }
            #expect(realm.objects(Ledger.self).count == 50, "nothing of the failed commit is visible")
            disk.heal()  // space was freed
            try realm.write { realm.add(Ledger(value: ["id": 1_000])) }
            #expect(realm.objects(Ledger.self).count == 51)
        }
        #expect(try Self.reopenedIDs(configuration) == Array(1...50) + [1_000])
    }

    /// Eight actors commit at once; the disk fills during a flush that covers several of their
    /// transactions. Every commit of that batch throws, every commit acknowledged before it is in
    /// the file, and none of the failed ones.
    @Test func aFullDiskDuringAGroupCommitFailsEveryCommitOfTheBatchAndNoOther() async throws {
        let directory = try TemporaryDirectory()
        let disk = FaultInjector()
        let configuration = Self.configuration(directory, disk: disk)
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Ledger(value: ["id": 0])) }
        let acknowledged = LockedIDs()
        let failed = LockedIDs()
        disk.failWrites(after: 40, with: .fail(errno: ENOSPC))
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    let writer = ObjectWriter(configuration: configuration)
                    for step in 0..<30 {
                        let id = 1 + lane * 1_000 + step
                        do {
                            try await writer.add { Ledger(value: ["id": id]) }
                            acknowledged.insert(id)
                        } catch let error as Realm.Error {
                            #expect(error.code == .outOfDiskSpace, "\(error)")
                            failed.insert(id)
                        } catch {
                            Issue.record("\(error)")
                        }
                    }
                }
            }
        }
        #expect(disk.faultCount > 0 && !failed.ids.isEmpty, "the disk never filled")
        #expect(!acknowledged.ids.isEmpty)
        let inProcess = Set(try withExtendedLifetime(realm) { try Self.reopenedIDs(configuration) })
        #expect(acknowledged.ids.isSubset(of: inProcess), "acknowledged commits not seen in process: \(acknowledged.ids.subtracting(inProcess).sorted())")
        let found = Set(try Self.reopenedIDs(configuration))
        #expect(acknowledged.ids.isSubset(of: found), "acknowledged commits lost: \(acknowledged.ids.subtracting(found).sorted())")
        #expect(found.isDisjoint(with: failed.ids), "failed commits visible: \(found.intersection(failed.ids).sorted())")
    }

    /// A failed sync: the commit throws, the realm refuses further writes (the kernel may have
    /// dropped what it was writing), and after reopening the file holds every earlier commit and
    /// nothing of the failed one (issue 36: it threw, so it did not happen).
    @Test func aFailedSyncFailsTheCommitAndTheFileOpensWhole() throws {
        let directory = try TemporaryDirectory()
        let disk = FaultInjector()
        let configuration = Self.configuration(directory, disk: disk)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for id in 1...20 { realm.add(Ledger(value: ["id": id])) } }
            disk.failSyncs(errno: EIO)
            #expect(throws: Realm.Error.self) { try realm.write { for id in 21...40 { realm.add(Ledger(value: ["id": id])) } } }
            #expect(realm.objects(Ledger.self).count == 20)
            disk.heal()
            #expect(throws: Realm.Error.self, "writes stop after a failed sync") {
                try realm.write { realm.add(Ledger(value: ["id": 99])) }
            }
        }
        let ids = try Self.reopenedIDs(configuration)
        #expect(ids == Array(1...20), "\(ids)")
    }

    /// A write torn part-way (a short write, then an I/O error): the commit throws and nothing of
    /// it is visible, now or after reopening.
    @Test func aTornWriteFailsTheCommitAndLeavesNoTrace() throws {
        let directory = try TemporaryDirectory()
        let disk = FaultInjector()
        let configuration = Self.configuration(directory, disk: disk)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for id in 1...20 { realm.add(Ledger(value: ["id": id, "note": "kept"])) } }
            disk.failWrites(with: .partial(bytes: 1_000, errno: EIO))
            do {
                try realm.write {
                    for id in 1...20 { realm.object(ofType: Ledger.self, forPrimaryKey: id)!.note = "torn" }
                    for id in 21...300 { realm.add(Ledger(value: ["id": id, "note": String(repeating: "x", count: 200)])) }
                }
                Issue.record("the torn commit succeeded")
            } catch let error as Realm.Error {
                #expect(error.code == .fileAccess, "\(error)")
            }
            #expect(realm.objects(Ledger.self).where { $0.note == "torn" }.isEmpty)
        }
        #expect(try Self.reopenedIDs(configuration) == Array(1...20))
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.objects(Ledger.self).allSatisfy { $0.note == "kept" })
    }
}


/// A set of ids shared by concurrent tasks.
final class LockedIDs: Sendable {
    private let storage = Lock(Set<Int>())
    func insert(_ id: Int) { storage.withLock { _ = $0.insert(id) } }
    var ids: Set<Int> { storage.withLock { $0 } }
}
