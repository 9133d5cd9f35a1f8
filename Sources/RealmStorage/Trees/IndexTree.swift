#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secondary indexes: B+trees of ``IndexPage``s holding order-preserving keys
/// (`encoded value ‖ object key`, see ``IndexKey``), so equal values are adjacent, a lookup is a
/// range scan over one prefix, and ranges (`<`, `BETWEEN`) scan in order.
///
/// The descent mirrors the table trees' (copy the path, split at the right edge by moving only the
/// new entry, merge a child under a quarter full into a neighbour that has room), with byte-string
/// separators instead of integers.
extension WriteTransaction {
    /// Adds `key` to an index; adding a key that is present changes nothing.
    ///
    /// The entry is buffered (``PendingIndexEntries``) and inserted together with the others, in
    /// key order, before anything reads the index through ``root(of:)`` and when the transaction
    /// is prepared. Errors that the key itself causes (too long, no such tree) are thrown here.
    package func indexInsert(_ id: TreeID, key: [UInt8]) throws {
        try bufferIndexEntry(id, length: key.count) { $0.append(key) }
    }

    /// Adds the entry of object `objectKey` whose value encodes as `value` (see ``IndexKey``):
    /// ``indexInsert(_:key:)`` of `IndexKey.key(value, objectKey: objectKey)`, without building
    /// that key (an object insert's index entries cost no allocation of their own).
    package func indexInsert(_ id: TreeID, value: [UInt8], objectKey: UInt64) throws {
        try bufferIndexEntry(id, length: value.count + IndexKey.objectKeyBytes(objectKey)) {
            $0.append(value: value, objectKey: objectKey)
        }
    }

    /// Checks an entry of `length` bytes, appends it to the tree's buffer with `append`, and
    /// inserts the buffer once it holds more than ``PendingIndexEntries/byteLimit`` bytes.
    private func bufferIndexEntry(_ id: TreeID, length: Int, _ append: (inout PendingIndexEntries) -> Int) throws {
        try checkActive()
        guard length <= IndexPage.maximumKeyLength else {
            throw StorageError(.invalidInput, "Index key of \(length) bytes exceeds \(IndexPage.maximumKeyLength) bytes")
        }
        if pendingIndexEntries[id] == nil { _ = try storedRoot(of: id) }  // the tree must exist
        if append(&pendingIndexEntries[id, default: PendingIndexEntries()]) > PendingIndexEntries.byteLimit {
            try applyPendingIndexEntries(of: id)
        }
    }

    /// Inserts the buffered entries of index `id` into its tree, in key order.
    func applyPendingIndexEntries(of id: TreeID) throws {
        guard var pending = pendingIndexEntries.removeValue(forKey: id) else { return }
        var root = try storedRoot(of: id)
        try pending.forEachInOrder { key in try insert(key, into: &root) }
        roots[id] = .some(root)
    }

    /// Inserts the buffered entries of every index.
    func applyPendingIndexEntries() throws {
        for id in pendingIndexEntries.keys.sorted() { try applyPendingIndexEntries(of: id) }
    }

    /// Inserts one key into the index whose root is `root`, unless it is present.
    private func insert(_ key: UnsafeRawBufferPointer, into root: inout TreeRoot) throws {
        if root.isEmpty {
            let leaf = newPage()
            _ = IndexPageWriter.initialize(leaf.pointer, inner: false, transaction: transaction).insert(at: 0, key: key)
            root = TreeRoot(page: leaf.number, transaction: transaction, count: 1)
            return
        }
        // A key already present is left alone. Once the root is this transaction's copy, the
        // descent that inserts finds it at the leaf (one descent per key, not two); before, a
        // read-only look first, so that a repeated key does not copy a path for nothing.
        if root.transaction != transaction, try indexContains(root, key) { return }
        let top = try writableIndexPage(root.page, transaction: root.transaction)
        let outcome = try indexInsert(top, key: key, depth: 0, atRightEdge: true)
        root.page = top.number
        root.transaction = transaction
        guard case .inserted(let split) = outcome else { return }
        root.count += 1
        if let split {
            let newRoot = newPage()
            let writer = IndexPageWriter.initialize(newRoot.pointer, inner: true, transaction: transaction)
            _ = writer.insert(at: 0, key: UnsafeRawBufferPointer(start: nil, count: 0),
                              child: (top.number, transaction, root.count - split.count))
            _ = split.key.withUnsafeBytes { writer.insert(at: 1, key: $0, child: (split.page, transaction, split.count)) }
            root.page = newRoot.number
        }
    }

