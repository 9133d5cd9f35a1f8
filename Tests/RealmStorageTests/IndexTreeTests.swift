import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

@Suite struct IndexTreeTests {
    /// Random inserts and removes against a sorted-set model; scans must return the model's order.
    @Test(arguments: 0..<8)
    func randomKeysMatchASortedModel(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        var database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        var generator = SplitMix64(seed: seed)
        var model = Set<[UInt8]>()
        var index: TreeID = 0
        for round in 0..<6 {
            let write = try database.beginWrite()
            if round == 0 { index = try write.createTree() }
            for _ in 0..<1200 {
                // Variable lengths (some long) over a small alphabet, so prefixes collide.
                let length = generator.next() % 10 == 0 ? Int(generator.next() % 400) : Int(generator.next() % 12)
                let value = (0..<length).map { _ in UInt8(generator.next() % 4) }
                let key = IndexKey.key(IndexKey.bytes(value), objectKey: generator.next() % 50)
                if generator.next() % 3 == 0, let existing = model.randomElement(using: &generator) {
                    #expect(try write.indexRemove(index, key: existing))
                    model.remove(existing)
                } else {
                    try write.indexInsert(index, key: key)  // buffered; a repeated key must not count twice
                    model.insert(key)
                }
            }
            #expect(try write.count(of: index) == UInt64(model.count))
            try write.commit()
            do {
                let read = try database.beginRead()
                var scanned: [[UInt8]] = []
                try read.indexScan(read.root(of: index), from: UnsafeRawBufferPointer(start: nil, count: 0)) {
                    scanned.append(Array($0))
                    return true
                }
                let expected = model.sorted { a, b in a.lexicographicallyPrecedes(b) }
                #expect(scanned == expected)
            }
            #expect(try database.verify().entries == UInt64(model.count))
            if round == 2 {
                try database.close()
                database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
            }
        }
        let write = try database.beginWrite()
        for key in model { #expect(try write.indexRemove(index, key: key)) }
        #expect(try write.root(of: index).isEmpty)
        try write.commit()
        #expect(try database.verify().entries == 0)
    }

    /// The encodings must order like the values they encode.
    @Test func encodingsPreserveOrder() {
        var generator = SplitMix64(seed: 42)
        let ints: [Int64] = [.min, -1_000_000, -1, 0, 1, 255, 256, 1 << 40, .max]
            + (0..<200).map { _ in Int64(bitPattern: generator.next()) }
        for a in ints { for b in ints.prefix(20) {
            #expect((a < b) == IndexKey.int(a).lexicographicallyPrecedes(IndexKey.int(b)))
        } }
        let doubles: [Double] = [-.infinity, -1e300, -1, -Double.leastNonzeroMagnitude, 0, Double.leastNonzeroMagnitude, 0.5, 1, 1e300, .infinity]
        for (i, a) in doubles.enumerated() { for (j, b) in doubles.enumerated() {
            #expect((i < j) == IndexKey.double(a).lexicographicallyPrecedes(IndexKey.double(b)))
        } }
        #expect(IndexKey.double(-0.0) == IndexKey.double(0))
        let strings = ["", "\0", "\0\0", "a", "a\0", "a\0b", "ab", "b", "é"].map { Array($0.utf8) }
        for (i, a) in strings.enumerated() { for (j, b) in strings.enumerated() {
            #expect((i < j) == IndexKey.bytes(a).lexicographicallyPrecedes(IndexKey.bytes(b)), "\(a) \(b)")
        } }
        // Full index keys: object keys order within a value and never across values (a string's
        // terminator and the length byte sort below any continuation, NUL bytes included).
        let objectKeys: [UInt64] = [0, 1, 255, 256, 65_535, 65_536, 1 << 24, 1 << 40, .max - 1, .max]
        for value in strings.map({ IndexKey.bytes($0) }) + [IndexKey.int(7), IndexKey.null()] {
            for (i, a) in objectKeys.enumerated() {
                let key = IndexKey.key(value, objectKey: a)
                #expect(key.withUnsafeBytes { IndexKey.objectKey(of: $0, valueLength: value.count) } == a)
                for b in objectKeys[(i + 1)...] {
                    #expect(key.lexicographicallyPrecedes(IndexKey.key(value, objectKey: b)), "\(a) \(b)")
                }
            }
        }
        for (i, a) in strings.enumerated() { for (j, b) in strings.enumerated() where i < j {
            for x in objectKeys { for y in objectKeys {
                #expect(IndexKey.key(IndexKey.bytes(a), objectKey: x).lexicographicallyPrecedes(IndexKey.key(IndexKey.bytes(b), objectKey: y)),
                        "\(a) \(x) \(b) \(y)")
            } }
        } }
        #expect(IndexKey.null().lexicographicallyPrecedes(IndexKey.int(.min)))
        #expect(IndexKey.bool(false).lexicographicallyPrecedes(IndexKey.bool(true)))
    }

    /// Equal values group together; lookups return their object keys in order.
    @Test func equalityLookupFindsEveryObjectWithTheValue() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let index = try write.createTree()
        for objectKey in 0..<UInt64(3000) {
            let email = "user\(objectKey % 1000)@example.com"
            try write.indexInsert(index, key: IndexKey.key(IndexKey.bytes(email), objectKey: objectKey))
        }
        try write.commit()
        let read = try database.beginRead()
        let root = try read.root(of: index)
        #expect(try read.indexObjectKeys(root, matching: IndexKey.bytes("user7@example.com")) == [7, 1007, 2007])
        #expect(try read.indexObjectKeys(root, matching: IndexKey.bytes("user7@example.co")) == [])
        #expect(try read.indexObjectKeys(root, matching: IndexKey.bytes("nobody")) == [])
        #expect(throws: StorageError.self) {
            let write = try database.beginWrite()
            try write.indexInsert(index, key: [UInt8](repeating: 1, count: IndexPage.maximumKeyLength + 1))
        }
    }
}
