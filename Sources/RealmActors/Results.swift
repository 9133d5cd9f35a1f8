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
    /// The stored class: `Element`'s, or the one named in `dynamicObjects(_:)`.
    private let className: String

    init(realm: Realm, className: String = Element.className()) {
        self.realm = realm
        handle = realm
        self.className = className
    }

    private var table: Table? { handle.catalog.tables[className] }

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

    /// Iterates over the objects as they are now: a snapshot, so changes made while iterating
    /// (deleting or adding objects in a write, refreshing) do not disturb the loop.
    ///
    /// Outside a write transaction the snapshot is the handle's current version, pinned by the
    /// iterator and walked leaf by leaf with nothing copied; inside one, the keys are copied first.
    public func makeIterator() -> Iterator {
        Iterator(results: self)
    }

    /// The iterator of ``Results``.
    public struct Iterator: IteratorProtocol {
        private let handle: Realm
        private let table: Table?
        /// Inside a write transaction: the keys to visit.
        private var keys: [UInt64] = []
        private var keyIndex = 0
        /// Outside one: the version being walked (pinned while the iterator lives) and its leaves.
        private var snapshot: ReadTransaction?
        private var leaves: [UnsafeRawPointer] = []
        private var leafIndex = 0
        private var row = 0
        private let stamp: UInt64

        init(results: Results) {
            handle = results.handle
            table = results.table
            stamp = handle.stamp
            guard let table else { return }
            if handle.isInWriteTransaction {
                keys = handle.keys(of: table)
            } else {
                snapshot = handle.reader
                leaves = handle.leaves(of: table)
            }
        }

        /// The next object, or nil at the end.
        public mutating func next() -> Element? {
            guard let table else { return nil }
            guard snapshot != nil else {
                guard keyIndex < keys.count else { return nil }
                defer { keyIndex += 1 }
                return handle.managedObject(Element.self, table: table, key: keys[keyIndex])
            }
            while leafIndex < leaves.count {
                let leaf = ClusterLeaf(leaves[leafIndex])
                if row < leaf.count {
                    defer { row += 1 }
                    // While the handle is still at the snapshot's version the object starts with
                    // its position known; after the loop wrote or refreshed, it is found by key.
                    guard handle.stamp == stamp else {
                        return handle.managedObject(Element.self, table: table, key: leaf.key(row))
                    }
                    let object = Element()
                    object.realmState = ObjectState(realm: handle, table: table, leaf: leaf, row: row)
                    return object
                }
                leafIndex += 1
                row = 0
            }
            return nil
        }
    }

    /// `Results<Dog> <count objects>`.
    public var description: String { "Results<\(className)> <\(count) objects>" }
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

    /// The leaf pages of a table at the read version (valid while the version is current).
    func leaves(of table: Table) -> [UnsafeRawPointer] {
        var leaves: [UnsafeRawPointer] = []
        do {
            try reader.forEachCluster(in: reader.root(of: table.tree)) { leaves.append($0.base); return true }
        } catch {
            fatalError("The realm file is damaged: \(error)")
        }
        return leaves
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
