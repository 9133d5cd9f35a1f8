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

    /// The bytes of element `index`, in place, if it is a byte string (a string, data, a map's
    /// key, a stored mixed value); nil otherwise or if the value is malformed.
    package static func byteElement(_ index: Int, of bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let count = count(bytes)
        guard index >= 0, index < count else { return nil }
        let payload = headerSize + (count + 1) * 4
        let start = Int(bytes.loadUnaligned(fromByteOffset: headerSize + index * 4, as: UInt32.self).littleEndian)
        let end = Int(bytes.loadUnaligned(fromByteOffset: headerSize + (index + 1) * 4, as: UInt32.self).littleEndian)
        guard start < end, payload + end <= bytes.count, bytes[payload + start] == 5 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[(payload + start + 1)..<(payload + end)])
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
/// value, or, for an object, its table and object key, or, for a nested list or dictionary, its
/// elements. Null is the column's null.
///
/// ```
/// u8 kind (PropertyKind's index) | the value as a one-element PackedCollection element
/// u8 kind = object               | u64 table tree | u64 object key
/// u8 0x40 (list)                 | PackedCollection of stored mixed values (null, or these bytes)
/// u8 0x41 (dictionary)           | PackedCollection in map form: key, stored mixed value, …, sorted by key
/// ```
///
/// The collection tags lie outside `PropertyKind`'s indices, so the tags of files written before
/// nested collections existed keep their meaning (and an older reader reads a nested collection
/// as null). Nesting is unbounded in the format; writers stop at ``maximumNesting``.
package enum MixedValue: Equatable, Sendable {
    case null
    case value(PropertyKind, ColumnValue)
    case link(table: TreeID, key: UInt64)
    /// A list: each element a stored mixed value.
    case list([ColumnValue])
    /// A dictionary: its elements in map form (see ``PackedCollection/mapElements(_:)``), each
    /// value a stored mixed value.
    case dictionary([ColumnValue])

    private static let kinds = PropertyKind.allCases
    package static let listTag: UInt8 = 0x40
    package static let dictionaryTag: UInt8 = 0x41
    /// How deep collections may nest in a mixed value (Realm's limit is of the same order); it
    /// also stops a list that contains itself.
    package static let maximumNesting = 100

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
        case .list(let elements):
            return .bytes([Self.listTag] + PackedCollection.encode(elements))
        case .dictionary(let elements):
            return .bytes([Self.dictionaryTag] + PackedCollection.encode(elements))
        }
    }

    /// Decodes a stored value; anything malformed reads as null.
    package init(stored: ColumnValue) {
        guard case .bytes(let bytes) = stored, let first = bytes.first else {
            self = .null
            return
        }
        if first == Self.listTag || first == Self.dictionaryTag {
            let elements = bytes.withUnsafeBytes { PackedCollection.decode(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
            self = first == Self.listTag ? .list(elements) : .dictionary(elements)
            return
        }
        guard Int(first) < Self.kinds.count else {
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

    /// Whether a stored mixed value is a nested list or dictionary (without decoding it).
    package static func isCollection(_ stored: ColumnValue) -> Bool {
        guard case .bytes(let bytes) = stored, let first = bytes.first else { return false }
        return first == listTag || first == dictionaryTag
    }

    /// The index entries that find this value's links, nested collections included: table tree,
    /// then object key.
    package var linkIndexKeys: [[UInt8]] {
        (links ?? []).map { Self.linkIndexKey(table: $0.table, key: $0.key) }
    }

    /// The objects this value links to, nested collections included; nil if collections nest
    /// deeper than ``maximumNesting`` (which no writer does: a damaged or hostile value, which
    /// must not be followed level by level down the stack).
    package var links: [(table: TreeID, key: UInt64)]? {
        var links: [(table: TreeID, key: UInt64)] = []
        return collectLinks(into: &links, depth: 0) ? links : nil
    }

    private func collectLinks(into links: inout [(table: TreeID, key: UInt64)], depth: Int) -> Bool {
        switch self {
        case .link(let table, let key):
            links.append((table, key))
        case .list(let elements), .dictionary(let elements):
            guard depth < Self.maximumNesting else { return false }
            let values = if case .dictionary = self { PackedCollection.entries(elements).map(\.value) } else { elements }
            for value in values where !MixedValue(stored: value).collectLinks(into: &links, depth: depth + 1) { return false }
        case .null, .value:
            break
        }
        return true
    }

    /// The index entry that finds a link to object `key` of table `table`.
    package static func linkIndexKey(table: TreeID, key: UInt64) -> [UInt8] {
        IndexKey.int(Int64(bitPattern: table)) + IndexKey.int(Int64(bitPattern: key))
    }

    /// This value with every link to object `key` of `table` removed, as Realm does: a link
    /// becomes null, and inside nested collections a list loses the element and a dictionary's
    /// value becomes null.
    package func unlinking(table: TreeID, key: UInt64) -> MixedValue {
        switch self {
        case .link(table, key): .null
        case .list(let elements):
            .list(elements.filter { MixedValue(stored: $0) != .link(table: table, key: key) }
                .map { MixedValue(stored: $0).unlinking(table: table, key: key).stored })
        case .dictionary(let elements):
            .dictionary(PackedCollection.mapElements(PackedCollection.entries(elements).map {
                (key: $0.key, value: MixedValue(stored: $0.value).unlinking(table: table, key: key).stored)
            }))
        default: self
        }
    }
}

/// One step from a collection to a collection nested in it: a list position or a dictionary key.
package enum MixedPathStep: Hashable, Sendable {
    case index(Int)
    case key(String)
}

/// Reaching and rewriting collections nested in mixed values: a path of steps from a column's
/// value. The column is either a collection of mixed values (`List<AnyRealmValue>`,
/// `Map<String, AnyRealmValue>`: the first step picks one of its elements) or one mixed value
/// (the path starts at that value, which must be a collection).
package enum MixedPath {
    /// The packed elements of a container and whether it is a map.
    package typealias Container = (isMap: Bool, elements: [ColumnValue])

    /// The packed elements of the collection at `path`, in place in `column` (the column's stored
    /// bytes), if the path leads to a collection of the kind `isMap` says: O(depth × log n), with
    /// nothing decoded or copied.
    package static func nestedBytes(in column: UnsafeRawBufferPointer, collection: CollectionKind?, path: [MixedPathStep],
                                    isMap: Bool) -> UnsafeRawBufferPointer? {
        var container: (isMap: Bool, packed: UnsafeRawBufferPointer)
        if let collection {
            container = (collection == .map, column)
        } else {
            guard let root = collectionBody(column) else { return nil }
            container = root
        }
        for step in path {
            let element: UnsafeRawBufferPointer?
            switch (container.isMap, step) {
            case (false, .index(let index)): element = PackedCollection.byteElement(index, of: container.packed)
            case (true, .key(let key)): element = valueBytes(of: key, in: container.packed)
            default: element = nil
            }
            guard let element, let next = collectionBody(element) else { return nil }
            container = next
        }
        return container.isMap == isMap ? container.packed : nil
    }

    /// A stored mixed value's collection: its kind and its packed elements (after the tag).
    private static func collectionBody(_ mixed: UnsafeRawBufferPointer) -> (isMap: Bool, packed: UnsafeRawBufferPointer)? {
        guard let tag = mixed.first, tag == MixedValue.listTag || tag == MixedValue.dictionaryTag else { return nil }
        return (tag == MixedValue.dictionaryTag, UnsafeRawBufferPointer(rebasing: mixed.dropFirst()))
    }

    /// The value of `key` in a packed map, in place (keys are sorted by UTF-8 bytes).
    private static func valueBytes(of key: String, in packed: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let target = Array(key.utf8)
        var (low, high) = (0, PackedCollection.count(packed) / 2)
        while low < high {
            let middle = (low + high) / 2
            guard let stored = PackedCollection.byteElement(2 * middle, of: packed) else { return nil }
            if stored.elementsEqual(target) { return PackedCollection.byteElement(2 * middle + 1, of: packed) }
            if stored.lexicographicallyPrecedes(target) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The nested collection's elements; nil if the path does not lead to a list or dictionary.
    package static func container(_ stored: ColumnValue) -> Container? {
        switch MixedValue(stored: stored) {
        case .list(let elements): (false, elements)
        case .dictionary(let elements): (true, elements)
        default: nil
        }
    }

    /// The column's value with the collection at `path` (non-empty for a collection column)
    /// replaced by `elements` of the same kind; nil if the path no longer leads to a collection.
    package static func replacing(in column: ColumnValue, collection: CollectionKind?, path: [MixedPathStep],
                                  with elements: [ColumnValue]) -> ColumnValue? {
        if let collection {
            guard let first = path.first, case .bytes(let bytes) = column else { return nil }
            let root: Container = (collection == .map, PackedCollection.decode(bytes))
            guard let child = child(of: root, at: first),
                  let newChild = replacing(inMixed: child, path: path.dropFirst(), with: elements),
                  let newRoot = replacingChild(of: root, at: first, with: newChild) else { return nil }
            return .bytes(PackedCollection.encode(newRoot))
        }
        return replacing(inMixed: column, path: path[...], with: elements)
    }

    private static func replacing(inMixed stored: ColumnValue, path: ArraySlice<MixedPathStep>, with elements: [ColumnValue]) -> ColumnValue? {
        guard let container = container(stored) else { return nil }
        guard let step = path.first else {
            return (container.isMap ? MixedValue.dictionary(elements) : MixedValue.list(elements)).stored
        }
        guard let child = child(of: container, at: step),
              let newChild = replacing(inMixed: child, path: path.dropFirst(), with: elements),
              let newElements = replacingChild(of: container, at: step, with: newChild) else { return nil }
        return (container.isMap ? MixedValue.dictionary(newElements) : MixedValue.list(newElements)).stored
    }

    private static func child(of container: Container, at step: MixedPathStep) -> ColumnValue? {
        switch (container.isMap, step) {
        case (false, .index(let index)):
            return container.elements.indices.contains(index) ? container.elements[index] : nil
        case (true, .key(let key)):
            return entryIndex(of: key, in: container.elements).map { container.elements[2 * $0 + 1] }
        default:
            return nil
        }
    }

    private static func replacingChild(of container: Container, at step: MixedPathStep, with child: ColumnValue) -> [ColumnValue]? {
        var elements = container.elements
        switch (container.isMap, step) {
        case (false, .index(let index)) where elements.indices.contains(index):
            elements[index] = child
        case (true, .key(let key)):
            guard let entry = entryIndex(of: key, in: elements) else { return nil }
            elements[2 * entry + 1] = child
        default:
            return nil
        }
        return elements
    }

    private static func entryIndex(of key: String, in elements: [ColumnValue]) -> Int? {
        let target = ColumnValue.bytes(Array(key.utf8))
        return stride(from: 0, to: elements.count - 1, by: 2).first { elements[$0] == target }.map { $0 / 2 }
    }
}
