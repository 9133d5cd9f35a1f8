internal import RealmRuntime

/// The objects of one class in a realm: Realm Swift's `Results`, a lazy and live collection.
///
/// Nothing is read until the collection is used, and it always reflects the realm's current
/// version, including the changes of the handle's own open write transaction. `count` is O(1);
/// positional access walks the table's tree by subtree counts (O(log n)) without materializing
/// anything; `for … in` iterates a snapshot of the objects taken when the loop starts, so
/// deleting or adding objects inside the loop does not disturb it.
public struct Results<Element: Object>: RandomAccessCollection, CustomStringConvertible {
    /// The realm the objects live in.
    public let realm: Realm?
    private let handle: Realm

    init(realm: Realm) {
        self.realm = realm
        handle = realm
    }

    private var table: Table? { handle.table(for: Element.self) }

    /// The number of objects. O(1).
    public var count: Int {
        guard let table else { return 0 }
        return Int(handle.root(of: table.tree).count)
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The object at `position` (traps if out of bounds, like an array).
    public subscript(position: Int) -> Element {
        guard let table, position >= 0 else { fatalError("Index \(position) is out of bounds") }
        guard let key = handle.key(atPosition: UInt64(position), in: table) else {
            fatalError("Index \(position) is out of bounds (must be less than \(count))")
        }
        return handle.managedObject(Element.self, table: table, key: key)
    }

    /// The position of an object in the results, or nil.
    public func index(of object: Element) -> Int? {
        guard let state = object.realmState, state.realm.file === handle.file else { return nil }
        return firstIndex { $0.realmState?.key == state.key }
    }

    /// Iterates over a snapshot of the objects taken now.
    public func makeIterator() -> IndexingIterator<[Element]> {
        guard let table else { return [Element]().makeIterator() }
        return handle.keys(of: table).map { handle.managedObject(Element.self, table: table, key: $0) }.makeIterator()
    }

    /// `Results<Dog> <count objects>`.
    public var description: String { "Results<\(Element.className())> <\(count) objects>" }
}

extension Realm {
    /// The key of the object at a position of a table, in key order.
    func key(atPosition position: UInt64, in table: Table) -> UInt64? {
        do {
            let found: (ClusterLeaf, Int)?
            if let writer { found = try writer.row(atPosition: position, in: writer.root(of: table.tree)) }
            else { found = try reader.row(atPosition: position, in: reader.root(of: table.tree)) }
            return found.map { $0.0.key($0.1) }
        } catch {
            fatalError("The realm file is damaged: \(error)")
        }
    }

    /// Every object key of a table, in order.
    func keys(of table: Table) -> [UInt64] {
        var keys: [UInt64] = []
        func collect(_ leaf: ClusterLeaf) -> Bool {
            for row in 0..<leaf.count { keys.append(leaf.key(row)) }
            return true
        }
        do {
            if let writer { try writer.forEachCluster(in: writer.root(of: table.tree), collect) }
            else { try reader.forEachCluster(in: reader.root(of: table.tree), collect) }
        } catch {
            fatalError("The realm file is damaged: \(error)")
        }
        return keys
    }
}
