import Testing
@testable import RealmStorage
import RealmTestSupport

/// ``PendingIndexEntries`` hands out its keys sorted and without duplicates, against a model
/// (`Set`, then byte order): keys that differ only past their 8-byte prefix (integers), that are
/// shorter than 8 bytes, prefixes of each other, and keys whose prefixes differ in any byte, so
/// that every pass of the radix sort and the comparison of tied runs are exercised.
@Suite struct PendingIndexEntriesTests {
    static func randomKey(_ generator: inout SplitMix64) -> [UInt8] {
        let shape = generator.next() % 4
        switch shape {
        case 0:  // an integer: tag + 8 bytes + object key, mostly equal high bytes
            return IndexKey.key(IndexKey.int(Int64(generator.next() % 1_000) - 500), objectKey: generator.next() % 50)
        case 1:  // short keys, prefixes of each other
            return (0..<Int(generator.next() % 6)).map { _ in UInt8(generator.next() % 3) }
        case 2:  // a string from a small alphabet, so some agree on 8 bytes and more
            let letters = (0..<Int(generator.next() % 14)).map { _ in UInt8(ascii: "a") + UInt8(generator.next() % 2) }
            return IndexKey.key(IndexKey.bytes(letters), objectKey: generator.next() % 4)
        default:  // random bytes: prefixes that differ anywhere
            return (0..<Int(1 + generator.next() % 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
    }

    @Test(arguments: 0..<6)
    func keysComeOutSortedAndDistinct(seed: UInt64) async throws {
        try await BlockingCall.offThePool {
            var generator = SplitMix64(seed: seed)
            var pending = PendingIndexEntries()
            var model = Set<[UInt8]>()
            let count = [0, 1, 2, 100, 5_000, 40_000][Int(seed)]
            for _ in 0..<count {
                let key = Self.randomKey(&generator)
                _ = pending.append(key)
                model.insert(key)
                if generator.next() % 5 == 0 { _ = pending.append(key) }  // a duplicate
            }
            var seen: [[UInt8]] = []
            pending.forEachInOrder { seen.append(Array($0)) }
            #expect(seen == model.sorted { $0.lexicographicallyPrecedes($1) })
        }
    }

    /// `append(value:objectKey:)` buffers exactly the key `IndexKey.key(_:objectKey:)` builds.
    @Test func valueAndObjectKeyMatchTheBuiltKey() {
        var generator = SplitMix64(seed: 9)
        var pending = PendingIndexEntries()
        var model = Set<[UInt8]>()
        for objectKey in [0, 1, 255, 256, 1 << 24, 1 << 40, .max] as [UInt64] {
            for _ in 0..<50 {
                let value = IndexKey.bytes((0..<Int(generator.next() % 12)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
                _ = pending.append(value: value, objectKey: objectKey)
                model.insert(IndexKey.key(value, objectKey: objectKey))
            }
        }
        var seen: [[UInt8]] = []
        pending.forEachInOrder { seen.append(Array($0)) }
        #expect(seen == model.sorted { $0.lexicographicallyPrecedes($1) })
    }
}
