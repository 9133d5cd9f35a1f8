import Foundation
import Testing
import RealmActors
import RealmRuntime
import RealmTestSupport

final class ICTag: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted(indexed: true) var rank = 0
}

final class ICNode: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var tag: ICTag?
    @Persisted var next: ICNode?
    @Persisted var children: List<ICNode>
    @Persisted var tags: MutableSet<ICTag>
    @Persisted var byName: Map<String, ICNode?>
    @Persisted var anything: AnyRealmValue
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted(originProperty: "children") var parents: LinkingObjects<ICNode>
}

/// ``Realm/checkIntegrity()`` past the pages: links, indexes and columns. A check that passed a
/// file whose reads then trapped was a fuzz finding; a check that fails a sound file would take
/// good files out of service, so the random workload below must pass it.
@Suite struct IntegrityCheckTests {
    static func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent("check.realm"), objectTypes: [ICTag.self, ICNode.self])
    }

    /// Every kind of link and index, written, rewritten and deleted at random (deleting an
    /// object unlinks it everywhere, nested mixed collections included): the file passes.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aRandomWorkloadOfLinksAndIndexesPasses(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: Self.configuration(directory))
        var random = SplitMix64(seed: seed)
        func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        for round in 0..<40 {
            try realm.write {
                for _ in 0..<10 {
                    let id = below(60)
                    let node = realm.object(ofType: ICNode.self, forPrimaryKey: id) ?? realm.create(ICNode.self, value: ["id": id])
                    let tag = realm.create(ICTag.self, value: ["code": "t\(below(30))", "rank": below(5)], update: .modified)
                    let other = realm.objects(ICNode.self).randomElement(using: &random)
                    switch below(6) {
                    case 0: node.tag = tag; node.next = other
                    case 1: if let other { node.children.append(other) }
                    case 2: node.tags.insert(tag); node.byName["k\(below(4))"] = other
                    case 3: node.anything = other.map { .object($0) } ?? .string("none")
                    case 4: node.mixedList.append(.fromArray([.object(tag), .fromDictionary(["n": other.map { .object($0) } ?? .none])]))
                    default: break
                    }
                }
                if round % 3 == 2 {
                    for _ in 0..<4 {
                        if let victim = realm.objects(ICNode.self).randomElement(using: &random) { realm.delete(victim) }
                        if let victim = realm.objects(ICTag.self).randomElement(using: &random) { realm.delete(victim) }
                    }
                }
            }
        }
        #expect(!realm.objects(ICNode.self).isEmpty)
        #expect(throws: Never.self) { try realm.checkIntegrity() }
        #expect(throws: Never.self) { try realm.checkIntegrity(ofClasses: ["ICNode"]) }
    }

    /// An index entry whose object key was changed (the page resealed, its keys still in order):
    /// a lookup by primary key found an object that is not there, and reading it trapped. The
    /// check compares every index with its table.
    @Test func anIndexEntryForAMissingObjectFailsTheCheck() throws {
        let directory = try TemporaryDirectory()
        let url: URL
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            try realm.write {
                for code in ["apple", "banana", "cherry"] { realm.add(ICTag(value: ["code": code])) }
            }
            url = try #require(realm.configuration.fileURL)
        }
        var bytes = [UInt8](try Data(contentsOf: url))
        let pageSize = PageLayout.pageSize
        let marker = Array("banana".utf8)
        // The index leaf holding "banana": change the last byte of that entry's object key.
        let (page, end) = try #require((2..<(bytes.count / pageSize)).lazy.compactMap { page -> (Int, Int)? in
            guard bytes[page * pageSize + PageLayout.kindOffset] == PageKind.indexLeaf.rawValue else { return nil }
            return bytes.withUnsafeBytes { buffer in
                let leaf = IndexPage(buffer.baseAddress! + page * pageSize)
                return (0..<leaf.count).lazy.map { leaf.key($0) }.first { $0.starts(with: [0x01] + marker) || $0.dropFirst().starts(with: marker) }
                    .map { (page, $0.baseAddress! + $0.count - buffer.baseAddress!) }
            }
        }.first)
        bytes[end - 1] &+= 100
        bytes.withUnsafeMutableBytes { PageChecksum.seal($0.baseAddress! + page * pageSize, length: pageSize) }
        try Data(bytes).write(to: url)

        let realm = try Realm(configuration: Self.configuration(directory))
        let error = #expect(throws: Realm.Error.self) { try realm.checkIntegrity() }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.localizedDescription.contains("index 'ICTag.code' lacks the entry of object") == true, "\(String(describing: error))")
        #expect(error?.localizedDescription.contains("index 'ICTag.code' holds 1 entries no object has") == true, "\(String(describing: error))")
        let classes = #expect(throws: Realm.Error.self) { try realm.checkIntegrity(ofClasses: ["ICTag"]) }
        #expect(classes?.localizedDescription.contains("index 'ICTag.code'") == true)
    }
}
