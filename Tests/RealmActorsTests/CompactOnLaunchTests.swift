import Foundation
import Testing
import RealmActors
import RealmRuntime  // `Lock`, the package's lock (a pthread mutex TSan sees in a sanitizer build)
import RealmTestSupport

/// `shouldCompactOnLaunch`: asked on a file's first open in the process with its total and used
/// bytes; a true answer shrinks the file to about its live size and keeps every object.
@Suite struct CompactOnLaunchTests {
    static func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent("orders.realm"), objectTypes: [WCOrder.self, WCTag.self])
    }

    static func size(_ configuration: Realm.Configuration) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: configuration.fileURL!.path)[.size] as! Int
    }

    @Test func aMostlyDeletedFileShrinksToItsLiveSize() throws {
        let directory = try TemporaryDirectory()
        var configuration = Self.configuration(directory)
        do {
            let realm = try Realm(configuration: configuration)
            try WriteCopyTests.fill(realm, count: 5_000)
            try realm.write { realm.delete(Array(realm.objects(WCOrder.self)).filter { $0.id % 10 != 0 }) }
        }
        let before = try Self.size(configuration)
        let asked = Lock<[(Int, Int)]>([])
        configuration.shouldCompactOnLaunch = { total, used in
            asked.withLock { $0.append((total, used)) }
            return used * 2 < total
        }
        do {
            let realm = try Realm(configuration: configuration)
            let second = try Realm(configuration: configuration)  // already open: not asked again
            #expect(realm.objects(WCOrder.self).count == 500 && second.objects(WCOrder.self).count == 500)
            #expect(realm.object(ofType: WCOrder.self, forPrimaryKey: 70)?.next == nil)
            #expect(realm.objects(WCOrder.self).where { $0.customer == "c20" }.count == 100)
            try realm.write { realm.add(WCOrder(value: ["id": 9_999])) }
        }
        let calls = asked.withLock { $0 }
        #expect(calls.count == 1)
        let (total, used) = try #require(calls.first)
        #expect(total == before && used < total / 4, "asked with \(total), \(used)")
        let after = try Self.size(configuration)
        #expect(after < before / 4 && after <= used + 64 * 1024, "\(before) → \(after) bytes; live \(used)")

        // A false answer leaves the file alone; read-only and in-memory realms are never asked.
        configuration.shouldCompactOnLaunch = { _, _ in false }
        _ = try Realm(configuration: configuration)
        #expect(try Self.size(configuration) >= after)
        var readOnly = configuration
        readOnly.readOnly = true
        readOnly.shouldCompactOnLaunch = { _, _ in Issue.record("asked for a read-only realm"); return true }
        #expect(try Realm(configuration: readOnly).objects(WCOrder.self).count == 501)
        var inMemory = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        inMemory.shouldCompactOnLaunch = { _, _ in Issue.record("asked for an in-memory realm"); return true }
        _ = try Realm(configuration: inMemory)
    }
}

/// Steady update churn through the public API: freed pages are reused, so the file stays within a
/// small multiple of its live size however many commits run.
@Suite struct FileSizeUnderChurnTests {
    @Test func steadyUpdatesKeepTheFileNearItsLiveSize() throws {
        let directory = try TemporaryDirectory()
        let configuration = CompactOnLaunchTests.configuration(directory)
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0..<2_000 { realm.create(WCOrder.self, value: ["id": id, "customer": "c\(id % 50)", "note": String(repeating: "x", count: 200)]) }
        }
        var sizes: [Int] = []
        for round in 0..<300 {
            try realm.write {
                for id in stride(from: round % 20, to: 2_000, by: 20) {
                    realm.object(ofType: WCOrder.self, forPrimaryKey: id)?.note = String(repeating: Character(UnicodeScalar(97 + round % 26)!), count: 200)
                }
            }
            sizes.append(try CompactOnLaunchTests.size(configuration))
        }
        let warm = sizes[49]
        let largest = sizes[50...].max()!
        #expect(largest <= warm + warm / 10, "after warm-up \(warm) bytes, later up to \(largest)")
        // Compared with a compacted copy: the churned file is within a small multiple of the live data.
        let copy = directory.url.appendingPathComponent("live.realm")
        try realm.writeCopy(toFile: copy)
        let live = try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as! Int
        #expect(largest <= 4 * live, "churned file \(largest) bytes, live copy \(live)")
    }
}
