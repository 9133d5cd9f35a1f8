import Foundation
internal import RealmRuntime

/// A four-entry cache of (key path, table) → column by identity, in stored properties (no
/// array buffer to retain), replaced round-robin. See `Realm.recentColumns`.
struct RecentColumns {
    private typealias Entry = (keyPath: ObjectIdentifier, table: ObjectIdentifier, column: Int)
    private var e0: Entry?, e1: Entry?, e2: Entry?, e3: Entry?
    private var next = 0

    @inline(__always)
    func column(_ keyPath: ObjectIdentifier, _ table: ObjectIdentifier) -> Int? {
        if let e = e0, e.keyPath == keyPath, e.table == table { return e.column }
        if let e = e1, e.keyPath == keyPath, e.table == table { return e.column }
        if let e = e2, e.keyPath == keyPath, e.table == table { return e.column }
        if let e = e3, e.keyPath == keyPath, e.table == table { return e.column }
        return nil
    }

    mutating func remember(_ keyPath: ObjectIdentifier, _ table: ObjectIdentifier, _ column: Int) {
        let entry = (keyPath, table, column)
        switch next {
        case 0: e0 = entry
        case 1: e1 = entry
        case 2: e2 = entry
        default: e3 = entry
        }
        next = (next + 1) & 3
    }
}
