#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Index entries a write transaction has added but not yet put into their tree.
///
/// Objects usually arrive in key order while their indexed values do not: an email index fills in
/// random order. Inserted one at a time, random keys cost a descent into a cold page each, and
/// every split halves a page, which leaves pages about two-thirds full. So
/// ``WriteTransaction/indexInsert(_:key:)`` only appends the entry here, and the entries are
/// inserted in key order, all at once, when the index is next read (``WriteTransaction/root(of:)``)
/// and when the transaction is prepared. In key order each insert lands just after the previous
/// one, which the index's split policy recognizes as a run: pages are filled before they split,
/// and the descents find their pages in cache.
///
/// Storage: the keys' bytes back to back in one array, plus a 16-byte entry per key holding its
/// first 8 bytes as a big-endian integer, so that sorting compares integers and only looks at the
/// bytes when two keys share their first 8.
struct PendingIndexEntries {
    /// Past this many key bytes a tree's entries are inserted at once, to bound the memory used.
    static let byteLimit = 64 << 20

    private struct Entry {
        /// The key's first 8 bytes, big-endian, zero-padded: orders like the bytes up to ties.
        var prefix: UInt64
        var offset: UInt32
        var length: UInt32
    }

    private(set) var bytes: [UInt8] = []
    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Appends an index key. Returns the bytes buffered now.
    mutating func append(_ key: [UInt8]) -> Int {
        append { $0.append(contentsOf: key) }
    }

    /// Appends the index key of `value` (an encoded value) and `objectKey`, as
    /// ``IndexKey/key(_:objectKey:)`` builds it. Returns the bytes buffered now.
    mutating func append(value: [UInt8], objectKey: UInt64) -> Int {
        append {
            $0.append(contentsOf: value)
            IndexKey.appendObjectKey(objectKey, to: &$0)
        }
    }

    /// Appends the key that `write` appends to `bytes`.
    private mutating func append(_ write: (inout [UInt8]) -> Void) -> Int {
        let offset = bytes.count
        write(&bytes)
        let length = bytes.count - offset
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(index < length ? bytes[offset + index] : 0) }
        entries.append(Entry(prefix: prefix, offset: UInt32(offset), length: UInt32(length)))
        return bytes.count
    }

    /// Calls `body` with every distinct key, in ascending byte order.
    func forEachInOrder(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            func key(_ entry: Entry) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: all[Int(entry.offset)..<Int(entry.offset) + Int(entry.length)])
            }
            let sorted = entries.sorted { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                return IndexPage.compare(key(a), key(b)) < 0
            }
            var previous: UnsafeRawBufferPointer?
            for entry in sorted {
                let current = key(entry)
                if let previous, IndexPage.compare(previous, current) == 0 { continue }
                try body(current)
                previous = current
            }
        }
    }
}
