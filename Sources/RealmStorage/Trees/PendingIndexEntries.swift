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
    ///
    /// The entries are sorted by their prefixes with a radix sort, then each run of equal
    /// prefixes by the bytes. For 1M email keys (object-bench insert, perf samples) the radix
    /// sort takes ~60 ms where `sorted(by:)` with a comparing closure took ~175 ms, 6 % of the
    /// bulk insert. Keys whose first
    /// 8 bytes often agree (integers: a tag and the 7 high bytes) leave long runs, which cost
    /// what the comparison sort cost before.
    func forEachInOrder(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            func key(_ entry: Entry) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: all[Int(entry.offset)..<Int(entry.offset) + Int(entry.length)])
            }
            // A small commit's few entries: the radix sort's 2 KiB of counts and its passes
            // would cost more than comparing (~1 µs of a one-object commit).
            var sorted = entries.count < 64 ? entries.sorted { $0.prefix < $1.prefix } : Self.sortedByPrefix(entries)
            var start = 0
            while start < sorted.count {
                var end = start + 1
                while end < sorted.count && sorted[end].prefix == sorted[start].prefix { end += 1 }
                if end - start > 1 { sorted[start..<end].sort { IndexPage.compare(key($0), key($1)) < 0 } }
                start = end
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

    /// `entries` in ascending order of their prefixes (stable): a least-significant-byte-first
    /// radix sort, one pass per byte, skipping the bytes every entry shares (an index key's tag,
    /// say).
    /// - Complexity: O(n) per byte that differs, at most 8 passes.
    private static func sortedByPrefix(_ entries: [Entry]) -> [Entry] {
        var source = entries
        var target = entries
        var counts = [Int](repeating: 0, count: 256)
        source.withUnsafeMutableBufferPointer { source in
            target.withUnsafeMutableBufferPointer { target in
                counts.withUnsafeMutableBufferPointer { counts in
                    var sortedInSource = true
                    for shift in stride(from: UInt64(0), to: 64, by: 8) {
                        let (from, to) = sortedInSource ? (source, target) : (target, source)
                        counts.update(repeating: 0)
                        for entry in from { counts[Int(truncatingIfNeeded: entry.prefix >> shift) & 0xFF] += 1 }
                        if counts.contains(from.count) { continue }  // every entry has this byte
                        var position = 0
                        for byte in 0..<256 { (counts[byte], position) = (position, position + counts[byte]) }
                        for entry in from {
                            let byte = Int(truncatingIfNeeded: entry.prefix >> shift) & 0xFF
                            to[counts[byte]] = entry
                            counts[byte] += 1
                        }
                        sortedInSource.toggle()
                    }
                    if !sortedInSource { _ = source.update(fromContentsOf: target) }
                }
            }
        }
        return source
    }
}