    /// Removes `key` from an index. Returns false if it was absent.
    @discardableResult
    package func indexRemove(_ id: TreeID, key: [UInt8]) throws -> Bool {
        try checkActive()
        var root = try self.root(of: id)
        let removed = try key.withUnsafeBytes { key -> Bool in
            guard try indexContains(root, key) else { return false }
            let top = try writableIndexPage(root.page, transaction: root.transaction)
            try indexRemove(top, key: key, depth: 0)
            root.page = top.number
            root.transaction = transaction
            root.count -= 1
            while !root.isEmpty {
                if root.count == 0 {
                    release(root.page)
                    root = .empty
                    break
                }
                let node = IndexPage(page(root.page))
                guard node.isInner, node.count == 1 else { break }
                let (child, childTransaction) = (node.child(0), node.childTransaction(0))
                release(root.page)
                root.page = child
                root.transaction = childTransaction
            }
            return true
        }
        roots[id] = .some(root)
        return removed
    }

    private struct IndexSplit {
        var key: [UInt8]
        var page: PageNumber
        var count: UInt64
    }

    private func writableIndexPage(_ number: PageNumber, transaction expected: TransactionID) throws -> WritablePage {
        _ = try checkedIndexPage(number, transaction: expected)
        return writable(number)
    }

    /// What inserting a key into a subtree did.
    private enum IndexInsertion {
        /// The key was there already: nothing changed (but pages on the way may be copies).
        case present
        /// The key was inserted; the subtree split if `split` is not nil.
        case inserted(split: IndexSplit?)
    }

    private func indexInsert(_ node: WritablePage, key: UnsafeRawBufferPointer, depth: Int,
                             atRightEdge: Bool) throws -> IndexInsertion {
        guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: index too deep") }
        let writer = IndexPageWriter(node.pointer)
        guard writer.page.isInner else {
            let (position, found) = writer.page.find(key)
            if found { return .present }
            if writer.insert(at: position, key: key) { return .inserted(split: nil) }
            return .inserted(split: split(writer, inserting: key, at: position, child: nil, atRightEdge: atRightEdge))
        }
        let index = writer.page.route(key)
        let childPage = try writableIndexPage(writer.page.child(index), transaction: writer.page.childTransaction(index))
        let outcome = try indexInsert(childPage, key: key, depth: depth + 1,
                                      atRightEdge: atRightEdge && index == writer.page.count - 1)
        guard case .inserted(let childSplit) = outcome else {
            writer.setChild(index, childPage.number, transaction, writer.page.childCount(index))
            return .present
        }
        let childCount = writer.page.childCount(index) + 1 - (childSplit?.count ?? 0)
        writer.setChild(index, childPage.number, transaction, childCount)
        guard let childSplit else { return .inserted(split: nil) }
        let child = (childSplit.page, transaction, childSplit.count)
        let fitted = childSplit.key.withUnsafeBytes { writer.insert(at: index + 1, key: $0, child: child) }
        if fitted { return .inserted(split: nil) }
        return .inserted(split: childSplit.key.withUnsafeBytes {
            split(writer, inserting: $0, at: index + 1, child: child, atRightEdge: atRightEdge)
        })
    }

