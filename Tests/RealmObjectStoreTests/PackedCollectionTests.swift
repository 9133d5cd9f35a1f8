import Testing
import RealmObjectStore

@Suite struct PackedCollectionTests {
    static let samples: [ColumnValue] = [
        .null, .int(0), .int(.min), .int(.max), .bool(true), .bool(false), .float(-1.5), .double(.infinity),
        .double(-0.0), .bytes([]), .bytes(Array("héllo".utf8)), .bytes([0, 0, 1]), .fixed(Array(repeating: 7, count: 12)),
    ]

    @Test func elementsRoundTripInOrderWithDuplicates() {
        let elements = Self.samples + Self.samples.reversed()
        let packed = PackedCollection.encode(elements)
        #expect(PackedCollection.decode(packed) == elements)
        packed.withUnsafeBytes { bytes in
            #expect(PackedCollection.count(bytes) == elements.count)
            for (index, element) in elements.enumerated() { #expect(PackedCollection.element(index, of: bytes) == element) }
            #expect(PackedCollection.element(elements.count, of: bytes) == .null, "out of range reads as null")
        }
    }

    @Test func emptyAndMalformedValuesReadAsEmptyOrNull() {
        #expect(PackedCollection.decode([]) == [])
        #expect(PackedCollection.decode(PackedCollection.encode([])) == [])
        // A count larger than the value, offsets past the end, an unknown tag: nothing traps.
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0]
        #expect(PackedCollection.decode(huge) == [])
        var damaged = PackedCollection.encode([.int(1), .bytes([1, 2])])
        damaged[8] = 0xFF  // the second offset
        #expect(PackedCollection.decode(damaged).count == 2)
        var badTag = PackedCollection.encode([.int(1)])
        badTag[12] = 99
        #expect(PackedCollection.decode(badTag) == [.null])
    }

    @Test func mapsAreSortedByKeyAndTheLastValueWins() {
        let elements = PackedCollection.mapElements([("b", .int(1)), ("a", .int(2)), ("b", .int(3)), ("é", .null)])
        let entries = PackedCollection.entries(PackedCollection.decode(PackedCollection.encode(elements)))
        #expect(entries.map(\.key) == ["a", "b", "é"])
        #expect(entries.map(\.value) == [.int(2), .int(3), .null])
    }

    @Test func setsAreDistinctAndOrderedByValue() {
        let set = PackedCollection.setElements([.int(3), .int(-1), .int(3), .null, .int(0), .null])
        #expect(set == [.null, .int(-1), .int(0), .int(3)])
        let strings = PackedCollection.setElements([.bytes(Array("b".utf8)), .bytes(Array("a".utf8)), .bytes(Array("ab".utf8))])
        #expect(strings == [.bytes(Array("a".utf8)), .bytes(Array("ab".utf8)), .bytes(Array("b".utf8))])
    }

