/// Something that can hand out the pages of one version: a read transaction (the mapped file) or
/// a write transaction (its own dirty pages first, then the unflushed commits below it, then the
/// file).
///
/// Tree code is generic over this protocol so the compiler specializes it per source, keeping
/// page access a few instructions with no dynamic dispatch.
package protocol PageSource {
    /// Pages `2..<pageLimit` may be referenced in this version.
    var pageLimit: UInt64 { get }
    /// The page's memory. `number` must be below `pageLimit`.
    func page(_ number: PageNumber) -> UnsafeRawPointer
    /// The page's memory if this source wrote the page itself (a write transaction's copy):
    /// such a page was checked when it was copied, and only its writer has changed it since, so
    /// the `checked…` accessors return it without checking it again. Nil for every other page.
    func ownPage(_ number: PageNumber) -> UnsafeRawPointer?
}

extension PageSource {
    /// A read transaction writes no page.
    package func ownPage(_ number: PageNumber) -> UnsafeRawPointer? { nil }
}

/// The deepest tree accepted; far above any real tree (127-way fan-out), it stops a cycle in a
/// damaged file from recursing forever.
let maximumTreeDepth = 24

/// A value as stored: inline in a leaf, or in an overflow run.
package enum StoredValue {
    case inline(UnsafeRawBufferPointer)
    case overflow(page: PageNumber, transaction: TransactionID, length: UInt64)
}

/// Overflow runs: the page header (`aux` = run length in pages), the value's byte length at 24,
/// the bytes from 32. A run never crosses a map section, so it reads in place.
package enum OverflowRun {
    package static let dataOffset = 32

    package static func pages(forLength length: Int) -> UInt64 {
        UInt64((dataOffset + length + PageLayout.pageSize - 1) / PageLayout.pageSize)
    }
}

/// Every page reference in the file names the transaction that wrote the page — a tree's root,
/// an inner entry, an overflow reference, the free-list chain's links — and every read through a
/// reference checks it (``PageSource/checkTransaction(_:_:expected:)``): a page that holds
/// another transaction's bytes is a stale page (an old image put back, a lost write), a
/// misdirected one, or damage, and is reported rather than read. In an encrypted file, where a
/// page's tag proves only that the key wrote it at that number, this makes each version a hash
/// tree rooted in its meta page: an old authentic page put back is refused (`PageCipher`).
extension PageSource {
    /// Throws unless `base`, the page at `number`, was written by `expected`, the transaction
    /// its reference names. One load and a compare: done on every descent.
    @inline(__always)
    func checkTransaction(_ base: UnsafeRawPointer, _ number: PageNumber, expected: TransactionID) throws {
        guard base.pageTransaction == expected else { throw Self.staleTransaction(base, number, expected: expected) }
    }

    @inline(never)
    static func staleTransaction(_ base: UnsafeRawPointer, _ number: PageNumber, expected: TransactionID) -> StorageError {
        StorageError(.invalidDatabase, "Realm file is damaged: page \(number) holds transaction \(base.pageTransaction) where its reference expects \(expected) (a stale, misplaced or overwritten page)")
    }