    /// Splits a full page to insert `entry` at `position` (an entry pointing at `child` in an
    /// inner page); returns the new right page, to be inserted in the parent.
    private func split(_ writer: IndexPageWriter, inserting entry: UnsafeRawBufferPointer, at position: Int,
                       child: (PageNumber, TransactionID, UInt64)?, atRightEdge: Bool) -> IndexSplit {
        // Split. Inserts that continue an ascending run (the previous insert went just before this
        // one, or this appends at the tree's right edge) split at the insert position, so the run
        // keeps filling pages; any other insert halves the bytes.
        let inner = writer.page.isInner
        let right = newPage()
        let rightWriter = IndexPageWriter.initialize(right.pointer, inner: inner, transaction: transaction)
        let count = writer.page.count
        let continuesRun = position == writer.page.lastInsertPosition + 1 || (atRightEdge && position == count)
        let point = continuesRun && position > 0 ? position : halfByBytes(writer.page)
        if point < count { writer.moveTail(from: point, to: rightWriter) }
        let fitsLeft = position <= point && writer.insert(at: position, key: entry, child: child)
        if !fitsLeft {
            let fits = rightWriter.insert(at: position - min(position, point), key: entry, child: child)
            precondition(fits, "an entry of at most \(IndexPage.maximumKeyLength) bytes fits half a page")
        }
        let rightPage = rightWriter.page
        let total = inner ? (0..<rightPage.count).reduce(0) { $0 + rightPage.childCount($1) } : UInt64(rightPage.count)
        return IndexSplit(key: Array(rightPage.key(0)), page: right.number, count: total)
    }

    private func halfByBytes(_ page: IndexPage) -> Int {
        let total = page.fill
        var running = 0
        for index in 0..<page.count {
            running += page.slotSize + page.key(index).count
            if running * 2 >= total { return min(max(index + 1, 1), page.count - 1) }
        }
        return page.count / 2
    }

    private func indexRemove(_ node: WritablePage, key: UnsafeRawBufferPointer, depth: Int) throws {
        guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: index too deep") }
        let writer = IndexPageWriter(node.pointer)
        guard writer.page.isInner else {
            let (index, found) = writer.page.find(key)
            precondition(found, "only present keys are removed")
            writer.remove(at: index)
            return
        }
        let index = writer.page.route(key)
        let child = try writableIndexPage(writer.page.child(index), transaction: writer.page.childTransaction(index))
        try indexRemove(child, key: key, depth: depth + 1)
        let count = writer.page.childCount(index) - 1
        writer.setChild(index, child.number, transaction, count)
        if count == 0 {
            release(child.number)
            writer.remove(at: index)
            return
        }
        // Merge an underfull child into a neighbour when both fit one page.
        guard writer.page.count > 1, IndexPage(UnsafeRawPointer(child.pointer)).fill < PageLayout.pageSize / 4 else { return }
        let left = index > 0 ? index - 1 : index
        let right = left + 1
        let leftPage = IndexPage(try checkedIndexPage(writer.page.child(left), transaction: writer.page.childTransaction(left)))
        let rightPage = IndexPage(try checkedIndexPage(writer.page.child(right), transaction: writer.page.childTransaction(right)))
        // An inner right page's first key is replaced by the parent's separator when merged.
        let separator = Array(writer.page.key(right))
        let extra = rightPage.isInner ? separator.count - rightPage.key(0).count : 0
        guard leftPage.isInner == rightPage.isInner,
              leftPage.fill + rightPage.fill + extra <= PageLayout.pageSize - PageLayout.headerSize - 8 else { return }
        let target = writable(writer.page.child(left))
        let targetWriter = IndexPageWriter(target.pointer)
        if rightPage.isInner {
            let first = targetWriter.page.count
            _ = separator.withUnsafeBytes {
                targetWriter.insert(at: first, key: $0, child: (rightPage.child(0), rightPage.childTransaction(0), rightPage.childCount(0)))
            }
            for entry in 1..<rightPage.count {
                let fits = targetWriter.insert(at: targetWriter.page.count, key: rightPage.key(entry),
                                               child: (rightPage.child(entry), rightPage.childTransaction(entry), rightPage.childCount(entry)))
                precondition(fits, "merge was checked to fit")
            }
        } else {
            targetWriter.append(contentsOf: rightPage)
        }
        let total = writer.page.childCount(left) + writer.page.childCount(right)
        release(writer.page.child(right))
        writer.setChild(left, target.number, transaction, total)
        writer.remove(at: right)
    }
}

