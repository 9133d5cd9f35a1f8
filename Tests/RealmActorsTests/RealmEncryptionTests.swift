import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class SecretNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var title = ""
    @Persisted var body = ""
    @Persisted var tags: List<String>
}

/// Encrypted realms through the public API: what a user of Realm Swift's `encryptionKey` does.
@Suite struct RealmEncryptionTests {
    // Computed, not stored: LeakSanitizer reports a `Data` held by a global as leaked (see
    // Scripts/lsan-suppressions.txt), and a key is cheap to make.
    static var key: Data { Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }) }
    static var otherKey: Data { Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 100) }) }
    static let marker = "TOP-SECRET-MARKER-42"

    static func configuration(_ directory: TemporaryDirectory, _ name: String = "secret.realm", key: Data? = RealmEncryptionTests.key) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent(name), encryptionKey: key, objectTypes: [SecretNote.self])
    }

    static func fill(_ realm: Realm, count: Int = 500) throws {
        try realm.write {
            for id in 0..<count {
                realm.create(SecretNote.self, value: ["id": id, "title": "\(marker) \(id)",
                                                      "body": String(repeating: "\(marker) body ", count: id % 50 == 0 ? 400 : 3),
                                                      "tags": [marker, "t\(id % 7)"]])
            }
        }
    }

    static func fileContains(_ url: URL, _ text: String) throws -> Bool {
        let data = try Data(contentsOf: url)
        return data.range(of: Data(text.utf8)) != nil
    }

    static func failure(_ configuration: Realm.Configuration) -> Realm.Error? {
        do {
            _ = try Realm(configuration: configuration)
            return nil
        } catch {
            return error as? Realm.Error
        }
    }

    @Test func anEncryptedRealmReopensWithItsKeyAndHoldsNoPlaintext() throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(directory)
        do {
            let realm = try Realm(configuration: configuration)
            try Self.fill(realm)
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(SecretNote.self).count == 500)
        #expect(realm.objects(SecretNote.self).filter("title == %@", "\(Self.marker) 77").first?.id == 77)
        #expect(realm.object(ofType: SecretNote.self, forPrimaryKey: 100)?.body.count == 400 * "\(Self.marker) body ".count)
        #expect(Array(realm.object(ofType: SecretNote.self, forPrimaryKey: 3)!.tags) == [Self.marker, "t3"])
        #expect(try !Self.fileContains(configuration.fileURL!, Self.marker))
        #expect(try !Self.fileContains(configuration.fileURL!, "SecretNote"), "the schema is encrypted too")
    }

    @Test func theWrongKeyNoKeyOrAKeyForAPlainFileIsRefusedAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        do { try Self.fill(Realm(configuration: Self.configuration(directory))) }
        do { try Self.fill(Realm(configuration: Self.configuration(directory, "plain.realm", key: nil))) }
        let before = try Data(contentsOf: Self.configuration(directory).fileURL!)

        let wrong = Self.failure(Self.configuration(directory, key: Self.otherKey))
        #expect(wrong?.code == .invalidDatabase)
        #expect(wrong?.message.contains("encryption key is wrong") == true)
        let missing = Self.failure(Self.configuration(directory, key: nil))
        #expect(missing?.code == .invalidDatabase)
        #expect(missing?.message.contains("is encrypted") == true)
        let unexpected = Self.failure(Self.configuration(directory, "plain.realm"))
        #expect(unexpected?.code == .invalidDatabase)
        #expect(unexpected?.message.contains("not encrypted") == true)
        let short = Self.failure(Self.configuration(directory, "new.realm", key: Data(repeating: 7, count: 32)))
        #expect(short?.code == .invalidInput)
        #expect(short?.message.contains("must be exactly 64 bytes, got 32") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("new.realm").path), "nothing is created")

        #expect(try Data(contentsOf: Self.configuration(directory).fileURL!) == before)
        #expect(try Realm(configuration: Self.configuration(directory)).objects(SecretNote.self).count == 500)
    }

    @Test func aFileIsOpenedWithOneKeyPerProcess() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: Self.configuration(directory))
        for key in [nil, Self.otherKey] as [Data?] {
            let error = Self.failure(Self.configuration(directory, key: key))
            #expect(error?.code == .alreadyOpen)
            #expect(error?.message.contains("already opened with different encryption key") == true)
        }
        #expect(try Realm(configuration: Self.configuration(directory)).objects(SecretNote.self).count == 0)
        withExtendedLifetime(realm) {}
    }

    @Test func writeCopyEncryptsDecryptsAndRekeys() throws {
        let directory = try TemporaryDirectory()
        let plain = try Realm(configuration: Self.configuration(directory, "plain.realm", key: nil))
        try Self.fill(plain)
        let encryptedURL = directory.url.appendingPathComponent("encrypted.realm")
        try plain.writeCopy(toFile: encryptedURL, encryptionKey: Self.key)
        #expect(try !Self.fileContains(encryptedURL, Self.marker))

        let encrypted = try Realm(configuration: Self.configuration(directory, "encrypted.realm"))
        #expect(encrypted.objects(SecretNote.self).count == 500)
        try encrypted.writeCopy(configuration: Self.configuration(directory, "rekeyed.realm", key: Self.otherKey))
        try encrypted.writeCopy(toFile: directory.url.appendingPathComponent("decrypted.realm"))
        #expect(try Self.fileContains(directory.url.appendingPathComponent("decrypted.realm"), Self.marker))
        #expect(try Realm(configuration: Self.configuration(directory, "rekeyed.realm", key: Self.otherKey)).objects(SecretNote.self).count == 500)
        #expect(try Realm(configuration: Self.configuration(directory, "decrypted.realm", key: nil)).objects(SecretNote.self).count == 500)
        #expect(Self.failure(Self.configuration(directory, "rekeyed.realm"))?.code == .invalidDatabase)
        #expect(throws: Realm.Error.self) { try encrypted.writeCopy(toFile: directory.url.appendingPathComponent("bad.realm"), encryptionKey: Data(count: 12)) }
    }

    @Test func compactionOnLaunchKeepsTheFileEncrypted() throws {
        let directory = try TemporaryDirectory()
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            try Self.fill(realm, count: 2_000)
            try realm.write { realm.delete(realm.objects(SecretNote.self).filter("id >= 100")) }
        }
        let url = Self.configuration(directory).fileURL!
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        var configuration = Self.configuration(directory)
        configuration.shouldCompactOnLaunch = { _, _ in true }
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(SecretNote.self).count == 100)
        let after = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        #expect(after < before / 2)
        #expect(try !Self.fileContains(url, Self.marker))
        #expect(try schemaVersionAtURL(url, encryptionKey: Self.key) == 0)
    }

    @Test func anInMemoryRealmAcceptsAKeyAndIgnoresIt() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: "secret-\(UUID().uuidString)", encryptionKey: Self.key)
        configuration.objectTypes = [SecretNote.self]
        let realm = try Realm(configuration: configuration)
        try Self.fill(realm, count: 10)
        #expect(realm.objects(SecretNote.self).count == 10)
        configuration.encryptionKey = Data(count: 3)
        #expect(Self.failure(configuration)?.code == .invalidInput, "the length is still checked")
    }

    /// A copy taken inside a write transaction of an encrypted realm holds the uncommitted
    /// objects, encrypted with the copy's key.
    @Test func aCopyInsideAWriteOfAnEncryptedRealm() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: Self.configuration(directory))
        try Self.fill(realm, count: 100)
        let url = directory.url.appendingPathComponent("copy.realm")
        try realm.write {
            realm.create(SecretNote.self, value: ["id": 1_000, "title": "uncommitted"])
            try realm.writeCopy(toFile: url, encryptionKey: Self.otherKey)
            realm.cancelWrite()
        }
        let copy = try Realm(configuration: Self.configuration(directory, "copy.realm", key: Self.otherKey))
        #expect(copy.objects(SecretNote.self).count == 101)
        #expect(copy.object(ofType: SecretNote.self, forPrimaryKey: 1_000)?.title == "uncommitted")
        #expect(realm.objects(SecretNote.self).count == 100)
    }

    /// Many actors writing and reading one encrypted realm at once, each checking what it reads.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func actorsShareAnEncryptedRealm(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<6 {
                group.addTask {
                    try await EncryptedWriter(configuration: configuration).write(writer: writer, seed: seed)
                }
            }
            try await group.waitForAll()
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(SecretNote.self).count == 6 * 40)
        for note in realm.objects(SecretNote.self) {
            #expect(note.title == "\(Self.marker) \(note.id)")
            #expect(note.body == String(repeating: "x", count: note.id % 300))
        }
    }

    /// The user's scenario of issue 36: an encrypted realm copied with `cp` (a backup restored,
    /// a container image), then each copy opened and given a different 3,000-character note.
    /// Both copies write the same pages in the same transactions; the XOR of the two files must
    /// not show the XOR of the two notes (it did when counters were (transaction, page)).
    @Test func aCopiedRealmWrittenOnBothSidesRevealsNothing() throws {
        let directory = try TemporaryDirectory()
        let original = Self.configuration(directory)
        do { try Self.fill(Realm(configuration: original), count: 50) }
        let copyURL = directory.url.appendingPathComponent("copy.realm")
        try FileManager.default.copyItem(at: original.fileURL!, to: copyURL)
        let copy = Self.configuration(directory, "copy.realm")
        var random = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let notes = (0..<2).map { _ in String((0..<3_000).map { _ in letters[Int.random(in: 0..<letters.count, using: &random)] }) }
        for (configuration, note) in zip([original, copy], notes) {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(SecretNote.self, value: ["id": 1_000, "title": "the note", "body": note]) }
        }
        let files = try [original.fileURL!, copyURL].map { try [UInt8](Data(contentsOf: $0)) }
        let length = min(files[0].count, files[1].count)
        let filesXOR = Data((0..<length).map { files[0][$0] ^ files[1][$0] })
        let notesXOR = zip(Array(notes[0].utf8), Array(notes[1].utf8)).map { $0 ^ $1 }
        let leaked = stride(from: 0, to: 3_000 - 32, by: 50).filter { start in filesXOR.range(of: Data(notesXOR[start..<(start + 32)])) != nil }
        #expect(leaked.isEmpty, "the notes' XOR shows in the files' XOR at \(leaked.count) places")
        for (configuration, note) in zip([original, copy], notes) {
            #expect(try Realm(configuration: configuration).object(ofType: SecretNote.self, forPrimaryKey: 1_000)?.body == note)
        }
    }

}

/// One writer of `actorsShareAnEncryptedRealm`: its own objects, one per commit, reading all.
actor EncryptedWriter {
    let configuration: Realm.Configuration
    init(configuration: Realm.Configuration) { self.configuration = configuration }

    func write(writer: Int, seed: UInt64) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        for index in 0..<40 {
            let id = writer * 1_000 + index + Int(seed % 3) * 100
            try await realm.asyncWrite {
                realm.create(SecretNote.self, value: ["id": id, "title": "\(RealmEncryptionTests.marker) \(id)",
                                                      "body": String(repeating: "x", count: id % 300)])
            }
            for note in realm.objects(SecretNote.self).filter("id >= %@", writer * 1_000) where note.id < writer * 1_000 + 1_000 {
                precondition(note.title == "\(RealmEncryptionTests.marker) \(note.id)", "read another note's title")
            }
        }
    }
}
