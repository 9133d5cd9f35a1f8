package import RealmStorage

/// The stored form of a `List`, `MutableSet` or `Map` property: all its elements packed into one
/// byte-string column value.
///
/// ```
/// u32 count | u32 offsets[count + 1] | elements
/// ```
/// Offsets are relative to the start of the elements, so element `i` is the bytes
/// `[offsets[i], offsets[i + 1])`: reading `count` or one element is O(1), with no decoding of
/// the others. Each element is a tag byte and its value (`ColumnValue` layout, little-endian):
/// `0` null, `1` int (8 bytes), `2` bool (1), `3` float (4), `4` double (8), `5` bytes (the rest),
/// `6` fixed-width bytes (the rest). Links are their target's object key as an int.
///
/// A map stores `2 × entries` elements, key then value, sorted by key; a set stores its elements
/// distinct and sorted by their index encoding (Realm's order for sets of one type).
///
/// Why packed and not a tree per collection: collections in object models are mostly small, and
/// a packed array costs one column value to read (no extra pages) and its size to rewrite. A
/// change rewrites the whole value, so a collection of n elements costs O(n) per change; lists of
/// hundreds of thousands of elements would want a B+tree of their own (a later format version).
package enum PackedCollection {
    private static let headerSize = 4

    /// Packs elements.
    package static func encode(_ elements: [ColumnValue]) -> [UInt8] {
        var payload: [UInt8] = []
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(elements.count + 1)
        for element in elements {
            append(element, to: &payload)
            offsets.append(UInt32(payload.count))
        }
        var result: [UInt8] = []
        result.reserveCapacity(headerSize + offsets.count * 4 + payload.count)
        appendU32(UInt32(elements.count), to: &result)
        for offset in offsets { appendU32(offset, to: &result) }
        result += payload
        return result
    }

    /// The number of elements (for a map, twice the entries); 0 for an empty or malformed value.
    package static func count(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= headerSize else { return 0 }
        let count = Int(bytes.loadUnaligned(as: UInt32.self).littleEndian)
        return bytes.count >= headerSize + (count + 1) * 4 ? count : 0
    }

    /// Element `index`; `.null` if the value is malformed (a damaged file reads as nulls).
    package static func element(_ index: Int, of bytes: UnsafeRawBufferPointer) -> ColumnValue {
        let count = count(bytes)
        guard index >= 0, index < count else { return .null }
        let payload = headerSize + (count + 1) * 4
        let start = Int(bytes.loadUnaligned(fromByteOffset: headerSize + index * 4, as: UInt32.self).littleEndian)
        let end = Int(bytes.loadUnaligned(fromByteOffset: headerSize + (index + 1) * 4, as: UInt32.self).littleEndian)
        guard start < end, payload + end <= bytes.count else { return .null }
        return decodeElement(UnsafeRawBufferPointer(rebasing: bytes[(payload + start)..<(payload + end)]))
    }

    /// Every element.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> [ColumnValue] {
        (0..<count(bytes)).map { element($0, of: bytes) }
    }

    package static func decode(_ bytes: [UInt8]) -> [ColumnValue] {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// A map's entries from its elements (key, value, key, value…).
    package static func entries(_ elements: [ColumnValue]) -> [(key: String, value: ColumnValue)] {
        stride(from: 0, to: elements.count - 1, by: 2).map { index in
            guard case .bytes(let key) = elements[index] else { return ("", elements[index + 1]) }
            return (String(decoding: key, as: UTF8.self), elements[index + 1])
        }
    }

    /// A map's elements from entries: sorted by key (by UTF-8 bytes), the last value of a key wins.
    package static func mapElements(_ entries: [(key: String, value: ColumnValue)]) -> [ColumnValue] {
        var byKey: [String: ColumnValue] = [:]
        for (key, value) in entries { byKey[key] = value }
        return byKey.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .flatMap { [ColumnValue.bytes(Array($0.key.utf8)), $0.value] }
    }

    /// A set's elements: distinct, in index-encoding order.
    package static func setElements(_ elements: [ColumnValue]) -> [ColumnValue] {
        var seen = Set<[UInt8]>()
        return elements.map { (IndexKey.sortKey($0), $0) }
            .filter { seen.insert($0.0).inserted }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            .map(\.1)
    }

    private static func append(_ value: ColumnValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(0)
        case .int(let int):
            bytes.append(1)
            withUnsafeBytes(of: int.littleEndian) { bytes += $0 }
        case .bool(let bool): bytes += [2, bool ? 1 : 0]
        case .float(let float):
            bytes.append(3)
            withUnsafeBytes(of: float.bitPattern.littleEndian) { bytes += $0 }
        case .double(let double):
            bytes.append(4)
            withUnsafeBytes(of: double.bitPattern.littleEndian) { bytes += $0 }
        case .bytes(let value):
            bytes.append(5)
            bytes += value
        case .fixed(let value):
            bytes.append(6)
            bytes += value
        }
    }

    private static func decodeElement(_ bytes: UnsafeRawBufferPointer) -> ColumnValue {
        let body = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        switch bytes[0] {
        case 1 where body.count == 8: return .int(Int64(littleEndian: body.loadUnaligned(as: Int64.self)))
        case 2 where body.count == 1: return .bool(body[0] != 0)
        case 3 where body.count == 4: return .float(Float(bitPattern: UInt32(littleEndian: body.loadUnaligned(as: UInt32.self))))
        case 4 where body.count == 8: return .double(Double(bitPattern: UInt64(littleEndian: body.loadUnaligned(as: UInt64.self))))
        case 5: return .bytes(Array(body))
        case 6: return .fixed(Array(body))
        default: return .null
        }
    }

    private static func appendU32(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// The stored form of an `AnyRealmValue`: a byte string holding the value's kind and its stored
/// value, or, for an object, its table and object key. Null is the column's null.
///
/// ```
/// u8 kind (PropertyKind's index) | the value as a one-element PackedCollection element
/// u8 kind = object               | u64 table tree | u64 object key
/// ```
package enum MixedValue: Equatable, Sendable {
    case null
    case value(PropertyKind, ColumnValue)
    case link(table: TreeID, key: UInt64)

    private static let kinds = PropertyKind.allCases

    package var stored: ColumnValue {
        switch self {
        case .null:
            return .null
        case .value(let kind, let value):
            let packed = PackedCollection.encode([value])
            return .bytes([UInt8(Self.kinds.firstIndex(of: kind)!)] + packed)
        case .link(let table, let key):
            var bytes = [UInt8(Self.kinds.firstIndex(of: .object)!)]
            withUnsafeBytes(of: table.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: key.littleEndian) { bytes += $0 }
            return .bytes(bytes)
        }
    }

    /// Decodes a stored value; anything malformed reads as null.
    package init(stored: ColumnValue) {
        guard case .bytes(let bytes) = stored, let first = bytes.first, Int(first) < Self.kinds.count else {
            self = .null
            return
        }
        let kind = Self.kinds[Int(first)]
        let body = Array(bytes.dropFirst())
        if kind == .object {
            guard body.count == 16 else { self = .null; return }
            self = body.withUnsafeBytes {
                .link(table: UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)),
                      key: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            return
        }
        let value = body.withUnsafeBytes { PackedCollection.element(0, of: $0) }
        self = value == .null ? .null : .value(kind, value)
    }

    /// The index entry that finds this value's link: table tree, then object key.
    package var linkIndexKey: [UInt8]? {
        guard case .link(let table, let key) = self else { return nil }
        return IndexKey.int(Int64(bitPattern: table)) + IndexKey.int(Int64(bitPattern: key))
    }
}
