import Foundation
import Testing
import RealmActors
import RealmRuntime
import RealmTestSupport

final class MCHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
    @Persisted var byName: Map<String, AnyRealmValue>
    @Persisted var distinct: MutableSet<AnyRealmValue>
}

final class MCItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

/// `AnyRealmValue.list` and `.dictionary`: nested collections in mixed values, through the
/// public API.
@Suite struct MixedCollectionTests {
    func inMemory() throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [MCHolder.self, MCItem.self]
        return try Realm(configuration: configuration)
    }

    /// A list in a dictionary in a list, with a link inside.
    static func nested(_ item: MCItem) -> AnyRealmValue {
        .fromArray([
            .int(1),
            .fromDictionary(["numbers": .fromArray([.int(2), .string("three")]), "item": .object(item), "none": .none]),
            .fromArray([]),
        ])
    }

    /// Every case of `AnyRealmValue`, handled without a default: fails to compile if a case is
    /// missing (or added without handling here).
    static func kind(_ value: AnyRealmValue) -> String {
        switch value {
        case .none: "none"
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .object: "object"
        case .objectId: "objectId"
        case .decimal128: "decimal128"
        case .uuid: "uuid"
        case .dictionary: "dictionary"
        case .list: "list"
        }
    }

    func expectNested(_ value: AnyRealmValue, itemName: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let list = try #require(value.listValue, sourceLocation: sourceLocation)
        #expect(list.count == 3, sourceLocation: sourceLocation)
        #expect(list[0] == .int(1), sourceLocation: sourceLocation)
        let dictionary = try #require(list[1].dictionaryValue, sourceLocation: sourceLocation)
        #expect(dictionary.keys == ["item", "none", "numbers"], sourceLocation: sourceLocation)
        #expect(dictionary["none"] == AnyRealmValue.none, sourceLocation: sourceLocation)
        let numbers = try #require(dictionary["numbers"]?.listValue, sourceLocation: sourceLocation)
        #expect(Array(numbers) == [.int(2), .string("three")], sourceLocation: sourceLocation)
        #expect(dictionary["item"]?.object(MCItem.self)?.name == itemName, sourceLocation: sourceLocation)
        #expect(list[2].listValue?.isEmpty == true, sourceLocation: sourceLocation)
    }

    @Test func switchesOverEveryCaseAndTheAccessorsMatch() {
        #expect(Self.kind(.fromArray([.int(1)])) == "list" && Self.kind(.fromDictionary([:])) == "dictionary")
        #expect(AnyRealmValue.fromArray([.int(1)]).listValue.map(Array.init) == [.int(1)])
        #expect(AnyRealmValue.fromArray([]).dictionaryValue == nil && AnyRealmValue.int(1).listValue == nil)
        #expect(AnyRealmValue.fromDictionary(["a": .bool(true)]).dictionaryValue?["a"] == .bool(true))
        #expect(AnyRealmValue() == AnyRealmValue.none)
    }

    @Test func unmanagedCollectionsCompareByContent() {
        let item = MCItem()
        #expect(AnyRealmValue.fromDictionary([:]) == .fromDictionary([:]))
        #expect(Self.nested(item) == Self.nested(item))
        #expect(AnyRealmValue.fromArray([.int(1)]) != .fromArray([.int(2)]))
        #expect(AnyRealmValue.fromArray([.int(1)]) != .fromDictionary(["0": .int(1)]))
        let changed = AnyRealmValue.fromDictionary(["a": .int(1)])
        changed.dictionaryValue?["b"] = .bool(false)
        #expect(changed != .fromDictionary(["a": .int(1)]))
        #expect(Set([AnyRealmValue.fromArray([.int(1)]), .fromArray([.int(1)]), .int(1)]).count == 2, "hash agrees with ==")
        let holder = MCHolder()
        holder.value = Self.nested(item)
        #expect(holder.value == Self.nested(item), "an unmanaged object keeps the value")
    }

    @Test func nestedValuesAreStoredAndReadBack() throws {
        let realm = try inMemory()
        let item = MCItem(value: ["id": 1, "name": "pen"])
        let unmanaged = MCHolder(value: ["id": 1])
        unmanaged.value = Self.nested(item)
        try realm.write {
            realm.add(unmanaged)
            let managed = realm.create(MCHolder.self, value: ["id": 2])
            managed.value = Self.nested(item)
            managed.values.append(Self.nested(item))
            managed.values.append(.fromDictionary(["x": .fromArray([.int(5)])]))
            managed.byName["deep"] = Self.nested(item)
        }
        #expect(realm.objects(MCItem.self).count == 1, "the linked object is added once")
        let first = try #require(realm.object(ofType: MCHolder.self, forPrimaryKey: 1))
        let second = try #require(realm.object(ofType: MCHolder.self, forPrimaryKey: 2))
        try expectNested(first.value, itemName: "pen")
        try expectNested(second.value, itemName: "pen")
        try expectNested(second.values[0], itemName: "pen")
        #expect(second.values[1].dictionaryValue?["x"]?.listValue?[0] == .int(5))
        try expectNested(try #require(second.byName["deep"]), itemName: "pen")
        #expect(first.value != second.value, "managed collections of different objects are different collections")
        #expect(first.value == first.value && second.values[0] == second.values[0])
        #expect(first.value.listValue?.realm != nil, "read from a managed object, the list is managed")
    }

    @Test func nestedValuesPersistAcrossReopening() throws {
        let directory = try TemporaryDirectory()
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("mixed.realm"))
        configuration.objectTypes = [MCHolder.self, MCItem.self]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let holder = realm.create(MCHolder.self, value: ["id": 1])
                holder.value = Self.nested(MCItem(value: ["id": 7, "name": "cup"]))
                holder.values.append(.fromArray([.double(1.5), .fromArray([.uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)])]))
            }
        }
        let realm = try Realm(configuration: configuration)
        let holder = try #require(realm.object(ofType: MCHolder.self, forPrimaryKey: 1))
        try expectNested(holder.value, itemName: "cup")
        #expect(holder.values[0].listValue?[1].listValue?[0].uuidValue == UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
        #expect(holder.values[0].listValue?[0] == .double(1.5))
    }

    @Test func nestedCollectionsAreLive() throws {
        let realm = try inMemory()
        let holder = try realm.write {
            let holder = realm.create(MCHolder.self, value: ["id": 1])
            holder.value = .fromDictionary(["list": .fromArray([.int(1)]), "map": .fromDictionary([:])])
            holder.values.append(.fromArray([]))
            holder.byName["m"] = .fromDictionary(["inner": .fromArray([])])
            return holder
        }
        let list = try #require(holder.value.dictionaryValue?["list"]?.listValue)
        let map = try #require(holder.value.dictionaryValue?["map"]?.dictionaryValue)
        try realm.write {
            holder.value.dictionaryValue?["list"]?.listValue?.append(.int(2))
            list.insert(.string("zero"), at: 0)
            map["k"] = .fromArray([.bool(true)])
            map["k"]?.listValue?.append(.bool(false))
            holder.values[0].listValue?.append(.fromDictionary(["a": .int(1)]))
            holder.values[0].listValue?[0].dictionaryValue?["b"] = .int(2)
            holder.byName["m"]?.dictionaryValue?["inner"]?.listValue?.append(.string("x"))
            // A new key sorting before the nested value's: its path goes by key, not position.
            holder.value.dictionaryValue?["a"] = .int(0)
            list.append(.int(3))
        }
        #expect(Array(list) == [.string("zero"), .int(1), .int(2), .int(3)])
        #expect(holder.value.dictionaryValue?["map"]?.dictionaryValue?["k"]?.listValue.map(Array.init) == [.bool(true), .bool(false)])
        #expect(holder.values[0].listValue?[0].dictionaryValue?.count == 2)
        #expect(holder.byName["m"]?.dictionaryValue?["inner"]?.listValue?[0] == .string("x"))
        #expect(holder.value.dictionaryValue?.keys == ["a", "list", "map"])

        // Removing and moving inside a nested list.
        try realm.write {
            list.remove(at: 0)
            list.move(from: 0, to: 2)
        }
        #expect(Array(list) == [.int(2), .int(3), .int(1)])

        // Replacing the value holding a live list invalidates the list.
        try realm.write { holder.value = .int(5) }
        #expect(list.isInvalidated && !holder.values[0].listValue!.isInvalidated)
    }

    @Test func changingANestedCollectionModifiesTheOwner() async throws {
        let realm = try inMemory()
        let holder = try realm.write {
            let holder = realm.create(MCHolder.self, value: ["id": 1])
            holder.value = .fromArray([.fromArray([])])
            return holder
        }
        var changes = holder.changes.makeAsyncIterator()
        try realm.write { holder.value.listValue?[0].listValue?.append(.int(9)) }
        guard case .change(let frozen, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["value"])
        _ = frozen
        #expect(holder.value.listValue?[0].listValue?[0] == .int(9))
    }

    @Test func deletingALinkedObjectRemovesItFromNestedLists() throws {
        let realm = try inMemory()
        let holder = try realm.write {
            let item = realm.create(MCItem.self, value: ["id": 1, "name": "gone"])
            let kept = realm.create(MCItem.self, value: ["id": 2, "name": "kept"])
            let holder = realm.create(MCHolder.self, value: ["id": 1])
            holder.value = .fromDictionary([
                "list": .fromArray([.object(item), .int(1), .object(kept), .object(item)]),
                "link": .object(item),
                "deeper": .fromArray([.fromDictionary(["x": .object(item)])]),
            ])
            holder.values.append(.fromArray([.object(item)]))
            return holder
        }
        let item = try #require(realm.object(ofType: MCItem.self, forPrimaryKey: 1))
        try realm.write { realm.delete(item) }
        let dictionary = try #require(holder.value.dictionaryValue)
        #expect(dictionary["list"]?.listValue?.count == 2)
        #expect(dictionary["list"]?.listValue?[0] == .int(1))
        #expect(dictionary["list"]?.listValue?[1].object(MCItem.self)?.name == "kept")
        #expect(dictionary["link"] == AnyRealmValue.none, "a dictionary keeps the key with a null value")
        #expect(dictionary["deeper"]?.listValue?[0].dictionaryValue?["x"] == AnyRealmValue.none)
        #expect(holder.values[0].listValue?.isEmpty == true)
        // The remaining link is still indexed: deleting its object unlinks it too.
        try realm.write { realm.delete(realm.objects(MCItem.self)) }
        #expect(holder.value.dictionaryValue?["list"]?.listValue.map(Array.init) == [.int(1)])
    }

    @Test func dynamicAccessAndDescriptionShowNestedCollections() throws {
        let realm = try inMemory()
        let holder = try realm.write {
            let holder = realm.create(MCHolder.self, value: ["id": 1])
            holder.value = .fromArray([.int(1), .fromDictionary(["k": .string("v")])])
            return holder
        }
        let dynamic = try #require(holder["value"] as? List<AnyRealmValue>)
        #expect(dynamic.count == 2 && dynamic[1].dictionaryValue?["k"] == .string("v"))
        #expect(holder.description.contains("value = [1, [k: v]];"), "\(holder.description)")
        try realm.write { holder["value"] = AnyRealmValue.fromDictionary(["n": .int(3)]) }
        #expect(holder.value.dictionaryValue?["n"] == .int(3))
    }

    @Test func badNestedValuesThrow() throws {
        let realm = try inMemory()
        let holder = try realm.write { realm.create(MCHolder.self, value: ["id": 1]) }
        let huge = String(repeating: "x", count: 17_000_000)
        #expect(throws: Realm.Error.self) { try realm.write { holder.value = .fromArray([.fromArray([.string(huge)])]) } }
        #expect(holder.value == AnyRealmValue.none, "the transaction rolled back")

        // A list that contains itself nests without end.
        let selfish = List<AnyRealmValue>()
        selfish.append(.list(selfish))
        #expect(throws: Realm.Error.self) { try realm.write { holder.value = .list(selfish) } }
        #expect(throws: Realm.Error.self) { try realm.write { holder.distinct.insert(.fromArray([])) } }
        #expect(holder.distinct.isEmpty && holder.value == AnyRealmValue.none)
    }

    /// realm-core's Parser_NestedMixedDictionaryList, in miniature: paths into nested values.
    func band() throws -> Realm {
        let realm = try inMemory()
        try realm.write {
            realm.create(MCHolder.self, value: ["id": 1, "value": AnyRealmValue.fromDictionary([
                "instruments": .fromArray([
                    .fromDictionary(["brand": .string("hofner"), "strings": .int(4)]),
                    .fromDictionary(["brand": .string("gibson"), "strings": .int(6)]),
                ]),
                "name": .string("Paul"),
            ])])
            realm.create(MCHolder.self, value: ["id": 2, "value": AnyRealmValue.fromDictionary([
                "instruments": .fromArray([.fromDictionary(["brand": .string("fender"), "strings": .int(6), "color": .string("red")])]),
                "tickets": .fromArray([]),
            ])])
            realm.create(MCHolder.self, value: ["id": 3, "value": AnyRealmValue.fromArray([.int(1), .int(2), .int(3)])])
            realm.create(MCHolder.self, value: ["id": 4, "value": AnyRealmValue.string("plain")])
            let listed = realm.create(MCHolder.self, value: ["id": 5])
            listed.values.append(objectsIn: [.fromArray([.int(7), .int(8)]), .int(9)])
            listed.byName["m"] = .fromDictionary(["k": .int(10)])
        }
        return realm
    }

    func ids(_ realm: Realm, _ predicate: String, sourceLocation: SourceLocation = #_sourceLocation) -> [Int] {
        do {
            return try realm.objects(MCHolder.self).filter(validating: predicate).map(\.id).sorted()
        } catch {
            Issue.record("\(predicate): \(error)", sourceLocation: sourceLocation)
            return []
        }
    }

    /// A stored value of lists nested 3,000 deep (a damaged or hostile file: no writer nests
    /// deeper than `MixedValue.maximumNesting`) reads without recursing down the stack: the
    /// levels past the limit read as `.none`.
    @Test func aValueNestedFarPastTheLimitReadsTruncated() throws {
        var stored = MixedValue.list([.int(7)]).stored
        for _ in 0..<3_000 { stored = MixedValue.list([stored]).stored }
        guard case .bytes(let bytes) = stored else { Issue.record("a list is stored as bytes"); return }
        let realm = try inMemory()
        var value = realm.anyRealmValue(storedBytes: bytes), depth = 0
        while case .list(let list) = value, let first = list.first {
            value = first
            depth += 1
        }
        #expect(depth == MixedValue.maximumNesting && value == .none)
    }

    @Test func queriesReachIntoNestedCollections() throws {
        let realm = try band()
        #expect(ids(realm, "value[0] == 1") == [3])
        #expect(ids(realm, "value[LAST] == 3") == [3])
        #expect(ids(realm, "value[*] == 2") == [3])
        #expect(ids(realm, "ALL value[*] > 0") == [3, 4, 5], "ALL over no elements holds, as in Realm")
        #expect(ids(realm, "value['name'] == 'Paul'") == [1])
        #expect(ids(realm, "value.name == 'Paul'") == [1])
        #expect(ids(realm, "value.instruments[0].strings == 6") == [2])
        #expect(ids(realm, "value.instruments[*].strings == 6") == [1, 2])
        #expect(ids(realm, "value.instruments[*].brand BEGINSWITH 'gi'") == [1])
        #expect(ids(realm, "value['instruments'][*].@keys == 'color'") == [2])
        #expect(ids(realm, "value.@keys == 'tickets'") == [2])
        #expect(ids(realm, "value.@count == 3") == [3])
        #expect(ids(realm, "value.@size == 2") == [1, 2])
        #expect(ids(realm, "value.instruments.@count == 1") == [2])
        #expect(ids(realm, "value.@type == 'list'") == [3])
        #expect(ids(realm, "value.@type == 'dictionary'") == [1, 2])
        #expect(ids(realm, "value.@type == 'collection'") == [1, 2, 3])
        #expect(ids(realm, "value.@type != 'collection'") == [4, 5])
        #expect(ids(realm, "value.@type IN {'string', 'array'}") == [3, 4])
        #expect(ids(realm, "value[*].@type == 'numeric'") == [3])
        #expect(ids(realm, "values[0][1] == 8") == [5])
        #expect(ids(realm, "values[*][*] == 7") == [5])
        #expect(ids(realm, "values[*].@type == 'list'") == [5])
        #expect(ids(realm, "values.@count == 2") == [5], "a List<AnyRealmValue>'s own count")
        #expect(ids(realm, "values[0].@count == 2") == [5], "the count of the list at 0")
        #expect(ids(realm, "values[1].@count == 1").isEmpty, "an int has no count")
        #expect(ids(realm, "byName['m'].@count == 1") == [5])
        #expect(ids(realm, "byName['m']['k'] == 10") == [5])
        #expect(ids(realm, "byName.m.k == 10") == [5])

        // The type-safe forms.
        let typed = realm.objects(MCHolder.self)
        #expect(typed.where { $0.value[0] == .int(1) }.map(\.id) == [3])
        #expect(typed.where { $0.value["instruments"].any["strings"] == .int(4) }.map(\.id) == [1])
        #expect(typed.where { $0.value.any == .int(2) }.map(\.id) == [3])

        // Bad input.
        for bad in ["value.@type == 'banana'", "value.@type > 'int'", "id.@type == 'int'", "value.@sum == 1",
                    "value[*].@avg > 1", "id[0] == 1"] {
            #expect(throws: Realm.Error.self, "\(bad)") { _ = try realm.objects(MCHolder.self).filter(validating: bad) }
        }
    }

    @Test func changingANestedValueChangesQueryResults() throws {
        let realm = try band()
        let sixStrings = realm.objects(MCHolder.self).filter("value.instruments[*].strings == 12")
        #expect(sixStrings.isEmpty)
        try realm.write {
            let paul = realm.object(ofType: MCHolder.self, forPrimaryKey: 1)!
            paul.value.dictionaryValue?["instruments"]?.listValue?.append(.fromDictionary(["strings": .int(12)]))
        }
        #expect(sixStrings.map(\.id) == [1])
    }

    @Test func frozenSnapshotsKeepTheirNestedValues() throws {
        let realm = try inMemory()
        let holder = try realm.write {
            let holder = realm.create(MCHolder.self, value: ["id": 1])
            holder.value = .fromArray([.fromArray([.int(1)])])
            return holder
        }
        let frozen = holder.freeze()
        try realm.write { holder.value.listValue?[0].listValue?.append(.int(2)) }
        #expect(frozen.read { $0.value.listValue?[0].listValue.map(Array.init) } == [.int(1)])
        #expect(holder.value.listValue?[0].listValue.map(Array.init) == [.int(1), .int(2)])
    }

    @Test func assigningANestedCollectionCopiesIt() throws {
        let realm = try inMemory()
        let (first, second) = try realm.write {
            let first = realm.create(MCHolder.self, value: ["id": 1])
            let second = realm.create(MCHolder.self, value: ["id": 2])
            first.value = .fromDictionary(["list": .fromArray([.int(1)])])
            return (first, second)
        }
        try realm.write {
            second.value = first.value                                     // a copy of the content
            first.value = first.value.dictionaryValue!["list"]!            // a list replacing its own container
        }
        #expect(first.value.listValue.map(Array.init) == [.int(1)])
        try realm.write { first.value.listValue?.append(.int(2)) }
        #expect(second.value.dictionaryValue?["list"]?.listValue?.count == 1, "the copy is independent")
        #expect(first.value.listValue?.count == 2)
    }
}
