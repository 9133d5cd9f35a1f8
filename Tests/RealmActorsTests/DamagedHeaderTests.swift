import Foundation
import Testing
import RealmActors
import RealmTestSupport

/// Opening a realm whose meta pages, catalog or schema are damaged: `Realm(configuration:)` and
/// `Realm.open` throw `invalidDatabase` naming the page, never trap. (The pages are found by
/// reading the file as FORMAT.md lays it out: the newest meta page's catalog root, the catalog
/// leaf's entry for the schema tree.)
@Suite struct DamagedHeaderTests {
    static let pageSize = 4_096

    /// A closed realm of 500 dogs (so its catalog holds the schema tree, the dogs' table and an index).
    static func realm(in directory: TemporaryDirectory) throws -> Realm.Configuration {
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("dogs.realm"), objectTypes: [DamagedDog.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0..<500 { realm.add(DamagedDog(value: ["id": id, "name": "dog \(id)", "age": id % 20])) }
        }
        return configuration
    }

    static func u64(_ data: Data, _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(data[offset + $1]) << (8 * UInt64($1)) }
    }

    static func u16(_ data: Data, _ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }

    /// The newest meta page (0 or 1): the one with the higher transaction id.
    static func newestMeta(_ data: Data) -> Int {
        u64(data, 40) >= u64(data, pageSize + 40) ? 0 : 1
    }

    /// The catalog's root page, from the newest meta page.
    static func catalogRoot(_ data: Data) -> Int {
        Int(u64(data, newestMeta(data) * pageSize + 64))
    }

    /// The root page of the schema tree (tree 1): its entry in the catalog's root leaf.
    static func schemaRoot(_ data: Data) throws -> Int {
        let catalog = catalogRoot(data) * pageSize
        try #require(data[catalog + 16] == 3, "the catalog's root is not a leaf")
        for slot in 0..<u16(data, catalog + 18) {
            let at = catalog + 24 + 12 * slot
            if u64(data, at) == 1 { return Int(u64(data, catalog + u16(data, at + 8))) }
        }
        throw CancellationError()
    }

    /// Zeroes page `page` of the file.
    static func zero(page: Int, of configuration: Realm.Configuration) throws {
        var data = try Data(contentsOf: configuration.fileURL!)
        data.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: Data(count: pageSize))
        try data.write(to: configuration.fileURL!)
    }

    /// Both ways of opening throw `invalidDatabase` whose message contains `expected`.
    static func expectRefused(_ configuration: Realm.Configuration, naming expected: String) async {
        let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
        #expect(error?.code == .invalidDatabase, "\(String(describing: error))")
        #expect(error?.localizedDescription.contains(expected) == true, "\(String(describing: error?.localizedDescription))")
        await #expect(throws: Realm.Error.self) { _ = try await Realm.open(configuration: configuration) }
    }

    @Test func bothMetaPagesDamaged() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.realm(in: directory)
        try Self.zero(page: 0, of: configuration)
        try Self.zero(page: 1, of: configuration)
        await Self.expectRefused(configuration, naming: "pages 0 and 1")
    }

    @Test func bothMetaPagesFailTheirChecksum() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.realm(in: directory)
        var data = try Data(contentsOf: configuration.fileURL!)
        data[300] ^= 0x01
        data[Self.pageSize + 300] ^= 0x01
        try data.write(to: configuration.fileURL!)
        await Self.expectRefused(configuration, naming: "pages 0 and 1")
    }

    @Test func oneMetaPageDamagedOpensTheOther() throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.realm(in: directory)
        let data = try Data(contentsOf: configuration.fileURL!)
        try Self.zero(page: Self.newestMeta(data), of: configuration)
        // The older meta holds an older version (the schema's, before the dogs): it opens.
        _ = try Realm(configuration: configuration)
    }

    @Test func catalogPageDamaged() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.realm(in: directory)
        let page = Self.catalogRoot(try Data(contentsOf: configuration.fileURL!))
        try Self.zero(page: page, of: configuration)
        await Self.expectRefused(configuration, naming: "page \(page)")
    }

    @Test func schemaPageDamaged() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try Self.realm(in: directory)
        let page = try Self.schemaRoot(try Data(contentsOf: configuration.fileURL!))
        var data = try Data(contentsOf: configuration.fileURL!)
        data[page * Self.pageSize + 2_000] ^= 0x10  // one bit: the checksum tells
        try data.write(to: configuration.fileURL!)
        await Self.expectRefused(configuration, naming: "page \(page)")
    }
}
