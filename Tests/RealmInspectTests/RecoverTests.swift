import Foundation
import RealmActors
import Testing
import RealmTestSupport

/// A class without a primary key (links to it are `$id`s in the dump), in many leaves.
final class RCTarget: Object {
    @Persisted var name = ""
    @Persisted var padding = ""
}

/// A class with a primary key, linked only through mixed values.
final class RCKeyed: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var padding = ""
}

/// Links of every kind `recover` must drop when their target was lost: a map of links, a mixed
/// link, a mixed dictionary and a mixed list holding links, a list of links.
final class RCNode: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var byName: Map<String, RCTarget?>
    @Persisted var any: AnyRealmValue = .none
    @Persisted var keyed: AnyRealmValue = .none
    @Persisted var nested: AnyRealmValue = .none
    @Persisted var targets: List<RCTarget>
}

/// `realm-inspect recover` on what the damage corpus does not reach: encrypted files (the key
/// given as to every command, the new file encrypted with it), maps of links and mixed links
/// to objects that were lost (each left out as nil and counted, never a trap or a dangling
/// link), and a file large enough to be copied in several batches.
@Suite struct RecoverTests {
    let directory: TemporaryDirectory
    let inspector: InspectorProcess

    init() throws {
        directory = try TemporaryDirectory()
        inspector = InspectorProcess(directory: directory.url)
    }

    static let pageSize = 4096
    static let count = 400

