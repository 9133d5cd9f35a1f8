import Foundation
internal import RealmRuntime

/// A two-way set-associative cache of (key path, table) → column by identity, checked on every
/// managed property access before `Realm.columnCache`'s dictionary (see `Realm.knownColumn`).
///
/// 32 sets of two entries, the set chosen by bits of the key path object's address; the newer
/// entry of a set first. A new entry takes the first place and moves the one there to the
/// second, whose entry it replaces. Two ways, not one: with one entry per set, two key paths a
/// loop reads that happened to share their set (a matter of where the heap put them: one run
/// in ~70) evicted each other on every access, and every read went through the dictionary —
/// W4b 4.7 % more instructions, W2 an estimated 17 % slower, at random from one process to the
/// next. Entries hold bare identities: `columnCache` retains what they name and is cleared with
/// them, so an identity here never names a freed and reused object.
///
/// - Complexity: a lookup is a shift, a mask and at most four comparisons.
struct RecentColumns {
    private struct Entry {
        var keyPath: ObjectIdentifier?
        var table: ObjectIdentifier?
        var column = 0
    }

    private static let setCount = 32
    /// Set `s` is `slots[2s]` (the newer entry) and `slots[2s + 1]`.
    private var slots = [Entry](repeating: Entry(), count: 2 * RecentColumns.setCount)

    /// The first slot of a key path's set: key path objects are heap blocks (16-byte aligned),
    /// so the bits above the alignment, folded with a higher run, spread a class's key paths
    /// over the sets.
    @inline(__always)
    static func set(_ keyPath: ObjectIdentifier) -> Int {
        let address = UInt(bitPattern: keyPath)
        return Int(truncatingIfNeeded: (address >> 4) ^ (address >> 10)) & (setCount - 1)
    }

    @inline(__always)
    func column(_ keyPath: ObjectIdentifier, _ table: ObjectIdentifier) -> Int? {
        let first = 2 * Self.set(keyPath)
        let newer = slots[first]
        if newer.keyPath == keyPath && newer.table == table { return newer.column }
        let older = slots[first + 1]
        return older.keyPath == keyPath && older.table == table ? older.column : nil
    }

    mutating func remember(_ keyPath: ObjectIdentifier, _ table: ObjectIdentifier, _ column: Int) {
        let first = 2 * Self.set(keyPath)
        let entry = Entry(keyPath: keyPath, table: table, column: column)
        // Already the newer entry (a column that moved): replaced in place, the older one kept.
        if slots[first].keyPath != keyPath || slots[first].table != table { slots[first + 1] = slots[first] }
        slots[first] = entry
    }
}
