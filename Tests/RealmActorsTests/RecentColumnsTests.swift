@testable import RealmActors
import Testing

/// The cache of key path → column in front of every managed property read.
struct RecentColumnsTests {
    /// Key-path identities at made-up, 16-byte aligned addresses whose set is the same: what the
    /// heap hands out now and then to key paths read together. (The cache only compares
    /// identities, never follows them, so made-up addresses are safe.)
    static func colliding(_ count: Int) -> [ObjectIdentifier] {
        var found: [ObjectIdentifier] = []
        var address: UInt = 0x7f00_0000_1000
        while found.count < count {
            let identifier = unsafeBitCast(address, to: ObjectIdentifier.self)
            if found.isEmpty || RecentColumns.set(identifier) == RecentColumns.set(found[0]) { found.append(identifier) }
            address += 16
        }
        return found
    }

    static let table = unsafeBitCast(UInt(0x7f00_0900_0000), to: ObjectIdentifier.self)

    /// Two key paths of one set, read in turn as a loop reads two properties, both stay cached.
    /// (With one entry per set they evicted each other: every read missed.)
    @Test func twoKeyPathsOfOneSetBothHit() {
        let keyPaths = Self.colliding(2)
        var cache = RecentColumns()
        cache.remember(keyPaths[0], Self.table, 3)
        cache.remember(keyPaths[1], Self.table, 7)
        for _ in 0..<3 {
            #expect(cache.column(keyPaths[0], Self.table) == 3)
            #expect(cache.column(keyPaths[1], Self.table) == 7)
        }
    }

    /// A third key path of the set evicts the older of the two; the two newest hit.
    @Test func aThirdKeyPathEvictsTheOlder() {
        let keyPaths = Self.colliding(3)
        var cache = RecentColumns()
        cache.remember(keyPaths[0], Self.table, 1)
        cache.remember(keyPaths[1], Self.table, 2)
        cache.remember(keyPaths[2], Self.table, 3)
        #expect(cache.column(keyPaths[0], Self.table) == nil)
        #expect(cache.column(keyPaths[1], Self.table) == 2)
        #expect(cache.column(keyPaths[2], Self.table) == 3)
    }

    /// An entry is per table too, and remembering a key path again replaces its column without
    /// evicting its neighbour.
    @Test func entriesArePerTableAndReplacedInPlace() {
        let keyPaths = Self.colliding(2)
        let other = unsafeBitCast(UInt(0x7f00_0a00_0000), to: ObjectIdentifier.self)
        var cache = RecentColumns()
        cache.remember(keyPaths[0], Self.table, 1)
        cache.remember(keyPaths[1], Self.table, 2)
        #expect(cache.column(keyPaths[1], other) == nil)
        cache.remember(keyPaths[1], Self.table, 5)
        #expect(cache.column(keyPaths[1], Self.table) == 5)
        #expect(cache.column(keyPaths[0], Self.table) == 1)
    }
}
