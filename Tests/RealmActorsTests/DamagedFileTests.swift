import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class DamagedDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

/// A table page damaged on disk (here: a leaf whose row count exceeds its capacity), found by a
/// query: where the API throws, the damage is a `Realm.Error`; where it cannot, the process traps
/// with a message naming the file, the page and what was wrong — it never reads past the page.
@Suite struct DamagedFileTests {
    /// A realm of 3,000 dogs, closed; returns its configuration and the page numbers of its
    /// table leaves.
    static func damagedRealm(in folder: URL) throws -> Realm.Configuration {
        let configuration = Realm.Configuration(fileURL: folder.appendingPathComponent("dogs.realm"),
                                                objectTypes: [DamagedDog.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for id in 0..<3_000 { realm.add(DamagedDog(value: ["id": id, "name": "dog \(id)", "age": id % 20])) }
            }
        }
        // Every table leaf (page kind 6) gets a row count far past its capacity. The file was
        // closed cleanly, so opening it checks nothing: the damage is met by the query.
        var data = try Data(contentsOf: configuration.fileURL!)
        let pageSize = 4_096
        var damaged = 0
        data.withUnsafeMutableBytes { bytes in
            for page in 2..<(bytes.count / pageSize) where bytes[page * pageSize + 16] == 6 {
                bytes[page * pageSize + 18] = 0xFF
                bytes[page * pageSize + 19] = 0xFF
                damaged += 1
            }
        }
        #expect(damaged > 10)
        try data.write(to: configuration.fileURL!)
        return configuration
    }

    @Test func aQueryThatCannotThrowTrapsNamingTheFileAndThePage() async throws {
        // The directory is the parent's, so that it is removed after the child traps.
        let temporary = try TemporaryDirectory()
        let path = temporary.url.path
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let configuration = try Self.damagedRealm(in: URL(fileURLWithPath: path))
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(DamagedDog.self).filter("age > 3").count
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("dogs.realm is damaged"), "\(message)")
            #expect(message.contains("page"), "\(message)")
            #expect(message.contains("'DamagedDog'"), "\(message)")  // what the page belongs to
        }
    }

    @Test func readableObjectsSkipTheDamagedPagesAndCountWhatTheyHeld() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("dogs.realm"), objectTypes: [DamagedDog.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for id in 0..<3_000 { realm.add(DamagedDog(value: ["id": id, "name": "dog \(id)", "age": id % 20])) }
            }
            let intact = try realm.readableObjects(ofClass: "DamagedDog")
            #expect(intact.objects.count == 3_000 && intact.lost == 0 && intact.damage.isEmpty)
        }
        // One bit of the second table leaf: the dogs of the others stay readable.
        var data = try Data(contentsOf: configuration.fileURL!)
        let leaves = (2..<(data.count / 4_096)).filter { data[$0 * 4_096 + 16] == 6 }
        try #require(leaves.count > 2)
        data[leaves[1] * 4_096 + 3_000] ^= 0x01
        try data.write(to: configuration.fileURL!)

        let realm = try Realm(configuration: configuration)
        let readable = try realm.readableObjects(ofClass: "DamagedDog")
        #expect(readable.lost > 0 && readable.objects.count + readable.lost == 3_000, "\(readable.objects.count) + \(readable.lost)")
        #expect(readable.damage.count == 1 && readable.damage[0].contains("page \(leaves[1])") && readable.damage[0].contains("'DamagedDog'"),
                "\(readable.damage)")
        // Every object returned reads without meeting the damage.
        for object in readable.objects { #expect((object["name"] as? String) == "dog \(object["id"] as? Int ?? -1)") }
        #expect(throws: Realm.Error.self) { try realm.checkIntegrity(ofClasses: ["DamagedDog"]) }
        #expect(throws: Realm.Error.self) { try realm.readableObjects(ofClass: "Cat") }
    }

    @Test func aWriteThatMeetsTheDamageThrowsAndTheFileKeepsItsData() throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.damagedRealm(in: directory.url)
        let realm = try Realm(configuration: configuration)
        let error = #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(DamagedDog(value: ["id": 1_500, "name": "again"]), update: .modified) }
        }
        #expect(error?.code == .invalidDatabase, "\(String(describing: error))")
        #expect(error?.localizedDescription.contains("damaged") == true, "\(String(describing: error))")
    }
}