extension PageSource {
    /// An index page written by `transaction` (its reference's), validated so a damaged one is
    /// reported, not followed.
    func checkedIndexPage(_ number: PageNumber, transaction: TransactionID) throws -> UnsafeRawPointer {
        if let own = ownPage(number) { return own }
        guard number >= PageLayout.firstDataPage, number < pageLimit else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: page \(number) is outside the file")
        }
        let base = page(number)
        try checkTransaction(base, number, expected: transaction)
        guard base.pageKind == .indexLeaf || base.pageKind == .indexInner, IndexPage(base).isWellFormed,
              base.pageKind == .indexLeaf || base.pageCount16 >= 1
        else { throw StorageError(.invalidDatabase, "Realm file is damaged: bad index page \(number)") }
        return base
    }

    func indexContains(_ root: TreeRoot, _ key: UnsafeRawBufferPointer) throws -> Bool {
        var found = false
        try indexScan(root, from: key) { candidate in
            found = IndexPage.compare(candidate, key) == 0
            return false
        }
        return found
    }

    /// Visits index keys `>= start` in order until `body` returns false.
    package func indexScan(_ root: TreeRoot, from start: UnsafeRawBufferPointer,
                           _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        guard !root.isEmpty else { return }
        _ = try indexVisit(root.page, transaction: root.transaction, from: start, depth: 0, body)
    }

    private func indexVisit(_ number: PageNumber, transaction: TransactionID, from start: UnsafeRawBufferPointer, depth: Int,
                            _ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: index too deep") }
        let page = IndexPage(try checkedIndexPage(number, transaction: transaction))
        if page.isInner {
            for index in page.route(start)..<page.count {
                guard try indexVisit(page.child(index), transaction: page.childTransaction(index), from: start, depth: depth + 1, body) else { return false }
            }
            return true
        }
        for index in page.find(start).index..<page.count {
            guard try body(page.key(index)) else { return false }
        }
        return true
    }

    /// The object keys whose encoded value lies between `lower` and `upper` (nil: unbounded;
    /// each inclusive or not), in value order; nil if there are more than `limit` (a scan is
    /// then cheaper than fetching them one by one). Values must have one fixed encoded length
    /// (integers, dates): a shorter or longer key never matches.
    package func indexObjectKeys(_ root: TreeRoot, from lower: [UInt8]?, inclusive lowerInclusive: Bool,
                                 to upper: [UInt8]?, inclusive upperInclusive: Bool, length: Int, limit: Int) throws -> [UInt64]? {
        var keys: [UInt64] = []
        var exceeded = false
        let start = lower ?? [0x01]  // tag 0x00 is null: never in a range
        try start.withUnsafeBytes { startBytes in
            try indexScan(root, from: startBytes) { key in
                guard let objectKey = IndexKey.objectKey(of: key, valueLength: length) else { return true }
                let value = UnsafeRawBufferPointer(rebasing: key[..<length])
                if let lower, !lowerInclusive, lower.withUnsafeBytes({ IndexPage.compare(value, $0) }) == 0 { return true }
                if let upper {
                    let order = upper.withUnsafeBytes { IndexPage.compare(value, $0) }
                    if order > 0 || (order == 0 && !upperInclusive) { return false }
                }
                guard keys.count < limit else {
                    exceeded = true
                    return false
                }
                keys.append(objectKey)
                return true
            }
        }
        return exceeded ? nil : keys
    }

    /// The object keys whose index key is `encodedValue ‖ object key`, in order.
    package func indexObjectKeys(_ root: TreeRoot, matching encodedValue: [UInt8]) throws -> [UInt64] {
        var keys: [UInt64] = []
        try encodedValue.withUnsafeBytes { prefix in
            try indexScan(root, from: prefix) { key in
                guard key.count > prefix.count,
                      IndexPage.compare(UnsafeRawBufferPointer(rebasing: key[..<prefix.count]), prefix) == 0,
                      let objectKey = IndexKey.objectKey(of: key, valueLength: prefix.count)
                else { return false }
                keys.append(objectKey)
                return true
            }
        }
        return keys
    }
}