    /// `count` nodes, node i linking to target i (map, mixed, mixed dictionary and list, list)
    /// and to keyed object i (mixed). Targets and keyed objects carry padding, so each class
    /// spans many table leaves.
    func makeLinkedRealm(at path: String, encryptionKey: Data? = nil, count: Int = Self.count) throws -> Realm.Configuration {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), encryptionKey: encryptionKey,
                                                objectTypes: [RCNode.self, RCTarget.self, RCKeyed.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0..<count {
                let target = RCTarget(value: ["name": "target \(id)", "padding": String(repeating: "t\(id) ", count: 30)])
                let keyed = RCKeyed(value: ["id": id, "padding": String(repeating: "k\(id) ", count: 30)])
                let node = RCNode()
                node.id = id
                realm.add([target, keyed, node])
                node.byName["own"] = target
                node.byName["none"] = RCTarget?.none
                node.any = .object(target)
                node.keyed = .object(keyed)
                node.nested = AnyRealmValue.fromDictionary(["link": .object(target), "list": .fromArray([.object(keyed), .int(id)])])
                node.targets.append(target)
            }
        }
        return configuration
    }

    /// The table leaves (page kind 6) of the plaintext file at `path` that hold `marker`.
    static func leaves(of path: String, holding marker: String) throws -> [Int] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (2..<data.count / pageSize).filter { page in
            let bytes = data[page * pageSize..<(page + 1) * pageSize]
            return bytes[bytes.startIndex + 16] == 6 && bytes.range(of: Data(marker.utf8)) != nil
        }
    }

    static func flipBit(inPage page: Int, of path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[page * pageSize + 200] ^= 0x10
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The report's classes by name.
    static func classes(_ report: [String: Any]) -> [String: [String: Any]] {
        Dictionary(uniqueKeysWithValues: (report["classes"] as? [[String: Any]] ?? []).map { ($0["class"] as? String ?? "", $0) })
    }

    @Test func linksToLostObjectsComeOutNilAndAreCounted() throws {
        let path = directory.url.appendingPathComponent("linked.realm").path
        _ = try makeLinkedRealm(at: path)
        // One leaf of the targets and one of the keyed objects: the nodes stay whole.
        let target = try #require(try Self.leaves(of: path, holding: "t17 ").first)
        let keyed = try #require(try Self.leaves(of: path, holding: "k230 ").first)
        try Self.flipBit(inPage: target, of: path)
        try Self.flipBit(inPage: keyed, of: path)

        let out = directory.url.appendingPathComponent("recovered.realm").path
        let recovered = try inspector.run("recover", path, out, "--format", "json")
        #expect(recovered.status == 1 && !recovered.crashed, "\(recovered.standardError)")
        let report = try InspectorTests.jsonObject(recovered.lines.first ?? "")
        let classes = Self.classes(report)
        #expect(classes["RCNode"]?["saved"] as? Int == Self.count, "\(recovered.standardOutput)")
        let targetsLost = try #require(classes["RCTarget"]?["lost"] as? Int), keyedLost = try #require(classes["RCKeyed"]?["lost"] as? Int)
        #expect(targetsLost > 0 && keyedLost > 0, "\(recovered.standardOutput)")

        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: out), readOnly: true,
                                                                 objectTypes: [RCNode.self, RCTarget.self, RCKeyed.self]))
        _ = try realm.checkIntegrity()
        let targets = Set(realm.objects(RCTarget.self).map(\.name)), keyedIDs = Set(realm.objects(RCKeyed.self).map(\.id))
        #expect(targets.count == Self.count - targetsLost && keyedIDs.count == Self.count - keyedLost)
        #expect(realm.objects(RCNode.self).count == Self.count)
        for node in realm.objects(RCNode.self) {
            let saved = targets.contains("target \(node.id)"), keySaved = keyedIDs.contains(node.id)
            // A saved target is linked as before; a lost one is nil (the map keeps its key).
            #expect(node.byName.count == 2 && node.byName["none"] == .some(nil))
            #expect(node.byName["own"]??.name == (saved ? "target \(node.id)" : nil), "node \(node.id)")
            #expect(node.any.object(RCTarget.self)?.name == (saved ? "target \(node.id)" : nil), "node \(node.id)")
            if !saved { #expect(node.any == .none, "node \(node.id)") }
            #expect(node.keyed.object(RCKeyed.self)?.id == (keySaved ? node.id : nil), "node \(node.id)")
            #expect(Array(node.targets.map(\.name)) == (saved ? ["target \(node.id)"] : []), "node \(node.id)")
            let nested = node.nested.dictionaryValue
            #expect(nested?["link"]?.object(RCTarget.self)?.name == (saved ? "target \(node.id)" : nil), "node \(node.id)")
            let list = nested?["list"]?.listValue.map(Array.init) ?? []
            #expect(list.count == 2 && list.last == .int(node.id), "node \(node.id)")
            #expect(list.first?.object(RCKeyed.self)?.id == (keySaved ? node.id : nil), "node \(node.id)")
        }
        // Each link to a lost object counted once: a target's five links (map, mixed, the mixed
        // dictionary, the list), a keyed object's two (mixed, the mixed list).
        #expect(report["droppedLinks"] as? Int == 4 * targetsLost + 2 * keyedLost, "\(recovered.standardOutput)")
    }

    @Test func anEncryptedFileIsRecoveredWithItsKey() throws {
        let key = Data((0..<64).map { UInt8(($0 * 7 + 1) & 0xFF) })
        let keyFile = directory.url.appendingPathComponent("key.hex")
        try Data((key.map { String(format: "%02x", $0) }.joined() + "\n").utf8).write(to: keyFile)
        // The same writes into a plaintext twin put every object on the same page (allocation
        // does not depend on encryption): its leaves say which page of the encrypted file to damage.
        let plain = directory.url.appendingPathComponent("plain.realm").path
        let path = directory.url.appendingPathComponent("encrypted.realm").path
        _ = try makeLinkedRealm(at: plain)
        _ = try makeLinkedRealm(at: path, encryptionKey: key)
        let target = try #require(try Self.leaves(of: plain, holding: "t17 ").first)

        // Intact: everything saved, the new file encrypted with the same key.
        let whole = directory.url.appendingPathComponent("whole.realm").path
        let intact = try inspector.run("recover", path, whole, "--encryption-key-file", keyFile.path)
        #expect(intact.status == 0, "\(intact.standardError)")
        #expect(intact.lines.contains("  RCTarget: \(Self.count) saved, 0 lost"), "\(intact.standardOutput)")
        #expect(try inspector.run("count", whole, "RCTarget").status == 1, "the new file is not encrypted")
        let dumps = try [path, whole].map { try inspector.run("dump", $0, "--encryption-key-file", keyFile.path) }
        #expect(dumps[0].status == 0 && dumps[0].lines == dumps[1].lines)

        // Without the key, or with another: a message, no new file.
        let refused = directory.url.appendingPathComponent("refused.realm").path
        let withoutKey = try inspector.run("recover", path, refused)
        #expect(withoutKey.status == 1 && withoutKey.standardError.contains("encrypted"), "\(withoutKey.standardError)")
        let otherKey = directory.url.appendingPathComponent("other.key")
        try Data(repeating: 0x5A, count: 64).write(to: otherKey)
        let wrongKey = try inspector.run("recover", path, refused, "--encryption-key-file", otherKey.path)
        #expect(wrongKey.status == 1 && !wrongKey.crashed && wrongKey.standardError.hasPrefix("Error: "), "\(wrongKey.standardError)")
        #expect(!FileManager.default.fileExists(atPath: refused))

        // Damaged: the page's objects lost, the rest saved, links to the lost ones nil.
        try Self.flipBit(inPage: target, of: path)
        let out = directory.url.appendingPathComponent("recovered.realm").path
        let recovered = try inspector.run("recover", path, out, "--encryption-key-file", keyFile.path, "--format", "json")
        #expect(recovered.status == 1 && !recovered.crashed, "\(recovered.standardError)")
        #expect(recovered.standardError.contains("page \(target)"), "\(recovered.standardError)")
        let classes = Self.classes(try InspectorTests.jsonObject(recovered.lines.first ?? ""))
        let lost = try #require(classes["RCTarget"]?["lost"] as? Int)
        #expect(lost > 0 && classes["RCTarget"]?["saved"] as? Int == Self.count - lost, "\(recovered.standardOutput)")
        #expect(classes["RCNode"]?["saved"] as? Int == Self.count && classes["RCKeyed"]?["lost"] as? Int == 0)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: out), encryptionKey: key, readOnly: true,
                                                                 objectTypes: [RCNode.self, RCTarget.self, RCKeyed.self]))
        _ = try realm.checkIntegrity()
        #expect(realm.objects(RCTarget.self).count == Self.count - lost)
        #expect(realm.objects(RCNode.self).filter("byName['own'] == nil").count == lost)
    }

    @Test func aFileOfSeveralBatchesIsCopiedWhole() throws {
        // More objects of each class than one write transaction of the copy takes (2,000), with
        // links across batches both ways (node i links to target i, created in another batch).
        let path = directory.url.appendingPathComponent("large.realm").path
        _ = try makeLinkedRealm(at: path, count: 2_500)
        let out = directory.url.appendingPathComponent("recovered.realm").path
        let recovered = try inspector.run("recover", path, out)
        #expect(recovered.status == 0, "\(recovered.standardError)")
        #expect(recovered.lines.contains("  RCTarget: 2500 saved, 0 lost"), "\(recovered.standardOutput)")
        let before = try inspector.run("dump", path), after = try inspector.run("dump", out)
        #expect(before.status == 0 && after.status == 0 && before.lines.count == 1 + 3 * 2_500)
        #expect(before.lines == after.lines)
    }
}