    @Test func mixedValuesRoundTripWithTheirKind() {
        let values: [MixedValue] = [
            .null, .value(.int, .int(-7)), .value(.date, .double(12.5)), .value(.double, .double(12.5)),
            .value(.string, .bytes(Array("x".utf8))), .value(.uuid, .fixed(Array(repeating: 1, count: 16))),
            .link(table: 3, key: .max),
        ]
        for value in values { #expect(MixedValue(stored: value.stored) == value) }
        #expect(MixedValue(stored: .bytes([200, 1])) == .null, "an unknown kind reads as null")
        #expect(MixedValue(stored: .bytes([UInt8(PropertyKind.allCases.firstIndex(of: .object)!), 1])) == .null)
        #expect(MixedValue.link(table: 3, key: 9).linkIndexKeys != MixedValue.link(table: 4, key: 9).linkIndexKeys)
        #expect(MixedValue.value(.int, .int(1)).linkIndexKeys.isEmpty)
    }

    @Test func nestedCollectionsRoundTripAndIndexTheirLinks() {
        let link = MixedValue.link(table: 3, key: 9)
        let inner = MixedValue.list([MixedValue.value(.int, .int(1)).stored, link.stored, .null])
        let dictionary = MixedValue.dictionary(PackedCollection.mapElements([
            (key: "b", value: inner.stored), (key: "a", value: link.stored),
        ]))
        let outer = MixedValue.list([dictionary.stored, MixedValue.list([]).stored])
        #expect(MixedValue(stored: outer.stored) == outer)
        #expect(MixedValue.isCollection(outer.stored) && !MixedValue.isCollection(link.stored))
        #expect(outer.linkIndexKeys == [link.linkIndexKeys[0], link.linkIndexKeys[0]])
        #expect(MixedValue(stored: .bytes([MixedValue.listTag, 1])) == .list([]), "a damaged list reads as empty")

        // Unlinking: the list element goes, the dictionary value becomes null.
        let unlinked = outer.unlinking(table: 3, key: 9)
        let expected = MixedValue.list([
            MixedValue.dictionary(PackedCollection.mapElements([
                (key: "a", value: .null),
                (key: "b", value: MixedValue.list([MixedValue.value(.int, .int(1)).stored, .null]).stored),
            ])).stored,
            MixedValue.list([]).stored,
        ])
        #expect(unlinked == expected)
        #expect(unlinked.linkIndexKeys.isEmpty)
    }

    /// The packed elements at `path` of a column value, decoded (nil if the path leads nowhere).
    func nested(_ column: ColumnValue, _ collection: CollectionKind?, _ path: [MixedPathStep], isMap: Bool = false) -> [ColumnValue]? {
        guard case .bytes(let bytes) = column else { return nil }
        return bytes.withUnsafeBytes { buffer in
            MixedPath.nestedBytes(in: buffer, collection: collection, path: path, isMap: isMap).map { PackedCollection.decode($0) }
        }
    }

    @Test func pathsReachAndRewriteNestedCollections() {
        let one = [MixedValue.value(.int, .int(1)).stored]
        let inner = MixedValue.list(one)
        let dictionary = MixedValue.dictionary(PackedCollection.mapElements([
            (key: "k", value: inner.stored), (key: "a", value: .null), (key: "z", value: MixedValue.list([]).stored),
        ]))
        let column = MixedValue.list([dictionary.stored]).stored
        #expect(nested(column, nil, [.index(0), .key("k")]) == one)
        #expect(nested(column, nil, [.index(0), .key("z")]) == [])
        #expect(nested(column, nil, [.index(0)], isMap: true)?.count == 6)
        #expect(nested(column, nil, [.index(0)]) == nil, "a dictionary is not a list")
        #expect(nested(column, nil, [.index(0), .key("a")]) == nil, "null is not a collection")
        #expect(nested(column, nil, [.index(0), .key("b")]) == nil, "no such key")
        #expect(nested(column, nil, [.index(1)]) == nil)
        #expect(nested(column, nil, [.key("k")]) == nil, "a key does not index a list")
        let two = [MixedValue.value(.int, .int(2)).stored]
        let rewritten = MixedPath.replacing(in: column, collection: nil, path: [.index(0), .key("k")], with: two)
        #expect(rewritten.flatMap { nested($0, nil, [.index(0), .key("k")]) } == two)

        // A List<AnyRealmValue> column: the first step picks one of its elements.
        let listColumn = ColumnValue.bytes(PackedCollection.encode([.null, inner.stored]))
        #expect(nested(listColumn, .list, [.index(1)]) == one)
        let replaced = MixedPath.replacing(in: listColumn, collection: .list, path: [.index(1)], with: [])
        #expect(replaced == .bytes(PackedCollection.encode([.null, MixedValue.list([]).stored])))
        #expect(MixedPath.replacing(in: listColumn, collection: .list, path: [.index(0)], with: []) == nil, "not a collection")
    }
}
