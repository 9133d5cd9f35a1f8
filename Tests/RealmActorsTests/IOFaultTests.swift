import Foundation
import Testing
import RealmActors
@testable import RealmRuntime
import RealmTestSupport

final class Ledger: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note = ""
}

/// A disk that fails on cue: the next writes or syncs fail (a full disk, an I/O error) or are
/// torn, as `SharedRealmFile.faultInjectors` hands it to the file's storage.
final class FailingDisk: IOFaultInjector, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var writeFault: WriteFault?
    private var writesBeforeFault = 0
    private var syncFault: Int32?
    private(set) var faults = 0

    /// Write number `after` (0: the next one) behaves as `fault`, and every write after it fails
    /// the same way until ``heal()``: a disk that stays full.
    func failWrites(after: Int = 0, with fault: WriteFault) {
        lock.withLock { writeFault = fault; writesBeforeFault = after }
    }

    func failSyncs(with code: Int32) { lock.withLock { syncFault = code } }

    func heal() { lock.withLock { writeFault = nil; syncFault = nil } }

    var faultCount: Int { lock.withLock { faults } }

    func beforeWrite(offset: UInt64, length: Int) -> WriteFault {
        lock.withLock {
            guard let fault = writeFault else { return .none }
            if writesBeforeFault > 0 { writesBeforeFault -= 1; return .none }
            faults += 1
            if case .partial(_, let code) = fault { writeFault = .fail(errno: code) }  // torn once, then failing
            return fault
        }
    }

    /// A disk is full (or failing) for the log as for the data file.
    func beforeLogWrite(offset: UInt64, length: Int) -> WriteFault { beforeWrite(offset: offset, length: length) }

    func beforeSync() -> Int32? {
        lock.withLock {
            if syncFault != nil { faults += 1 }
            return syncFault
        }
    }
}

/// A full disk, a failed sync and a torn write, met through the public API: the failing call
/// throws a clear `Realm.Error`, every acknowledged commit survives, the file opens afterwards,
/// and nothing of a failed commit is ever visible.
@Suite struct IOFaultTests {
    /// A configuration whose file, when first opened, gets `disk`'s faults.
    static func configuration(_ directory: TemporaryDirectory, disk: FailingDisk) -> Realm.Configuration {
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
        let disk = FailingDisk()
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
        let disk = FailingDisk()
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
        let disk = FailingDisk()
        let configuration = Self.configuration(directory, disk: disk)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for id in 1...20 { realm.add(Ledger(value: ["id": id])) } }
            disk.failSyncs(with: EIO)
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
        let disk = FailingDisk()
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
final class LockedIDs: @unchecked Sendable {
    // @unchecked: `storage` is guarded by `lock`.
    private let lock = NSLock()
    private var storage = Set<Int>()
    func insert(_ id: Int) { lock.withLock { _ = storage.insert(id) } }
    var ids: Set<Int> { lock.withLock { storage } }
}
