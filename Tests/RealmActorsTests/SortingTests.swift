import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class SortSample: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var int = 0
    @Persisted var optionalInt: Int?
    @Persisted var double = 0.0
    @Persisted var float: Float = 0
    @Persisted var string = ""
    @Persisted var optionalString: String?
    @Persisted var data = Data()
    @Persisted var flag = false
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var objectId = ObjectId()
    @Persisted var uuid = UUID()
    @Persisted var decimal = Decimal128(0)
    @Persisted var mixed = AnyRealmValue.none
    @Persisted var link: SortSample?
}

/// Sorting edge cases, each checked against Swift's own (stable) sort of the same objects: nil
/// first ascending and last descending, negative numbers, -0.0 and 0.0 equal, infinities, strings
/// that differ only after their first 8 bytes or in length, non-ASCII strings in Unicode scalar
/// order, decimals by value, ties kept in key order in both directions, several descriptors,
/// paths through links, filtered results and lists.
@Suite struct SortingTests {
    static let strings = ["", "a", "B", "b", "abcdefgh", "abcdefghi", "abcdefghh", "abcdefgh\u{0}", "Åsa", "Zoë", "émile", "zz",
                          "prefix-shared-1", "prefix-shared-10", "prefix-shared-2", "日本語"]
    static let doubles: [Double] = [0, -0.0, -1, 1, -.infinity, .infinity, 2.5, -2.5, 1e-300, -1e300, .greatestFiniteMagnitude]
    static let decimals = ["0", "-1", "1.5", "10", "100", "-100.25", "0.001", "1e10", "-0", "2"]

    static func realm() throws -> (Realm, [SortSample]) {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        var random = SplitMix64(seed: 42)
        try realm.write {
            var objects: [SortSample] = []
            for id in 0..<400 {
                let object = SortSample()
                object.id = id
                object.int = Int.random(in: -5...5, using: &random) * (id % 3 == 0 ? Int.max / 10 : 1)
                object.optionalInt = id % 4 == 0 ? nil : Int.random(in: -3...3, using: &random)
                object.double = doubles.randomElement(using: &random)!
                object.float = Float(doubles.randomElement(using: &random)!)
                object.string = strings.randomElement(using: &random)!
                object.optionalString = id % 5 == 0 ? nil : strings.randomElement(using: &random)!
                object.data = Data(strings.randomElement(using: &random)!.utf8)
                object.flag = Bool.random(using: &random)
                object.date = Date(timeIntervalSince1970: Double(Int.random(in: -3...3, using: &random)) * 1e9)
                object.uuid = UUID(uuid: (UInt8(id % 7), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(id % 3)))
                object.decimal = try Decimal128(string: decimals.randomElement(using: &random)!)
                object.mixed = id % 3 == 0 ? .int(id % 5) : (id % 3 == 1 ? .string("m\(id % 4)") : .none)
                if id > 0, id % 6 != 0 { object.link = objects[Int.random(in: 0..<objects.count, using: &random)] }
                realm.add(object)
                objects.append(object)
            }
        }
        return (realm, Array(realm.objects(SortSample.self)))
    }

