/// Key–value edits on trees of ``ValueLeaf``s (the catalog, the free list's future home, and any
/// tree that maps a 64-bit key to bytes).
extension WriteTransaction {
    func put(into root: inout TreeRoot, key: UInt64, value: UnsafeRawBufferPointer) throws -> Bool {
        guard value.count <= StorageLimits.maximumValueLength else {
            throw StorageError(.invalidInput, "Value of \(value.count) bytes exceeds the maximum of \(StorageLimits.maximumValueLength) bytes")
        }
        if value.count > ValueLeaf.maximumInlineLength {
            return try writeOverflow(value).withBytes { try put(into: &root, key: key, stored: $0, isOverflow: true) }
        }
        return try put(into: &root, key: key, stored: value, isOverflow: false)
    }

    private func put(into root: inout TreeRoot, key: UInt64, stored: UnsafeRawBufferPointer, isOverflow: Bool) throws -> Bool {
        if root.isEmpty {
            let leaf = newPage()
            _ = ValueLeafWriter.initialize(leaf.pointer, transaction: transaction)
                .insert(at: 0, key: key, stored: stored, isOverflow: isOverflow)
            root = TreeRoot(page: leaf.number, transaction: transaction, count: 1)
            return true
        }
        return try modify(&root, key: key) { node, atRightEdge in
            guard node.pointer.pageKind == .leaf else {
                throw StorageError(.invalidDatabase, "Realm file is damaged: page \(node.number) is not a value leaf")
            }
            return putInLeaf(node, key: key, stored: stored, isOverflow: isOverflow, atRightEdge: atRightEdge)
        } > 0
    }

    private func putInLeaf(_ node: WritablePage, key: UInt64, stored: UnsafeRawBufferPointer, isOverflow: Bool,
                           atRightEdge: Bool) -> LeafOutcome {
        let writer = ValueLeafWriter(node.pointer)
        var (index, found) = writer.leaf.find(key)
        if found {
            if writer.leaf.isOverflow(index) { releaseOverflow(writer.leaf.overflow(index)) }
            writer.remove(at: index)
        }
        let delta = found ? 0 : 1
        if writer.insert(at: index, key: key, stored: stored, isOverflow: isOverflow) { return LeafOutcome(delta: delta) }
        // Split: appending at the tree's right edge moves only the new entry; elsewhere the bytes are halved.
        let right = newPage()
        let rightWriter = ValueLeafWriter.initialize(right.pointer, transaction: transaction)
        if !(atRightEdge && index == writer.leaf.count) { writer.moveTail(from: halfByBytes(writer.leaf), to: rightWriter) }
        let leftCount = writer.leaf.count
        let target = index >= leftCount ? rightWriter : writer
        index = index >= leftCount ? index - leftCount : index
        let fits = target.insert(at: index, key: key, stored: stored, isOverflow: isOverflow)
        precondition(fits, "a value of at most a quarter page fits half a leaf")
        return LeafOutcome(delta: delta, split: Split(key: rightWriter.leaf.key(0), page: right.number,
                                                      count: UInt64(rightWriter.leaf.count)))
    }

    /// The split point of a full leaf: where the entries before it take half the used bytes.
    private func halfByBytes(_ leaf: ValueLeaf) -> Int {
        let total = (0..<leaf.count).reduce(0) { $0 + leaf.heapBytes($1) + ValueLeaf.slotSize }
        var running = 0
        for index in 0..<leaf.count {
            running += leaf.heapBytes(index) + ValueLeaf.slotSize
            if running * 2 >= total { return min(max(index + 1, 1), leaf.count - 1) }
        }
        return leaf.count / 2
    }

    func remove(from root: inout TreeRoot, key: UInt64) throws -> Bool {
        // Look first, so a miss copies nothing.
        guard let leaf = try leaf(containing: key, in: root), leaf.find(key).found else { return false }
        try modify(&root, key: key) { node, _ in
            let writer = ValueLeafWriter(node.pointer)
            let (index, found) = writer.leaf.find(key)
            guard found else { return LeafOutcome(delta: 0) }
            if writer.leaf.isOverflow(index) { releaseOverflow(writer.leaf.overflow(index)) }
            writer.remove(at: index)
            return LeafOutcome(delta: -1)
        }
        return true
    }
}
