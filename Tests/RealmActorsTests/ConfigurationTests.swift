import Foundation
import Testing
import RealmActors
import RealmTestSupport

@Suite struct ConfigurationTests {
    @Test func fileURLAndInMemoryIdentifierAreExclusive() {
        var config = Realm.Configuration(inMemoryIdentifier: "mem")
        #expect(config.inMemoryIdentifier == "mem")
        #expect(config.fileURL == nil)

        let url = URL(fileURLWithPath: "/tmp/x.realm")
        config.fileURL = url
        #expect(config.fileURL == url)
        #expect(config.inMemoryIdentifier == nil)

        config.inMemoryIdentifier = "again"
        #expect(config.fileURL == nil)
    }

    @Test func defaultFileLivesUnderXDGDataHomeNamedAfterTheExecutable() throws {
        let url = Realm.Configuration.defaultFileURL
        #expect(url.lastPathComponent == "default.realm")
        #if os(Linux)
        let environment = ProcessInfo.processInfo.environment
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        #expect(url.deletingLastPathComponent().lastPathComponent == executable)
        let base = url.deletingLastPathComponent().deletingLastPathComponent().path
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            #expect(base == URL(fileURLWithPath: xdg).path)
        } else {
            #expect(base.hasSuffix("/.local/share"))
        }
        #endif
    }

    @Test func defaultConfigurationCanBeReplaced() {
        let original = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = original }
        #expect(original.fileURL == Realm.Configuration.defaultFileURL)
        // Uses a distinctive value no other test sets, so parallel tests cannot interfere.
        Realm.Configuration.defaultConfiguration.schemaVersion = 424242
        #expect(Realm.Configuration.defaultConfiguration.schemaVersion == 424242)
    }

    /// Realm Swift's equality: the realm (file or identifier), read-only and schema version; not
    /// callbacks, object types or the other options.
    @Test func equalityComparesWhatRealmSwiftCompares() {
        let base = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/equal.realm"), schemaVersion: 3)
        var other = base
        other.objectTypes = [ConfigurationTestsModel.self]
        other.migrationBlock = { _, _ in }
        other.shouldCompactOnLaunch = { _, _ in false }
        other.seedFilePath = URL(fileURLWithPath: "/tmp/seed.realm")
        #expect(other == base)
        other.schemaVersion = 4
        #expect(other != base)
        var readOnly = base
        readOnly.readOnly = true
        #expect(readOnly != base)
        #expect(Realm.Configuration(inMemoryIdentifier: "a") != Realm.Configuration(inMemoryIdentifier: "b"))
        var keyed = base
        keyed.encryptionKey = Data(repeating: 1, count: 64)
        #expect(keyed != base)
        #expect(base.description.contains("seedFilePath = (null);") && other.description.contains("shouldCompactOnLaunch = <block>;"))
    }
}

@Suite struct FileManagementTests {
    @Test func deleteFilesRemovesTheFileAndItsLockFile() throws {
        let dir = try TemporaryDirectory()
        let url = dir.url.appendingPathComponent("a.realm")
        let config = Realm.Configuration(fileURL: url)
        #expect(!Realm.fileExists(for: config))
        #expect(try Realm.deleteFiles(for: config) == false)

        try Data("x".utf8).write(to: url)
        try Data().write(to: url.appendingPathExtension("lock"))
        #expect(Realm.fileExists(for: config))
        #expect(try Realm.deleteFiles(for: config) == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".lock"))
    }

    @Test func deleteFilesRefusesWhileTheRealmIsOpen() throws {
        let dir = try TemporaryDirectory()
        let config = Realm.Configuration(fileURL: dir.url.appendingPathComponent("open.realm"))
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
            let error = #expect(throws: Realm.Error.self) { try Realm.deleteFiles(for: config) }
            #expect(error?.code == .alreadyOpen && error?.message.contains("still in use") == true)
            #expect(realm.objects(Dog.self).count == 1, "the open realm is untouched")
        }
        // Every handle is gone: the file is closed and can be deleted, with its log.
        #expect(FileManager.default.fileExists(atPath: config.fileURL!.path + ".log"))
        #expect(try Realm.deleteFiles(for: config) == true)
        #expect(!FileManager.default.fileExists(atPath: config.fileURL!.path + ".log"))
        #expect(!Realm.fileExists(for: config))
    }

    @Test func inMemoryRealmsHaveNoFiles() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "nothing-on-disk")
        #expect(!Realm.fileExists(for: config))
        #expect(try Realm.deleteFiles(for: config) == false)
    }
}

@Suite struct ErrorTests {
    @Test func errorsMatchByCodeInCatchClauses() {
        func fail() throws { throw Realm.Error(.schemaMismatch, "Migration is required") }
        var matched = false
        do { try fail() } catch Realm.Error.schemaMismatch { matched = true } catch {}
        #expect(matched)

        do { try fail() } catch let error as Realm.Error where error.code == .schemaMismatch {
            #expect(error.localizedDescription == "Migration is required")
        } catch {
            Issue.record("wrong error \(error)")
        }
        #expect(!(Realm.Error.fileAccess ~= Realm.Error(.fail, "x")))
    }
}


final class ConfigurationTestsModel: Object {
    @Persisted var name = ""
}