    /// Compares two optional values with nil first; byte order for strings.
    static func compare<T>(_ a: T?, _ b: T?, _ less: (T, T) -> Bool) -> Int {
        switch (a, b) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case (let x?, let y?): less(x, y) ? -1 : (less(y, x) ? 1 : 0)
        }
    }

    static func utf8Less(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }

    /// What `sorted(byKeyPath:)` must produce: a stable sort by `compare`, in either direction.
    static func expected(_ objects: [SortSample], ascending: Bool, _ compare: (SortSample, SortSample) -> Int) -> [Int] {
        objects.enumerated().sorted { a, b in
            let ordering = compare(a.element, b.element)
            if ordering != 0 { return ascending ? ordering < 0 : ordering > 0 }
            return a.offset < b.offset
        }.map(\.element.id)
    }

    static let orderings: [(String, @Sendable (SortSample, SortSample) -> Int)] = [
        ("int", { compare($0.int, $1.int, <) }),
        ("optionalInt", { compare($0.optionalInt, $1.optionalInt, <) }),
        ("double", { compare($0.double, $1.double, <) }),
        ("float", { compare($0.float, $1.float, <) }),
        ("string", { compare($0.string, $1.string, utf8Less) }),
        ("optionalString", { compare($0.optionalString, $1.optionalString, utf8Less) }),
        ("data", { compare($0.data, $1.data) { $0.lexicographicallyPrecedes($1) } }),
        ("flag", { compare($0.flag, $1.flag) { !$0 && $1 } }),
        ("date", { compare($0.date, $1.date, <) }),
        ("uuid", { compare($0.uuid.uuidString, $1.uuid.uuidString, <) }),
        ("decimal", { compare($0.decimal, $1.decimal, <) }),
        ("link.int", { compare($0.link?.int, $1.link?.int, <) }),
        ("link.string", { compare($0.link?.string, $1.link?.string, utf8Less) }),
    ]

    @Test(arguments: [true, false])
    func everyKindSortsLikeSwift(ascending: Bool) throws {
        let (realm, all) = try Self.realm()
        for (keyPath, compare) in Self.orderings {
            let sorted = realm.objects(SortSample.self).sorted(byKeyPath: keyPath, ascending: ascending)
            #expect(sorted.map(\.id) == Self.expected(all, ascending: ascending, compare), "\(keyPath) ascending: \(ascending)")
        }
    }

    @Test func severalDescriptorsFilteredResultsAndLists() throws {
        let (realm, all) = try Self.realm()
        let descriptors = [SortDescriptor(keyPath: "flag", ascending: false), SortDescriptor(keyPath: "optionalString"),
                           SortDescriptor(keyPath: "double", ascending: false)]
        func byDescriptors(_ a: SortSample, _ b: SortSample) -> Int {
            let flag = Self.compare(a.flag, b.flag) { !$0 && $1 }
            if flag != 0 { return -flag }
            let string = Self.compare(a.optionalString, b.optionalString, Self.utf8Less)
            if string != 0 { return string }
            return -Self.compare(a.double, b.double, <)
        }
        #expect(realm.objects(SortSample.self).sorted(by: descriptors).map(\.id) == Self.expected(all, ascending: true, byDescriptors))

        // Filtered results take the per-key path instead of the whole-table pass.
        let filtered = realm.objects(SortSample.self).filter("int >= 0").sorted(by: descriptors)
        #expect(filtered.map(\.id) == Self.expected(all.filter { $0.int >= 0 }, ascending: true, byDescriptors))

        // A list sorts its own elements; duplicates stay, in list order on ties.
        let holder = all[1]
        try realm.write { holder.link = nil }
        let list = realm.objects(SortSample.self).sorted(byKeyPath: "id", ascending: false).prefix(50)
        let listed = Array(list) + Array(list.prefix(5))
        let listHolder = try realm.write { realm.create(SortHolder.self, value: ["items": listed]) }
        let sortedList = listHolder.items.sorted(byKeyPath: "string")
        let expectedList = listed.enumerated().sorted { a, b in
            let ordering = Self.compare(a.element.string, b.element.string, Self.utf8Less)
            return ordering != 0 ? ordering < 0 : a.offset < b.offset
        }.map(\.element.id)
        #expect(sortedList.map(\.id) == expectedList)

        // Sorting sorted results: the last sort decides, and the earlier one breaks its ties (as
        // realm-core merges the new keys in front of the old).
        let resorted = realm.objects(SortSample.self).sorted(byKeyPath: "int").sorted(byKeyPath: "string", ascending: false)
        let byInt = Self.expected(all, ascending: true) { Self.compare($0.int, $1.int, <) }.map { id in all.first { $0.id == id }! }
        #expect(resorted.map(\.id) == Self.expected(byInt, ascending: false) { Self.compare($0.string, $1.string, Self.utf8Less) })
    }

    /// Reading the first objects of a large sort selects them without sorting everything (a
    /// top-k path, growing as reads go further): the objects must be the same as a full sort's,
    /// ties across the selection's edge included, in both directions and with nils.
    @Test(arguments: [true, false])
    func readingTheFirstObjectsOfALargeSort(ascending: Bool) throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        var random = SplitMix64(seed: ascending ? 1 : 2)
        try realm.write {
            for id in 0..<3000 {
                realm.create(SortSample.self, value: [
                    "id": id, "int": Int.random(in: 0..<20, using: &random),
                    "optionalInt": id % 9 == 0 ? nil : Int.random(in: -50...50, using: &random) as Int?,
                    "string": Self.strings.randomElement(using: &random)!,
                ])
            }
        }
        let all = Array(realm.objects(SortSample.self))
        let descriptors = [SortDescriptor(keyPath: "optionalInt", ascending: ascending), SortDescriptor(keyPath: "string"),
                           SortDescriptor(keyPath: "int", ascending: false)]
        let expected = Self.expected(all, ascending: true) { a, b in
            let first = Self.compare(a.optionalInt, b.optionalInt, <)
            if first != 0 { return ascending ? first : -first }
            let second = Self.compare(a.string, b.string, Self.utf8Less)
            return second != 0 ? second : -Self.compare(a.int, b.int, <)
        }
        for reads in [1, 5, 100, 129, 700, 3000] {
            let sorted = realm.objects(SortSample.self).sorted(by: descriptors)
            #expect(sorted.count == 3000)
            #expect(sorted.first?.id == expected.first)
            #expect(sorted.prefix(reads).map(\.id) == Array(expected.prefix(reads)), "first \(reads)")
        }
        // One key with few distinct values: the selection's edge falls inside a run of ties.
        let byInt = realm.objects(SortSample.self).sorted(byKeyPath: "int", ascending: ascending)
        let expectedByInt = Self.expected(all, ascending: ascending) { Self.compare($0.int, $1.int, <) }
        #expect(byInt.prefix(10).map(\.id) == Array(expectedByInt.prefix(10)))
        #expect(byInt[2999].id == expectedByInt[2999])
        let filtered = realm.objects(SortSample.self).filter("int < 10").sorted(byKeyPath: "string", ascending: ascending)
        let expectedFiltered = Self.expected(all.filter { $0.int < 10 }, ascending: ascending) { Self.compare($0.string, $1.string, Self.utf8Less) }
        #expect(filtered.prefix(3).map(\.id) == Array(expectedFiltered.prefix(3)))
    }

    @Test func mixedValuesSortNilFirstAndStayDeterministic() throws {
        let (realm, _) = try Self.realm()
        let sorted = Array(realm.objects(SortSample.self).sorted(byKeyPath: "mixed"))
        let firstNonNil = sorted.firstIndex { $0.mixed != .none } ?? sorted.count
        #expect(sorted[..<firstNonNil].allSatisfy { $0.mixed == .none })
        #expect(sorted[firstNonNil...].allSatisfy { $0.mixed != .none })
        #expect(sorted.map(\.id) == realm.objects(SortSample.self).sorted(byKeyPath: "mixed").map(\.id))
    }

    /// Realm Swift's other spellings of a sort: Swift key paths, string literals, `reversed()`.
    @Test func sortDescriptorsFromKeyPathsAndLiterals() throws {
        let (realm, _) = try Self.realm()
        let samples = realm.objects(SortSample.self)
        let expected = samples.sorted(byKeyPath: "int", ascending: false).map(\.id)
        #expect(samples.sorted(by: \.int, ascending: false).map(\.id) == expected)
        #expect(samples.sorted(by: [SortDescriptor(keyPath: \SortSample.int, ascending: false)]).map(\.id) == expected)
        #expect(samples.sorted(by: [SortDescriptor(keyPath: "int").reversed()]).map(\.id) == expected)
        let literal: RealmActors.SortDescriptor = "string"  // Foundation has a SortDescriptor too
        #expect(literal == SortDescriptor(keyPath: "string", ascending: true))
        #expect(samples.sorted(by: ["int", "string"]).map(\.id) == samples.sorted(by: [SortDescriptor(keyPath: "int"), SortDescriptor(keyPath: "string")]).map(\.id))
        #expect(SortDescriptor(keyPath: "age", ascending: false).description == "SortDescriptor(keyPath: age, direction: descending)")
        #expect(samples.distinct(by: [\SortSample.flag]).map(\.id) == samples.distinct(by: ["flag"]).map(\.id))
        #expect(samples.distinct(by: [\SortSample.flag]).count == 2)
    }

    /// Sort and distinct key paths from outside the program: bad ones throw, naming the key path
    /// and the problem; paths into or through a collection are refused rather than ignored.
    @Test func validatingSortAndDistinctKeyPathsThrow() throws {
        let (realm, all) = try Self.realm()
        try realm.write { realm.create(SortHolder.self, value: ["items": Array(all.prefix(3))]) }
        let cases: [(String, String)] = [
            ("nosuch", "Property 'nosuch' not found"),
            ("link.nosuch", "Property 'link' not found in object of type 'SortHolder'"),
            ("items", "Property 'SortHolder.items' is a list"),
            ("items.int", "Property 'SortHolder.items' is a list"),
        ]
        for (keyPath, expected) in cases {
            for use in ["sort", "distinct"] {
                do {
                    let holders = realm.objects(SortHolder.self)
                    if use == "sort" { _ = try holders.sorted(validating: keyPath) } else { _ = try holders.distinct(validating: [keyPath]) }
                    Issue.record("\(use) on '\(keyPath)' was accepted")
                } catch let error as Realm.Error {
                    #expect(error.code == .invalidInput)
                    #expect(error.message.contains("Cannot \(use) on key path '\(keyPath)'") && error.message.contains(expected), "\(error.message)")
                }
            }
        }
        let byInt = try realm.objects(SortSample.self).sorted(validating: "int", ascending: false)
        #expect(byInt.map(\.id) == realm.objects(SortSample.self).sorted(byKeyPath: "int", ascending: false).map(\.id))
        let byLink = try realm.objects(SortSample.self).distinct(validating: ["link.int"])
        #expect(byLink.count == realm.objects(SortSample.self).distinct(by: ["link.int"]).count)
    }

    /// A key path written in the program that does not fit traps, naming it, as Realm raises.
    @Test func sortingByAMissingPropertyTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
            try realm.write { realm.add(SortHolder()) }
            _ = realm.objects(SortHolder.self).sorted(byKeyPath: "items.int")
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("Cannot sort on key path 'items.int'") && message.contains("is a list"), "\(message)")
        }
    }
}

final class SortHolder: Object {
    @Persisted var items: List<SortSample>
}
