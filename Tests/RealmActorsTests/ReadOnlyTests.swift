import Foundation
import Testing
import RealmActors
import RealmTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class ROItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

/// Read-only realms as Realm defines them: nothing created or changed on disk, several readers,
/// and one way of opening a file per process.
@Suite struct ReadOnlyTests {
    static func configuration(_ directory: TemporaryDirectory, readOnly: Bool = false) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("items.realm"))
        configuration.objectTypes = [ROItem.self]
        configuration.readOnly = readOnly
        return configuration
    }

    static func written(_ directory: TemporaryDirectory) throws {
        let realm = try Realm(configuration: configuration(directory))
        try realm.write { for id in 0..<100 { realm.add(ROItem(value: ["id": id, "name": "item \(id)"])) } }
    }

    static func contents(_ directory: TemporaryDirectory) throws -> Data {
        try Data(contentsOf: directory.url.appendingPathComponent("items.realm"))
    }

    @Test func aMissingFileIsNotFoundAndNothingIsCreated() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: Self.configuration(directory, readOnly: true)) }
        #expect(error.code == .fileNotFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func readingChangesNoByteOfTheFile() throws {
        let directory = try TemporaryDirectory()
        try Self.written(directory)
        let before = try Self.contents(directory)
        do {
            let first = try Realm(configuration: Self.configuration(directory, readOnly: true))
            let second = try Realm(configuration: Self.configuration(directory, readOnly: true))
            #expect(first.objects(ROItem.self).count == 100 && second.objects(ROItem.self).filter("id > 49").count == 50)
            #expect(first.object(ofType: ROItem.self, forPrimaryKey: 7)?.name == "item 7")
        }
        #expect(try Self.contents(directory) == before)
    }

    @Test func aFileIsOpenedOneWayPerProcess() throws {
        let directory = try TemporaryDirectory()
        try Self.written(directory)
        do {
            let writer = try Realm(configuration: Self.configuration(directory))
            let error = try #require(throws: Realm.Error.self) { try Realm(configuration: Self.configuration(directory, readOnly: true)) }
            #expect(error.code == .alreadyOpen && error.message.contains("already opened with different read permissions"))
            _ = writer
        }
        let reader = try Realm(configuration: Self.configuration(directory, readOnly: true))
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: Self.configuration(directory)) }
        #expect(error.code == .alreadyOpen)
        #expect(throws: Realm.Error.self) { try Realm.deleteFiles(for: Self.configuration(directory)) }
        _ = reader
    }

    /// A library version from before the shared lock file held only a `flock` on it (exclusive to
    /// write, shared to read), simulated here by a second open file description of the lock file
    /// (flock locks belong to the description, so it conflicts as another process's would). It
    /// takes no slot, so this version cannot share the file with it, and says so — both ways.
    /// (Processes of this version sharing a file: `LockFileTests` in RealmStorageTests.)
    @Test func anOlderLibrarysLockExcludesThisOneBothWays() throws {
        let directory = try TemporaryDirectory()
        try Self.written(directory)
        let lockPath = directory.url.appendingPathComponent("items.realm.lock").path
        let other = open(lockPath, O_RDWR)
        try #require(other >= 0)
        defer { close(other) }

        try #require(flock(other, LOCK_SH | LOCK_NB) == 0)  // an older version reads
        for readOnly in [true, false] {
            let error = try #require(throws: Realm.Error.self) { try Realm(configuration: Self.configuration(directory, readOnly: readOnly)) }
            #expect(error.code == .incompatibleLockFile && error.message.contains("does not share it"), "\(error)")
        }
        try #require(flock(other, LOCK_EX | LOCK_NB) == 0)  // an older version writes
        for readOnly in [true, false] {
            let error = try #require(throws: Realm.Error.self) { try Realm(configuration: Self.configuration(directory, readOnly: readOnly)) }
            #expect(error.code == .incompatibleLockFile && error.message.contains("older version of RealmActors"), "\(error)")
        }
        try #require(flock(other, LOCK_UN) == 0)

        // This version has it open: an older writer's exclusive lock fails (it reports the file
        // open in another process).
        do {
            let reader = try Realm(configuration: Self.configuration(directory, readOnly: true))
            #expect(reader.objects(ROItem.self).count == 100)
            #expect(flock(other, LOCK_EX | LOCK_NB) != 0)
        }
        do {
            let writer = try Realm(configuration: Self.configuration(directory))
            #expect(flock(other, LOCK_EX | LOCK_NB) != 0)
            _ = writer
        }
    }
}