    /// The page, after checking that a damaged pointer cannot send the read outside the file and
    /// that it is of `kind` and written by `transaction`.
    @inline(__always)
    func checkedPage(_ number: PageNumber, _ kind: PageKind, transaction: TransactionID) throws -> UnsafeRawPointer {
        guard number >= PageLayout.firstDataPage, number < pageLimit else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: page \(number) is outside the file")
        }
        let base = page(number)
        guard base.pageKind == kind else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: page \(number) is not a \(kind) page")
        }
        try checkTransaction(base, number, expected: transaction)
        return base
    }

    /// Descends from `root` to the leaf page (value leaf or cluster) that holds or would hold `key`.
    @inline(__always)
    func leafPage(containing key: UInt64, in root: TreeRoot) throws -> UnsafeRawPointer? {
        guard !root.isEmpty else { return nil }
        var number = root.page
        var transaction = root.transaction
        for _ in 0..<maximumTreeDepth {
            guard number >= PageLayout.firstDataPage, number < pageLimit else { break }
            let base = page(number)
            try checkTransaction(base, number, expected: transaction)
            switch base.pageKind {
            case .leaf:
                guard base.pageCount16 <= ValueLeaf.maximumCount else { break }
                return base
            case .cluster:
                guard ClusterLeaf(base).isWellFormed(), spanFits(number, base) else { break }
                return base
            case .inner:
                let node = InnerNode(base)
                guard node.count >= 1, node.count <= InnerNode.capacity else { break }
                let index = node.route(key)
                (number, transaction) = (node.child(index), node.childTransaction(index))
                continue
            default:
                break
            }
            break
        }
        throw StorageError(.invalidDatabase, "Realm file is damaged: bad tree page \(number)")
    }

    /// The value leaf that holds or would hold `key`.
    @inline(__always)
    func leaf(containing key: UInt64, in root: TreeRoot) throws -> ValueLeaf? {
        guard let base = try leafPage(containing: key, in: root) else { return nil }
        guard base.pageKind == .leaf else { throw StorageError(.invalidDatabase, "Realm file is damaged: expected a value leaf") }
        return ValueLeaf(base)
    }

    /// The stored value of entry `index` of `leaf`, with its bounds checked.
    func storedValue(_ leaf: ValueLeaf, _ index: Int) throws -> StoredValue {
        let offset = leaf.valueOffset(index)
        guard offset + leaf.heapBytes(index) <= PageLayout.pageSize, offset >= ValueLeaf.slotsOffset else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: bad value offset in a leaf")
        }
        if leaf.isOverflow(index) {
            let reference = leaf.overflow(index)
            return .overflow(page: reference.page, transaction: reference.transaction, length: reference.length)
        }
        return .inline(leaf.inlineValue(index))
    }

    /// The bytes of a stored value, valid as long as the version is (read transaction) or until
    /// the next change (write transaction).
    func bytes(of value: StoredValue) throws -> UnsafeRawBufferPointer {
        switch value {
        case .inline(let buffer):
            return buffer
        case .overflow(let number, let transaction, let length):
            // The length is checked first: it comes from the file and sizes the run.
            guard length <= UInt64(StorageLimits.maximumValueLength) else {
                throw StorageError(.invalidDatabase, "Realm file is damaged: overflow value of \(length) bytes at page \(number)")
            }
            let pages = OverflowRun.pages(forLength: Int(length))
            let base = try checkedPage(number, .overflow, transaction: transaction)
            guard pages <= pageLimit, number <= pageLimit - pages,
                  UInt64(base.u32(PageLayout.auxOffset)) == pages, base.u64(24) == length
            else { throw StorageError(.invalidDatabase, "Realm file is damaged: bad overflow run at page \(number)") }
            return UnsafeRawBufferPointer(start: base + OverflowRun.dataOffset, count: Int(length))
        }
    }

    /// Calls `body` with the value stored under `key`, or returns nil if there is none.
    package func withValue<R>(in root: TreeRoot, forKey key: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        guard let leaf = try leaf(containing: key, in: root) else { return nil }
        let (index, found) = leaf.find(key)
        guard found else { return nil }
        return try body(bytes(of: storedValue(leaf, index)))
    }

    /// Visits entries in key order starting at the first key `>= start`, until `body` returns false.
    package func forEach(in root: TreeRoot, from start: UInt64 = 0,
                         _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isEmpty else { return }
        _ = try visit(root.page, transaction: root.transaction, from: start, depth: 0, body)
    }

    private func visit(_ number: PageNumber, transaction: TransactionID, from start: UInt64, depth: Int,
                       _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard depth < maximumTreeDepth, number >= PageLayout.firstDataPage, number < pageLimit else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: bad tree page \(number)")
        }
        let base = page(number)
        try checkTransaction(base, number, expected: transaction)
        switch base.pageKind {
        case .leaf:
            let leaf = ValueLeaf(base)
            guard leaf.count <= ValueLeaf.maximumCount else { break }
            var index = leaf.find(start).index
            while index < leaf.count {
                guard try body(leaf.key(index), bytes(of: storedValue(leaf, index))) else { return false }
                index += 1
            }
            return true
        case .inner:
            let node = InnerNode(base)
            guard node.count >= 1, node.count <= InnerNode.capacity else { break }
            for index in node.route(start)..<node.count {
                guard try visit(node.child(index), transaction: node.childTransaction(index), from: start, depth: depth + 1, body) else { return false }
            }
            return true
        default:
            break
        }
        throw StorageError(.invalidDatabase, "Realm file is damaged: bad tree page \(number)")
    }

    /// The greatest key in the tree.
    package func lastKey(in root: TreeRoot) throws -> UInt64? {
        guard !root.isEmpty else { return nil }
        var number = root.page
        var transaction = root.transaction
        for _ in 0..<maximumTreeDepth {
            let base = try checkedPageOfTree(number, transaction: transaction)
            switch base.pageKind {
            case .leaf:
                let leaf = ValueLeaf(base)
                return leaf.count == 0 ? nil : leaf.key(leaf.count - 1)
            case .cluster:
                let leaf = ClusterLeaf(base)
                return leaf.count == 0 ? nil : leaf.key(leaf.count - 1)
            default:
                let node = InnerNode(base)
                (number, transaction) = (node.child(node.count - 1), node.childTransaction(node.count - 1))
            }
        }
        throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep")
    }

    /// Whether the pages of the (well-formed) table leaf at `number` lie in this version's file
    /// and in one map section, so its whole `size` may be read.
    @inline(__always)
    func spanFits(_ number: PageNumber, _ base: UnsafeRawPointer) -> Bool {
        let pages = UInt64(ClusterLeaf(base).pages)
        return pages == 1 || (pages <= pageLimit - number && PageMap.isContiguous(page: number, count: pages))
    }

    /// A leaf or inner page with a sane entry count, written by `transaction` (the one its
    /// reference names; not checked again for a page this source wrote itself, whose reference
    /// it keeps).
    func checkedPageOfTree(_ number: PageNumber, transaction: TransactionID) throws -> UnsafeRawPointer {
        if let own = ownPage(number) { return own }
        guard number >= PageLayout.firstDataPage, number < pageLimit else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: page \(number) is outside the file")
        }
        let base = page(number)
        try checkTransaction(base, number, expected: transaction)
        switch base.pageKind {
        case .leaf where base.pageCount16 <= ValueLeaf.maximumCount:
            return base
        case .inner where base.pageCount16 >= 1 && base.pageCount16 <= InnerNode.capacity:
            return base
        case .cluster where ClusterLeaf(base).isWellFormed() && spanFits(number, base):
            return base
        default:
            throw StorageError(.invalidDatabase, "Realm file is damaged: bad tree page \(number)")
        }
    }
}

/// Size limits shared by every layer.
package enum StorageLimits {
    /// The largest String or Data value: 16 MB, as in Realm.
    package static let maximumValueLength = 16 * 1024 * 1024
}
