import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class WCTag: EmbeddedObject {
    @Persisted var label = ""
}

final class WCOrder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var customer = ""
    @Persisted var note = ""
    @Persisted var amounts: List<Double>
    @Persisted var tag: WCTag?
    @Persisted var next: WCOrder?
    @Persisted(originProperty: "next") var previous: LinkingObjects<WCOrder>
}

/// `writeCopy`: a compacted, complete copy of a handle's version, from any handle, while others write.
@Suite struct WriteCopyTests {
    static func configuration(_ directory: TemporaryDirectory, _ name: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent(name), objectTypes: [WCOrder.self, WCTag.self])
    }

    static func fill(_ realm: Realm, count: Int) throws {
        try realm.write {
            var previous: WCOrder?
            for id in 0..<count {
                let order = realm.create(WCOrder.self, value: ["id": id, "customer": "c\(id % 50)",
                                                               "note": String(repeating: "n", count: id % 7 == 0 ? 3_000 : 20),
                                                               "amounts": [Double(id), 1.5], "tag": ["label": "t\(id)"]])
                previous?.next = order
                previous = order
            }
        }
    }

    static func fileSize(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
    }

    @Test func theCopyHoldsEverythingAndIsCompact() throws {
        let directory = try TemporaryDirectory()
        let source = try Realm(configuration: Self.configuration(directory, "source.realm"))
        try Self.fill(source, count: 5_000)
        try source.write { source.delete(source.objects(WCOrder.self).filter("id >= 500")) }
        let copyConfiguration = Self.configuration(directory, "copy.realm")
        try source.writeCopy(configuration: copyConfiguration)

        let copy = try Realm(configuration: copyConfiguration)
        let orders = copy.objects(WCOrder.self)
        #expect(orders.count == 500)
        let seven = try #require(copy.object(ofType: WCOrder.self, forPrimaryKey: 7))
        #expect(seven.note.count == 3_000 && seven.amounts.map { $0 } == [7, 1.5] && seven.tag?.label == "t7")
        #expect(seven.next?.id == 8 && seven.previous.first?.id == 6)
        #expect(orders.where { $0.customer == "c3" }.count == 10, "the index answers in the copy")
        #expect(copy.objects(WCOrder.self).filter("id == 499").first?.next == nil, "the deleted object's link is gone")
        let sourceSize = try Self.fileSize(source.configuration.fileURL!)
        let copySize = try Self.fileSize(copyConfiguration.fileURL!)
        #expect(copySize * 4 < sourceSize, "copy \(copySize) bytes, source \(sourceSize)")
        // The copy takes writes like any realm.
        try copy.write { copy.add(WCOrder(value: ["id": 10_000])) }
        #expect(copy.objects(WCOrder.self).count == 501)
    }

    @Test func anExistingDestinationIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try Realm(configuration: Self.configuration(directory, "source.realm"))
        try Self.fill(source, count: 10)
        let destination = directory.url.appendingPathComponent("existing.realm")
        try Data("keep me".utf8).write(to: destination)
        let error = try #require(throws: Realm.Error.self) { try source.writeCopy(toFile: destination) }
        #expect(error.code == .fileExists)
        #expect(try Data(contentsOf: destination) == Data("keep me".utf8))
        #expect(throws: Realm.Error.self) { try source.writeCopy(configuration: Realm.Configuration(inMemoryIdentifier: "x")) }
    }

    @Test func insideAWriteTheCopyHasTheUncommittedChanges() throws {
        let directory = try TemporaryDirectory()
        let source = try Realm(configuration: Realm.Configuration(fileURL: directory.url.appendingPathComponent("source.realm")))
        let destination = directory.url.appendingPathComponent("copy.realm")
        source.beginWrite()
        source.add(WCOrder(value: ["id": 1, "customer": "new"]))  // the class's first use
        try source.writeCopy(toFile: destination)
        source.cancelWrite()
        #expect(source.objects(WCOrder.self).isEmpty)
        let copy = try Realm(configuration: Realm.Configuration(fileURL: destination))
        #expect(copy.object(ofType: WCOrder.self, forPrimaryKey: 1)?.customer == "new")
    }

    @Test func aBackupIsTakenWhileAnotherActorWrites() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(directory, "live.realm")
        let realm = try await Realm.open(configuration: configuration)
        try Self.fill(realm, count: 1_000)
        let writer = Task.detached {
            let other = try await Realm.open(configuration: configuration)
            for round in 0..<50 {
                try await other.asyncWrite {
                    for id in 0..<20 { other.create(WCOrder.self, value: ["id": 1_000 + round * 20 + id], update: .modified) }
                }
            }
        }
        var copies: [Int] = []
        for index in 0..<3 {
            let url = directory.url.appendingPathComponent("backup-\(index).realm")
            let frozen = realm.freeze()
            try frozen.realm().writeCopy(toFile: url)
            let copy = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [WCOrder.self, WCTag.self]))
            #expect(copy.objects(WCOrder.self).count == frozen.objects(WCOrder.self).count)
            copies.append(copy.objects(WCOrder.self).count)
            _ = await realm.asyncRefresh()
        }
        try await writer.value
        #expect(copies.allSatisfy { $0 >= 1_000 && $0 <= 2_000 })
    }
}
