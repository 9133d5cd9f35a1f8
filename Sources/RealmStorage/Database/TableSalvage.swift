/// What can still be read of a damaged table tree: the keys of the rows in the leaves that pass
/// every check the integrity check makes, and hold as many rows as their parents record (reached
/// through pages that pass them too), how many rows the damaged pages held, and what was wrong
/// with them. `realm-inspect recover` copies the
/// rows it finds this way.
package struct TableSalvage: Sendable {
    /// Keys of the readable rows, ascending.
    package var keys: [UInt64] = []
    /// Rows under the damaged pages, as the pages above them (or the catalog, for the root)
    /// record: a page is taken as intact only if it holds the number of rows its parent records.
    package var lost: UInt64 = 0
    /// The damaged pages and what is wrong with each.
    package var problems: [String] = []
}

extension IntegrityCheck {
    /// Walks the table subtree at `page` as ``walkNode`` does, but a damaged page costs only
    /// its own rows (`recorded`, its parent's count): the walk goes on with its siblings.
    mutating func salvage(_ page: PageNumber, _ transaction: TransactionID, lower: UInt64, upper: UInt64?,
                          depth: Int, recorded: UInt64, into found: inout TableSalvage) {
        let lose = { (found: inout TableSalvage) in found.lost += recorded }
        guard depth < maximumTreeDepth else {
            problems.append("tree deeper than \(maximumTreeDepth) at page \(page)")
            return lose(&found)
        }
        guard let base = checked(page, transaction, [.inner, .cluster]) else { return lose(&found) }
        if base.pageKind == .cluster {
            let leaf = ClusterLeaf(base)
            guard leaf.isWellFormed(deep: true) else {
                problems.append("table leaf page \(page) is malformed")
                return lose(&found)
            }
            var keys: [UInt64] = []
            for row in 0..<leaf.count {
                let key = leaf.key(row)
                guard key >= lower, upper.map({ key < $0 }) ?? true, keys.last.map({ key > $0 }) ?? true else {
                    problems.append("table leaf page \(page) holds key \(key) outside its range")
                    return lose(&found)
                }
                keys.append(key)
            }
            let damagedRuns = problems.count
            leaf.forEachOverflow { checkOverflow($0, owner: page) }
            guard problems.count == damagedRuns else { return lose(&found) }
            // An intact page of another subtree copied over this one passes every check above
            // (its checksum, kind, transaction and key range can all be right), but not this.
            guard UInt64(keys.count) == recorded else {
                problems.append("table leaf page \(page) holds \(keys.count) rows but its parent records \(recorded)")
                return lose(&found)
            }
            found.keys += keys
            return
        }
        let node = InnerNode(base)
        guard node.count >= 1, node.count <= InnerNode.capacity else {
            problems.append("inner page \(page) has \(node.count) entries")
            return lose(&found)
        }
        var total: UInt64 = 0
        for index in 0..<node.count {
            let (sum, overflow) = total.addingReportingOverflow(node.childCount(index))
            total = overflow ? .max : sum
            if index > 0 && ((index > 1 && node.key(index) <= node.key(index - 1)) || node.key(index) < lower) {
                problems.append("inner page \(page) has keys out of order")
                return lose(&found)
            }
        }
        guard total == recorded else {
            problems.append("inner page \(page) records \(total) rows below it but its parent records \(recorded)")
            return lose(&found)
        }
        for index in 0..<node.count {
            let childLower = index == 0 ? lower : node.key(index)
            let childUpper = index + 1 < node.count ? node.key(index + 1) : upper
            salvage(node.child(index), node.childTransaction(index), lower: childLower, upper: childUpper,
                    depth: depth + 1, recorded: node.childCount(index), into: &found)
        }
    }
}

extension Database {
    /// What can still be read of the table tree `tree` at `reader`'s version (see
    /// ``TableSalvage``). The tree's root comes from the catalog, which opening checked.
    package static func salvage(tableTree tree: TreeID, at reader: ReadTransaction) throws -> TableSalvage {
        let root = try reader.root(of: tree)
        var salvage = TableSalvage()
        guard !root.isEmpty else { return salvage }
        var check = IntegrityCheck(source: reader, trustedUpTo: 0, accounting: false)
        check.salvage(root.page, root.transaction, lower: 0, upper: nil, depth: 0, recorded: root.count, into: &salvage)
        salvage.problems = check.problems
        return salvage
    }
}