/// Order-preserving encodings: `memcmp` on the encoded bytes orders like the values.
///
/// Every encoded value starts with a tag byte, `0x00` for null (nulls sort first) and `0x01` for a
/// value; an index key is the encoded value followed by the object key (``key(_:objectKey:)``),
/// which makes every index key unique and groups equal values.
package enum IndexKey {
    package static func null() -> [UInt8] { [0x00] }

    /// Integers: big-endian with the sign bit flipped.
    package static func int(_ value: Int64) -> [UInt8] {
        [0x01] + bigEndian(UInt64(bitPattern: value) ^ (1 << 63))
    }

    package static func bool(_ value: Bool) -> [UInt8] { [0x01, value ? 1 : 0] }

    /// Doubles: negative numbers have all bits flipped, others just the sign bit; -0 equals +0 and
    /// every NaN encodes alike (after +infinity).
    package static func double(_ value: Double) -> [UInt8] {
        let canonical = value.isNaN ? Double.nan : (value == 0 ? 0 : value)
        let bits = canonical.bitPattern
        return [0x01] + bigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }

    /// Byte strings: `0x00` escaped as `0x00 0xFF`, terminated by `0x00`, so a string sorts before
    /// its extensions: after the terminator comes the object key's length byte (0–8), below both
    /// `0xFF` and any byte a longer string continues with. Strings whose encoding would exceed
    /// the key limit are cut; a lookup of such a prefix must confirm matches against the table.
    package static func bytes(_ value: UnsafeRawBufferPointer) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(value.count + 2)
        result.append(0x01)
        let fits = value.count + 2 <= maximumValueLength
        if fits, value.isEmpty || memchr(value.baseAddress!, 0, value.count) == nil {  // the common case: one copy
            result.append(contentsOf: value)
        } else {
            for byte in value {
                let width = byte == 0 ? 2 : 1
                guard result.count + width + 1 <= maximumValueLength else { break }  // 1: the terminator
                if byte == 0 { result += [0x00, 0xFF] } else { result.append(byte) }
            }
        }
        result.append(0x00)
        return result
    }

    package static func bytes(_ value: [UInt8]) -> [UInt8] {
        value.withUnsafeBytes { bytes($0) }
    }

    package static func bytes(_ value: String) -> [UInt8] {
        var value = value
        return value.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    /// Fixed-width values (ObjectId, UUID) compare byte by byte as stored.
    package static func fixed(_ value: some Sequence<UInt8>) -> [UInt8] { [0x01] + value }

    /// The longest encoded value, leaving room for the object key (at most 9 bytes).
    package static let maximumValueLength = IndexPage.maximumKeyLength - 9

    /// The full index key for an object: the encoded value, then the object key as its length in
    /// bytes (0–8) followed by its significant bytes, big-endian. A shorter key is a smaller
    /// number, so this orders like the keys, and keys below 2^24 take 4 bytes instead of 8.
    package static func key(_ encodedValue: [UInt8], objectKey: UInt64) -> [UInt8] {
        var result = encodedValue
        result.reserveCapacity(encodedValue.count + objectKeyBytes(objectKey))
        appendObjectKey(objectKey, to: &result)
        return result
    }

    /// The bytes an object key takes at the end of an index key: its length byte, then its
    /// significant bytes.
    package static func objectKeyBytes(_ objectKey: UInt64) -> Int { 1 + (64 - objectKey.leadingZeroBitCount + 7) / 8 }

    /// Appends the object key part of an index key (see ``key(_:objectKey:)``) to `bytes`.
    static func appendObjectKey(_ objectKey: UInt64, to bytes: inout [UInt8]) {
        let length = objectKeyBytes(objectKey) - 1
        bytes.append(UInt8(length))
        for shift in stride(from: (length - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: objectKey >> UInt64(shift)))
        }
    }

    /// The object key after an encoded value of `valueLength` bytes, or nil if `key` is not an
    /// encoded value of that length followed by an object key.
    package static func objectKey(of key: UnsafeRawBufferPointer, valueLength: Int) -> UInt64? {
        guard key.count > valueLength, case let length = Int(key[valueLength]), length <= 8,
              key.count == valueLength + 1 + length else { return nil }
        var objectKey: UInt64 = 0
        for index in (valueLength + 1)..<key.count { objectKey = objectKey << 8 | UInt64(key[index]) }
        return objectKey
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
