import Foundation
import RealmActors
import Testing

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
    let workspace: InspectorWorkspace

    init() throws {
        workspace = try InspectorWorkspace()
    }

    static let count = 400
    static let objectTypes: [ObjectBase.Type] = [RCNode.self, RCTarget.self, RCKeyed.self]

    /// `count` nodes, node i linking to target i (map, mixed, mixed dictionary and list, list)
    /// and to keyed object i (mixed). Targets and keyed objects carry padding, so each class
    /// spans many table leaves.
    static func makeLinkedRealm(at path: String, encryptionKey: Data? = nil, count: Int = Self.count) throws {
        try InspectorWorkspace.makeRealm(at: path, encryptionKey: encryptionKey, objectTypes: objectTypes) { realm in
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
    }

    @Test func linksToLostObjectsComeOutNilAndAreCounted() throws {
        let path = workspace.path("linked.realm")
        try Self.makeLinkedRealm(at: path)
        // One leaf of the targets and one of the keyed objects: the nodes stay whole.
        let target = try #require(try InspectorWorkspace.tableLeaves(of: path, holding: "t17 ").first)
        let keyed = try #require(try InspectorWorkspace.tableLeaves(of: path, holding: "k230 ").first)
        try InspectorWorkspace.flipBits(inPage: target, of: path)
        try InspectorWorkspace.flipBits(inPage: keyed, of: path)

        let out = workspace.path("recovered.realm")
        let result = try workspace.recover(path, to: out)
        let (recovered, report, classes) = (result.outcome, result.report, result.classes)
        #expect(recovered.status == 1 && !recovered.crashed, "\(recovered.standardError)")
        #expect(classes["RCNode"]?["saved"] as? Int == Self.count, "\(recovered.standardOutput)")
        let targetsLost = try #require(classes["RCTarget"]?["lost"] as? Int), keyedLost = try #require(classes["RCKeyed"]?["lost"] as? Int)
        #expect(targetsLost > 0 && keyedLost > 0, "\(recovered.standardOutput)")

        let realm = try InspectorWorkspace.openReadOnly(out, objectTypes: Self.objectTypes)
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
        let keyFile = try workspace.keyFile(key, named: "key.hex", hex: true)
        // The same writes into a plaintext twin put every object on the same page (allocation
        // does not depend on encryption): its leaves say which page of the encrypted file to damage.
        let plain = workspace.path("plain.realm")
        let path = workspace.path("encrypted.realm")
        try Self.makeLinkedRealm(at: plain)
        try Self.makeLinkedRealm(at: path, encryptionKey: key)
        let target = try #require(try InspectorWorkspace.tableLeaves(of: plain, holding: "t17 ").first)

        // Intact: everything saved, the new file encrypted with the same key.
        let whole = workspace.path("whole.realm")
        let intact = try workspace.run("recover", path, whole, "--encryption-key-file", keyFile)
        #expect(intact.status == 0, "\(intact.standardError)")
        #expect(intact.lines.contains("  RCTarget: \(Self.count) saved, 0 lost"), "\(intact.standardOutput)")
        #expect(try workspace.run("count", whole, "RCTarget").status == 1, "the new file is not encrypted")
        let dumps = try [path, whole].map { try workspace.run("dump", $0, "--encryption-key-file", keyFile) }
        #expect(dumps[0].status == 0 && dumps[0].lines == dumps[1].lines)

        // Without the key, or with another: a message, no new file.
        let refused = workspace.path("refused.realm")
        let withoutKey = try workspace.run("recover", path, refused)
        #expect(withoutKey.status == 1 && withoutKey.standardError.contains("encrypted"), "\(withoutKey.standardError)")
        let otherKey = try workspace.keyFile(Data(repeating: 0x5A, count: 64), named: "other.key")
        let wrongKey = try workspace.run("recover", path, refused, "--encryption-key-file", otherKey)
        #expect(wrongKey.status == 1 && !wrongKey.crashed && wrongKey.standardError.hasPrefix("Error: "), "\(wrongKey.standardError)")
        #expect(!FileManager.default.fileExists(atPath: refused))

        // Damaged: the page's objects lost, the rest saved, links to the lost ones nil.
        try InspectorWorkspace.flipBits(inPage: target, of: path)
        let out = workspace.path("recovered.realm")
        let result = try workspace.recover(path, to: out, options: ["--encryption-key-file", keyFile])
        let (recovered, classes) = (result.outcome, result.classes)
        #expect(recovered.status == 1 && !recovered.crashed, "\(recovered.standardError)")
        #expect(recovered.standardError.contains("page \(target)"), "\(recovered.standardError)")
        let lost = try #require(classes["RCTarget"]?["lost"] as? Int)
        #expect(lost > 0 && classes["RCTarget"]?["saved"] as? Int == Self.count - lost, "\(recovered.standardOutput)")
        #expect(classes["RCNode"]?["saved"] as? Int == Self.count && classes["RCKeyed"]?["lost"] as? Int == 0)
        let realm = try InspectorWorkspace.openReadOnly(out, encryptionKey: key, objectTypes: Self.objectTypes)
        _ = try realm.checkIntegrity()
        #expect(realm.objects(RCTarget.self).count == Self.count - lost)
        #expect(realm.objects(RCNode.self).filter("byName['own'] == nil").count == lost)
    }

    @Test func aFileOfSeveralBatchesIsCopiedWhole() throws {
        // More objects of each class than one write transaction of the copy takes (2,000), with
        // links across batches both ways (node i links to target i, created in another batch).
        let path = workspace.path("large.realm")
        try Self.makeLinkedRealm(at: path, count: 2_500)
        let out = workspace.path("recovered.realm")
        let recovered = try workspace.run("recover", path, out)
        #expect(recovered.status == 0, "\(recovered.standardError)")
        #expect(recovered.lines.contains("  RCTarget: 2500 saved, 0 lost"), "\(recovered.standardOutput)")
        let before = try workspace.run("dump", path), after = try workspace.run("dump", out)
        #expect(before.status == 0 && after.status == 0 && before.lines.count == 1 + 3 * 2_500)
        #expect(before.lines == after.lines)
    }
}
