internal import RealmRuntime

extension Realm {
    /// The key of the object at a position of a table, in key order.
    func key(atPosition position: UInt64, in table: Table) -> UInt64? {
        do {
            let found: (ClusterLeaf, Int)?
            if let writer { found = try writer.row(atPosition: position, in: writer.root(of: table.tree)) }
            else { found = try reader.row(atPosition: position, in: reader.root(of: table.tree)) }
            return found.map { $0.0.key($0.1) }
        } catch {
            fileIsDamaged(error)
        }
    }

    /// The leaf pages of a table at the read version (valid while the version is current).
    func leaves(of table: Table) -> [UnsafeRawPointer] {
        var leaves: [UnsafeRawPointer] = []
        do {
            try reader.forEachCluster(in: reader.root(of: table.tree)) { leaves.append($0.base); return true }
        } catch {
            fileIsDamaged(error)
        }
        return leaves
    }

    /// Every object key of a table, in order.
    func keys(of table: Table) -> [UInt64] {
        var keys: [UInt64] = []
        func collect(_ leaf: ClusterLeaf) -> Bool {
            leaf.appendKeys(to: &keys)
            return true
        }
        let root = self.root(of: table.tree)
        // The count comes from the catalog; bounded so a damaged one cannot ask for terabytes.
        keys.reserveCapacity(Int(clamping: min(root.count, 1 << 28)))
        do {
            if let writer { try writer.forEachCluster(in: root, collect) } else { try reader.forEachCluster(in: root, collect) }
        } catch {
            fileIsDamaged(error)
        }
        return keys
    }
}
