import Foundation
internal import RealmRuntime

/// A direct-mapped cache of (key path, table) → column by identity, checked on every managed
/// property access before `Realm.columnCache`'s dictionary (see `Realm.knownColumn`).
///
/// 64 slots, the slot chosen by bits of the key path object's address; an entry that collides
/// replaces the one there. Entries hold bare identities: `columnCache` retains what they name and
/// is cleared with them, so an identity here never names a freed and reused object.
///
/// - Complexity: a lookup is a shift, a mask and two comparisons.
struct RecentColumns {
    private struct Entry {
        var keyPath: ObjectIdentifier?
        var table: ObjectIdentifier?
        var column = 0
    }

    private static let slotCount = 64
    private var slots = [Entry](repeating: Entry(), count: RecentColumns.slotCount)

    /// The slot of a key path: key path objects are heap blocks (16-byte aligned), so the bits
    /// above the alignment, folded with a higher run, spread a class's key paths over the slots.
    @inline(__always)
    private static func slot(_ keyPath: ObjectIdentifier) -> Int {
        let address = UInt(bitPattern: keyPath)
        return Int(truncatingIfNeeded: (address >> 4) ^ (address >> 10)) & (slotCount - 1)
    }

    @inline(__always)
    func column(_ keyPath: ObjectIdentifier, _ table: ObjectIdentifier) -> Int? {
        let entry = slots[Self.slot(keyPath)]
        return entry.keyPath == keyPath && entry.table == table ? entry.column : nil
    }

    mutating func remember(_ keyPath: ObjectIdentifier, _ table: ObjectIdentifier, _ column: Int) {
        slots[Self.slot(keyPath)] = Entry(keyPath: keyPath, table: table, column: column)
    }
}
