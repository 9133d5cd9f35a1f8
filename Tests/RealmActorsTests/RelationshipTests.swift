import Foundation
import Testing
import RealmActors
import RealmTestSupport

// Relationship and collection semantics through the public API, as Realm Swift documents them.

final class RelPet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var friend: RelPet?
    @Persisted(originProperty: "pets") var owners: LinkingObjects<RelOwner>
    @Persisted(originProperty: "bestFriend") var fans: LinkingObjects<RelOwner>
    @Persisted(originProperty: "petSet") var setOwners: LinkingObjects<RelOwner>
    @Persisted(originProperty: "petMap") var mapOwners: LinkingObjects<RelOwner>
    @Persisted(originProperty: "members") var teams: LinkingObjects<RelTeam>
    @Persisted(originProperty: "friend") var friendOf: LinkingObjects<RelPet>
}

final class RelGeo: EmbeddedObject {
    @Persisted var lat = 0.0
    @Persisted var lon = 0.0
}

final class RelAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var geo: RelGeo?
}

final class RelOwner: Object {
    @Persisted var name = ""
    @Persisted var bestFriend: RelPet?
    @Persisted var pets: List<RelPet>
    @Persisted var petSet: MutableSet<RelPet>
    @Persisted var petMap: Map<String, RelPet?>
    @Persisted var address: RelAddress?
    @Persisted var pastAddresses: List<RelAddress>
    @Persisted var addressBook: Map<String, RelAddress?>
}

final class RelHolder: Object {
    @Persisted var strings: List<String>
    @Persisted var ints: List<Int>
    @Persisted var optionalInts: List<Int?>
    @Persisted var dates: List<Date>
    @Persisted var tags: MutableSet<String>
    @Persisted var numbers: MutableSet<Int>
    @Persisted var scores: Map<String, Int>
    @Persisted var optionalScores: Map<String, Double?>
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
}

final class RelTeam: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var members: List<RelPet>
    @Persisted var tags: MutableSet<String>
}

final class RelElementTypes: Object {
    @Persisted var bools: List<Bool>
    @Persisted var doubles: List<Double>
    @Persisted var floats: List<Float>
    @Persisted var datas: List<Data>
    @Persisted var uuids: List<UUID>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var decimals: List<Decimal128>
    @Persisted var optionalStrings: List<String?>
    @Persisted var dateSet: MutableSet<Date>
    @Persisted var optionalIntSet: MutableSet<Int?>
    @Persisted var uuidSet: MutableSet<UUID>
    @Persisted var dataMap: Map<String, Data>
    @Persisted var optionalStringMap: Map<String, String?>
    @Persisted var mixedMap: Map<String, AnyRealmValue>
    @Persisted var mixedSet: MutableSet<AnyRealmValue>
}

// Used only by `nestedValuesBuildLinkedObjectsBeforeAnyRealmIsOpened`: no other test may touch
// these classes, so that nothing has registered them when that test starts.
final class RelLonePet: Object {
    @Persisted var name = ""
}

final class RelLoneOwner: Object {
    @Persisted var name = ""
    @Persisted var pets: List<RelLonePet>
    @Persisted var pet: RelLonePet?
}

private func relConfiguration(_ directory: TemporaryDirectory) -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.url.appendingPathComponent("rel.realm"),
                        objectTypes: [RelPet.self, RelAddress.self, RelGeo.self, RelOwner.self, RelHolder.self, RelTeam.self,
                                      RelElementTypes.self])
}

@Suite struct RelationshipTests {
    // MARK: 1. Round trips through a file

    @Test func listsOfValuesKeepOrderAndDuplicatesAcrossAReopen() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        let day = Date(timeIntervalSince1970: 1_700_000_000.25)
        do {
            let realm = try Realm(configuration: config)
            let holder = RelHolder()
            holder.strings.append(contentsOf: ["b", "a", "b", ""])
            holder.ints.append(contentsOf: [3, -1, 3, .max, .min])
            holder.optionalInts.append(contentsOf: [nil, 1, nil])
            holder.dates.append(day)
            try realm.write { realm.add(holder) }
        }
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(RelHolder.self).first)
        #expect(Array(holder.strings) == ["b", "a", "b", ""])
        #expect(Array(holder.ints) == [3, -1, 3, .max, .min])
        #expect(Array(holder.optionalInts) == [nil, 1, nil])
        #expect(Array(holder.dates) == [day])
        #expect(holder.strings.count == 4 && holder.strings.first == "b" && holder.strings.last == "")
    }

    @Test func listsOfObjectsKeepOrderAndDuplicatesAcrossAReopen() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let rex = RelPet(value: ["name": "Rex"])
            let fido = RelPet(value: ["name": "Fido"])
            let owner = RelOwner(value: ["name": "Ann"])
            owner.pets.append(rex)
            owner.pets.append(fido)
            owner.pets.append(rex)
            try realm.write { realm.add(owner) }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(RelPet.self).count == 2, "a repeated element is one object")
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.pets.map(\.name) == ["Rex", "Fido", "Rex"])
        #expect(owner.pets[0] == owner.pets[2] && owner.pets[0] != owner.pets[1])
        #expect(owner.pets.index(of: owner.pets[1]) == 1)
    }

    @Test func mutableSetsDropDuplicatesAcrossAReopen() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let holder = RelHolder()
            for tag in ["swift", "realm", "swift", "db", "realm"] { holder.tags.insert(tag) }
            #expect(holder.tags.count == 3, "unmanaged sets drop duplicates too")
            let owner = RelOwner()
            let rex = RelPet(value: ["name": "Rex"])
            owner.petSet.insert(rex)
            owner.petSet.insert(rex)
            try realm.write {
                realm.add(holder)
                realm.add(owner)
                holder.numbers.insert(5)
                holder.numbers.insert(5)
                holder.numbers.insert(-5)
                holder.tags.insert("db")
            }
            #expect(holder.tags.count == 3 && holder.numbers.count == 2)
        }
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(RelHolder.self).first)
        #expect(Set(holder.tags) == ["swift", "realm", "db"] && holder.tags.count == 3)
        #expect(Set(holder.numbers) == [5, -5])
        #expect(holder.tags.contains("realm") && !holder.tags.contains("Realm"))
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.petSet.count == 1 && owner.petSet.first?.name == "Rex")
    }

    @Test func mapsRoundTripWithTheirKeysAndValues() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let holder = RelHolder()
            holder.scores["b"] = 2
            holder.scores["a"] = 1
            holder.scores["c"] = 3
            holder.scores["c"] = nil  // removes
            let owner = RelOwner()
            owner.petMap["rex"] = RelPet(value: ["name": "Rex"])
            try realm.write {
                realm.add(holder)
                realm.add(owner)
                holder.optionalScores["pi"] = 3.5
                holder.optionalScores["none"] = .some(nil)  // a nil value, key kept
                holder.scores["é"] = -7
            }
        }
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(RelHolder.self).first)
        #expect(holder.scores.count == 3)
        #expect(holder.scores.keys.sorted() == ["a", "b", "é"])
        #expect(holder.scores["a"] == 1 && holder.scores["b"] == 2 && holder.scores["é"] == -7 && holder.scores["c"] == nil)
        #expect(holder.scores.values.sorted() == [-7, 1, 2])
        #expect(holder.optionalScores.count == 2)
        #expect(holder.optionalScores["pi"] == .some(3.5))
        #expect(holder.optionalScores["none"] == .some(nil))
        #expect(holder.optionalScores["missing"] == nil)
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.petMap["rex"]??.name == "Rex")
    }

    // MARK: 2. Adding a graph

    @Test func addingAParentAddsEveryUnmanagedObjectItLinksTo() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let best = RelPet(value: ["name": "Best"])
        let listed = RelPet(value: ["name": "Listed"])
        let deep = RelPet(value: ["name": "Deep"])
        listed.friend = deep
        let inSet = RelPet(value: ["name": "InSet"])
        let inMap = RelPet(value: ["name": "InMap"])
        let owner = RelOwner(value: ["name": "Ann"])
        owner.bestFriend = best
        owner.pets.append(listed)
        owner.petSet.insert(inSet)
        owner.petMap["m"] = inMap
        try realm.write { realm.add(owner) }
        for pet in [best, listed, deep, inSet, inMap] {
            #expect(pet.realm === realm, "\(pet.name) is managed")
        }
        #expect(realm.objects(RelPet.self).count == 5)
        // The same instances are now live accessors.
        try realm.write { deep.age = 9 }
        #expect(owner.pets[0].friend?.age == 9)
        #expect(owner.bestFriend == best && owner.petSet.contains(inSet) && owner.petMap["m"] == .some(inMap))
    }

    @Test func objectsLinkingEachOtherInACycleAreAddedOnce() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let a = RelPet(value: ["name": "A"])
        let b = RelPet(value: ["name": "B"])
        a.friend = b
        b.friend = a
        try realm.write { realm.add(a) }
        #expect(realm.objects(RelPet.self).count == 2)
        #expect(b.realm === realm)
        #expect(a.friend?.friend == a && a.friend?.name == "B")
    }

    @Test func linkingAnAlreadyManagedObjectDoesNotCopyIt() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let rex = RelPet(value: ["name": "Rex"])
        try realm.write { realm.add(rex) }
        let owner = RelOwner()
        owner.pets.append(rex)
        owner.bestFriend = rex
        try realm.write { realm.add(owner) }
        #expect(realm.objects(RelPet.self).count == 1)
        try realm.write { owner.pets.append(RelPet(value: ["name": "New"])) }  // an unmanaged one is added
        #expect(realm.objects(RelPet.self).count == 2)
        #expect(owner.pets.map(\.name) == ["Rex", "New"] && owner.pets[1].realm === realm)
    }

    @Test func settingALinkOnAManagedObjectAddsTheLinkedObject() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let owner = RelOwner()
        try realm.write { realm.add(owner) }
        let rex = RelPet(value: ["name": "Rex"])
        try realm.write {
            owner.bestFriend = rex
            owner.petSet.insert(RelPet(value: ["name": "Set"]))
            owner.petMap["m"] = RelPet(value: ["name": "Map"])
            owner.pets.insert(RelPet(value: ["name": "List"]), at: 0)
            owner.pets[0] = RelPet(value: ["name": "Replaced"])
        }
        #expect(rex.realm === realm && owner.bestFriend == rex)
        #expect(Set(realm.objects(RelPet.self).map(\.name)) == ["Rex", "Set", "Map", "List", "Replaced"])
        #expect(owner.pets.map(\.name) == ["Replaced"])
    }

    // MARK: 3. Live collections

    @Test func twoAccessorsOfOneParentSeeEachOthersListChangesAtOnce() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let owner = RelOwner(value: ["name": "Ann"])
        try realm.write { realm.add(owner) }
        let other = try #require(realm.objects(RelOwner.self).first)
        let list = owner.pets
        #expect(list.count == 0 && list.realm === realm && !list.isInvalidated)
        try realm.write {
            owner.pets.append(RelPet(value: ["name": "Rex"]))
            #expect(other.pets.count == 1 && list.count == 1)
            other.pets.append(RelPet(value: ["name": "Fido"]))
            #expect(owner.pets.map(\.name) == ["Rex", "Fido"])
            list.remove(at: 0)
            #expect(other.pets.map(\.name) == ["Fido"])
        }
        #expect(list.count == 1 && other.pets.first?.name == "Fido")
        #expect(realm.objects(RelPet.self).count == 2, "removing from a list does not delete the object")
    }

    @Test func otherHandlesSeeCollectionChangesAfterRefresh() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        let writer = try Realm(configuration: config)
        let reader = try Realm(configuration: config)
        try writer.write { writer.add(RelOwner(value: ["name": "Ann"])) }
        reader.refresh()
        let owner = try #require(reader.objects(RelOwner.self).first)
        let pets = owner.pets
        let written = try #require(writer.objects(RelOwner.self).first)
        try writer.write {
            written.pets.append(RelPet(value: ["name": "Rex"]))
            written.petMap["k"] = written.pets[0]
        }
        #expect(pets.count == 0, "the reader still reads its version")
        #expect(reader.refresh())
        #expect(pets.map(\.name) == ["Rex"] && owner.petMap["k"]??.name == "Rex")
        #expect(pets[0].owners.first == owner)
    }

    @Test func everyListOperationMatchesAnArray() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let unmanaged = RelHolder()
        let managed = RelHolder()
        try realm.write { realm.add(managed) }
        var expected: [String] = []
        func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(Array(unmanaged.strings) == expected, "unmanaged after \(step)", sourceLocation: sourceLocation)
            #expect(Array(managed.strings) == expected, "managed after \(step)", sourceLocation: sourceLocation)
        }
        let operations: [(String, (List<String>) -> Void, (inout [String]) -> Void)] = [
            ("append", { $0.append("a") }, { $0.append("a") }),
            ("append(contentsOf:)", { $0.append(contentsOf: ["b", "c", "d", "e"]) }, { $0.append(contentsOf: ["b", "c", "d", "e"]) }),
            ("insert at 0", { $0.insert("z", at: 0) }, { $0.insert("z", at: 0) }),
            ("insert at end", { $0.insert("y", at: $0.count) }, { $0.insert("y", at: $0.count) }),
            ("remove(at:)", { $0.remove(at: 2) }, { $0.remove(at: 2) }),
            ("removeLast", { $0.removeLast() }, { $0.removeLast() }),
            ("move forward", { $0.move(from: 0, to: 3) }, { $0.insert($0.remove(at: 0), at: 3) }),
            ("move backward", { $0.move(from: 4, to: 1) }, { $0.insert($0.remove(at: 4), at: 1) }),
            ("swapAt", { $0.swapAt(0, 4) }, { $0.swapAt(0, 4) }),
            ("replace", { $0.replace(index: 1, object: "r") }, { $0[1] = "r" }),
            ("subscript set", { $0[2] = "s" }, { $0[2] = "s" }),
            ("duplicate", { $0.append("s") }, { $0.append("s") }),
        ]
        for (name, onList, onArray) in operations {
            onList(unmanaged.strings)
            try realm.write { onList(managed.strings) }
            onArray(&expected)
            check(name)
        }
        #expect(managed.strings.index(of: "s") == 2 && managed.strings.index(of: "nope") == nil)
        #expect(managed.strings.first == expected.first && managed.strings.last == expected.last)
        #expect(managed.strings[3] == expected[3])
        try realm.write { managed.strings.removeAll() }
        unmanaged.strings.removeAll()
        expected.removeAll()
        check("removeAll")
    }

    @Test func anUnmanagedListIsAPlainArrayUntilItsOwnerIsAdded() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let owner = RelOwner()
            #expect(owner.pets.realm == nil && !owner.pets.isInvalidated)
            owner.pets.append(RelPet(value: ["name": "A"]))
            owner.pets.append(RelPet(value: ["name": "B"]))
            owner.pets.insert(RelPet(value: ["name": "C"]), at: 1)
            owner.pets.remove(at: 0)
            #expect(owner.pets.count == 2 && owner.pets.map(\.name) == ["C", "B"])
            #expect(owner.pets.allSatisfy { $0.realm == nil })
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(owner) }
            #expect(owner.pets.realm === realm && owner.pets.map(\.name) == ["C", "B"])
            #expect(realm.objects(RelPet.self).count == 2, "the removed pet was never added")
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(RelOwner.self).first?.pets.map(\.name) == ["C", "B"])
    }

    @Test func mutableSetOperationsMatchSwiftSets() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let holder = RelHolder()
        try realm.write { realm.add(holder) }
        let tags = holder.tags
        try realm.write {
            tags.insert("a")
            tags.formUnion(["b", "c", "d", "a"])
            #expect(Set(tags) == ["a", "b", "c", "d"] && tags.count == 4)
            tags.remove("b")
            tags.remove("not there")
            #expect(Set(tags) == ["a", "c", "d"])
            tags.formIntersection(["a", "d", "x"])
            #expect(Set(tags) == ["a", "d"])
            tags.subtract(["d", "q"])
            #expect(Set(tags) == ["a"] && tags.contains("a") && !tags.contains("d"))
        }
        #expect(tags.count == 1)
        try realm.write { tags.removeAll() }
        #expect(tags.count == 0 && holder.tags.isEmpty)
        // The same operations on an unmanaged set.
        let loose = RelHolder()
        loose.numbers.formUnion([1, 2, 3, 2])
        loose.numbers.formIntersection([2, 3, 4])
        loose.numbers.subtract([3])
        #expect(Array(loose.numbers) == [2])
    }

    @Test func mapOperationsOnAManagedMap() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let holder = RelHolder()
        try realm.write { realm.add(holder) }
        let scores = holder.scores
        #expect(scores.count == 0 && scores["a"] == nil && scores.realm === realm)
        try realm.write {
            scores["a"] = 1
            scores["b"] = 2
            scores["a"] = 10  // overwrites
            #expect(scores.count == 2 && scores["a"] == 10)
            scores["b"] = nil
            #expect(scores.count == 1 && scores["b"] == nil && scores.keys == ["a"])
            scores["c"] = 3
            scores.removeObject(for: "a")
            scores.removeObject(for: "absent")
        }
        #expect(scores.keys == ["c"] && scores.values == [3])
        #expect(Dictionary(uniqueKeysWithValues: scores.map { ($0.key, $0.value) }) == ["c": 3])
        try realm.write { scores.removeAll() }
        #expect(scores.count == 0 && holder.scores.keys.isEmpty)
    }

    /// Realm's documentation fills maps by key-value coding (`setValue(_:forKey:)`); nil removes
    /// the key, as in Realm Swift, and `value(forKey:)` reads one untyped.
    @Test func mapKeyValueCodingSetsReadsAndRemoves() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let holder = RelHolder()
        holder.scores.setValue(1, forKey: "unmanaged")
        #expect(holder.scores["unmanaged"] == 1)
        try realm.write { realm.add(holder) }
        try realm.write {
            holder.scores.setValue(7, forKey: "a")
            holder.scores.setValue(8, forKey: "a")
            holder.optionalScores.setValue(2.5, forKey: "x")
        }
        #expect(holder.scores["a"] == 8 && holder.scores.value(forKey: "a") as? Int == 8)
        #expect(holder.optionalScores["x"] == 2.5 && holder.scores.value(forKey: "absent") == nil)
        try realm.write { holder.scores.setValue(nil, forKey: "a") }
        #expect(holder.scores.keys == ["unmanaged"])
    }

    // MARK: 4. Deleting linked objects

    @Test func deletingAnObjectRemovesEveryLinkToIt() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let rex = RelPet(value: ["name": "Rex"])
            let fido = RelPet(value: ["name": "Fido"])
            let owner = RelOwner(value: ["name": "Ann"])
            owner.bestFriend = rex
            owner.pets.append(contentsOf: [rex, fido, rex, rex])
            owner.petSet.insert(rex)
            owner.petSet.insert(fido)
            owner.petMap["r"] = rex
            owner.petMap["f"] = fido
            let holder = RelHolder()
            holder.value = .object(rex)
            fido.friend = rex
            try realm.write {
                realm.add(owner)
                realm.add(holder)
            }
            try realm.write { realm.delete(rex) }
            #expect(rex.isInvalidated)
            #expect(owner.bestFriend == nil)
            #expect(owner.pets.map(\.name) == ["Fido"], "every occurrence leaves the list")
            #expect(owner.petSet.count == 1 && owner.petSet.first?.name == "Fido")
            #expect(owner.petMap.count == 2 && owner.petMap.keys == ["f", "r"], "the key stays")
            #expect(owner.petMap["r"] == .some(nil))
            #expect(owner.petMap["f"]??.name == "Fido")
            #expect(fido.friend == nil)
            #expect(holder.value == .none)
        }
        let realm = try Realm(configuration: config)
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(realm.objects(RelPet.self).count == 1)
        #expect(owner.bestFriend == nil && owner.pets.count == 1 && owner.petSet.count == 1)
        #expect(owner.petMap.count == 2 && owner.petMap["r"] == .some(nil))
    }

    @Test func deletingTheObjectsOfAListEmptiesIt() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let owner = RelOwner(value: ["pets": [["name": "A"], ["name": "B"], ["name": "C"]]])
        let keeper = RelOwner(value: ["pets": [["name": "Kept"]]])
        try realm.write { realm.add([owner, keeper]) }
        let b = owner.pets[1]
        try realm.write { realm.delete(owner.pets) }
        #expect(owner.pets.isEmpty && !owner.isInvalidated && b.isInvalidated)
        #expect(b.owners.isInvalidated, "the linking objects of a deleted object are invalidated")
        #expect(realm.objects(RelPet.self).map(\.name) == ["Kept"])
    }

    @Test func deletingTheOwnerInvalidatesItsCollections() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let owner = RelOwner()
        owner.pets.append(RelPet(value: ["name": "Rex"]))
        try realm.write { realm.add(owner) }
        let pets = owner.pets
        let set = owner.petSet
        let map = owner.petMap
        try realm.write { realm.delete(owner) }
        #expect(pets.isInvalidated && set.isInvalidated && map.isInvalidated)
        #expect(realm.objects(RelPet.self).count == 1, "deleting the owner does not delete its linked objects")
    }

    // MARK: 5. LinkingObjects

    @Test func linkingObjectsFollowAListBackwards() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let rex = RelPet(value: ["name": "Rex"])
        let ann = RelOwner(value: ["name": "Ann"])
        let bob = RelOwner(value: ["name": "Bob"])
        let cid = RelOwner(value: ["name": "Cid"])
        ann.pets.append(rex)
        bob.pets.append(rex)
        try realm.write { realm.add([ann, bob, cid]) }
        #expect(rex.owners.count == 2)
        #expect(Set(rex.owners.map(\.name)) == ["Ann", "Bob"])
        #expect(rex.owners.contains(ann) && rex.owners.contains(bob) && !rex.owners.contains(cid))
        #expect(rex.owners.first != nil && (rex.owners[0] == ann || rex.owners[0] == bob))
        #expect(rex.fans.count == 0, "a different origin property")
        let owners = rex.owners
        try realm.write {
            cid.pets.append(rex)
            #expect(owners.count == 3, "updates inside the write")
            ann.pets.removeAll()
        }
        #expect(Set(owners.map(\.name)) == ["Bob", "Cid"])
        try realm.write { realm.delete(bob) }
        #expect(owners.count == 1 && owners.first?.name == "Cid")
        // Reopened / read again from the realm.
        let again = try #require(realm.objects(RelPet.self).first)
        #expect(again.owners.map(\.name) == ["Cid"])
    }

    @Test func linkingObjectsFollowAToOneLinkBackwards() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let rex = RelPet(value: ["name": "Rex"])
        let fido = RelPet(value: ["name": "Fido"])
        let ann = RelOwner(value: ["name": "Ann"])
        let bob = RelOwner(value: ["name": "Bob"])
        ann.bestFriend = rex
        bob.bestFriend = rex
        try realm.write { realm.add([ann, bob]); realm.add(fido) }
        #expect(rex.fans.count == 2 && fido.fans.count == 0 && rex.owners.count == 0)
        try realm.write { bob.bestFriend = fido }
        #expect(rex.fans.map(\.name) == ["Ann"] && fido.fans.map(\.name) == ["Bob"])
        try realm.write { ann.bestFriend = nil }
        #expect(rex.fans.isEmpty)
        try realm.write { realm.delete(bob) }
        #expect(fido.fans.isEmpty)
    }

    @Test func linkingObjectsFollowSetsAndMapsBackwards() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let rex = RelPet(value: ["name": "Rex"])
        let ann = RelOwner(value: ["name": "Ann"])
        let bob = RelOwner(value: ["name": "Bob"])
        ann.petSet.insert(rex)
        bob.petMap["a"] = rex
        try realm.write { realm.add([ann, bob]) }
        #expect(rex.setOwners.map(\.name) == ["Ann"] && rex.mapOwners.map(\.name) == ["Bob"])
        #expect(rex.owners.isEmpty && rex.fans.isEmpty)
        try realm.write {
            ann.petSet.remove(rex)
            bob.petMap["a"] = nil
            ann.petMap["x"] = rex
        }
        #expect(rex.setOwners.isEmpty && rex.mapOwners.map(\.name) == ["Ann"])
        let team = RelTeam(value: ["id": 1, "members": [rex]] as [String: Any])
        try realm.write { realm.add(team) }
        #expect(rex.teams.count == 1 && rex.teams.first == team)
        try realm.write { realm.delete(team) }
        #expect(rex.teams.isEmpty)
    }

    @Test func linkingObjectsAreEmptyOnUnmanagedObjects() {
        let rex = RelPet(value: ["name": "Rex"])
        let ann = RelOwner()
        ann.pets.append(rex)
        ann.bestFriend = rex
        #expect(rex.owners.count == 0 && rex.owners.isEmpty && rex.owners.first == nil)
        #expect(rex.fans.count == 0 && !rex.owners.contains(ann))
        #expect(rex.owners.realm == nil)
    }

    /// The dynamic subscript reads a linking-objects property (it trapped as "Invalid property
    /// name"): the linking objects as an array, in object-key order, typed if the program has
    /// their class and dynamic otherwise; empty while unmanaged.
    @Test func theDynamicSubscriptReadsLinkingObjects() throws {
        let directory = try TemporaryDirectory()
        let rex = RelPet(value: ["name": "Rex"])
        #expect((rex["owners"] as? [ObjectBase])?.isEmpty == true)
        let realm = try Realm(configuration: relConfiguration(directory))
        let ann = RelOwner(value: ["name": "Ann"]), bob = RelOwner(value: ["name": "Bob"])
        ann.pets.append(rex)
        bob.pets.append(rex)
        try realm.write { realm.add([ann, bob]) }
        let owners = try #require(rex["owners"] as? [RelOwner])
        #expect(owners.map(\.name) == rex.owners.map(\.name) && owners.count == 2)
        #expect((rex["fans"] as? [RelOwner])?.isEmpty == true)
        let dynamic = try #require(realm.dynamicObjects("RelPet").first)
        #expect((dynamic["owners"] as? [ObjectBase])?.count == 2)
        #expect((dynamic.owners as? [ObjectBase])?.compactMap { $0["name"] as? String }.sorted() == ["Ann", "Bob"])
    }

    // MARK: 6. Embedded objects

    @Test func anEmbeddedObjectIsStoredWithItsParent() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let owner = RelOwner(value: ["name": "Ann"])
            let address = RelAddress(value: ["street": "Main St", "city": "Oslo"])
            owner.address = address
            try realm.write { realm.add(owner) }
            #expect(address.realm === realm, "the same instance becomes managed")
            #expect(owner.address?.street == "Main St")
            try realm.write { owner.address?.city = "Bergen" }
            #expect(address.city == "Bergen")
        }
        let realm = try Realm(configuration: config)
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.address?.street == "Main St" && owner.address?.city == "Bergen")
    }

    @Test func replacingOrClearingAnEmbeddedObjectDeletesTheOldOne() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let owner = RelOwner(value: ["name": "Ann", "address": ["street": "Old"]])
            try realm.write { realm.add(owner) }
            let old = try #require(owner.address)
            #expect(!old.isInvalidated)
            try realm.write { owner.address = RelAddress(value: ["street": "New"]) }
            #expect(old.isInvalidated, "the replaced embedded object is deleted")
            #expect(owner.address?.street == "New")
            let new = try #require(owner.address)
            try realm.write { owner.address = nil }
            #expect(new.isInvalidated && owner.address == nil)
            try realm.write { owner.address = RelAddress(value: ["street": "Final"]) }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(RelOwner.self).first?.address?.street == "Final")
    }

    @Test func deletingTheParentDeletesItsEmbeddedObjects() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let owner = RelOwner(value: ["name": "Ann", "address": ["street": "Home"],
                                     "pastAddresses": [["street": "One"], ["street": "Two"]]])
        let keeper = RelOwner(value: ["name": "Bob", "address": ["street": "Elsewhere"]])
        try realm.write { realm.add([owner, keeper]) }
        let home = try #require(owner.address)
        let one = owner.pastAddresses[0]
        let two = owner.pastAddresses[1]
        try realm.write { realm.delete(owner) }
        #expect(home.isInvalidated && one.isInvalidated && two.isInvalidated)
        #expect(keeper.address?.street == "Elsewhere" && keeper.address?.isInvalidated == false)
    }

    @Test func embeddedObjectsInAList() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let owner = RelOwner()
            owner.pastAddresses.append(RelAddress(value: ["street": "A"]))
            owner.pastAddresses.append(RelAddress(value: ["street": "B"]))
            try realm.write { realm.add(owner) }
            let a = owner.pastAddresses[0]
            try realm.write {
                owner.pastAddresses.append(RelAddress(value: ["street": "C"]))
                owner.pastAddresses.move(from: 2, to: 0)
                owner.pastAddresses[1].city = "Cityville"
            }
            #expect(owner.pastAddresses.map(\.street) == ["C", "A", "B"])
            #expect(a.city == "Cityville", "the accessor follows its object, not the position")
            try realm.write { owner.pastAddresses.remove(at: 1) }
            #expect(a.isInvalidated, "an embedded object removed from its list is deleted")
            #expect(owner.pastAddresses.map(\.street) == ["C", "B"])
        }
        let realm = try Realm(configuration: config)
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.pastAddresses.map(\.street) == ["C", "B"])
    }

    // MARK: 7. Building graphs from values

    @Test func objectValueBuildsTheWholeGraph() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let existing = RelPet(value: ["name": "Existing"])
        try realm.write { realm.add(existing) }
        let loose = RelPet(value: ["name": "Loose"])
        let owner = RelOwner(value: [
            "name": "A",
            "pets": [["name": "Rex", "age": 3], ["name": "Fido", "friend": ["name": "Pal"]], loose] as [Any],
            "bestFriend": existing,
            "petSet": [["name": "S1"], ["name": "S2"]],
            "petMap": ["m": ["name": "Mapped"], "e": existing] as [String: Any],
            "address": ["street": "Main", "city": "Oslo"],
        ] as [String: Any])
        #expect(owner.realm == nil && owner.pets.map(\.name) == ["Rex", "Fido", "Loose"])
        #expect(owner.pets[0].age == 3 && owner.pets[1].friend?.name == "Pal" && owner.pets[2] == loose)
        #expect(owner.bestFriend == existing && owner.petSet.count == 2 && owner.address?.city == "Oslo")
        try realm.write { realm.add(owner) }
        #expect(loose.realm === realm)
        // Existing + Rex, Fido, Pal, Loose + S1, S2 + Mapped.
        #expect(realm.objects(RelPet.self).count == 8)
        #expect(owner.pets[1].friend?.name == "Pal" && owner.petMap["e"] == .some(existing))
        #expect(Set(owner.petSet.map(\.name)) == ["S1", "S2"] && owner.petMap["m"]??.name == "Mapped")
        #expect(existing.fans.count == 1 && owner.address?.street == "Main")
    }

    @Test func createBuildsTheGraphAndLinksExistingObjects() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let existing = RelPet(value: ["name": "Existing"])
            try realm.write { realm.add(existing) }
            let owner = try realm.write {
                realm.create(RelOwner.self, value: [
                    "name": "B",
                    "pets": [existing, ["name": "Rex"], existing] as [Any],
                    "bestFriend": ["name": "Best", "friend": existing] as [String: Any],
                    "address": ["street": "Side"],
                    "pastAddresses": [["street": "P1"]],
                ] as [String: Any])
            }
            #expect(owner.realm === realm && owner.pets.count == 3 && owner.pets[0] == existing && owner.pets[2] == existing)
            #expect(existing.owners.contains(owner))
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(RelPet.self).count == 3)
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.pets.map(\.name) == ["Existing", "Rex", "Existing"])
        #expect(owner.bestFriend?.friend?.name == "Existing")
        #expect(owner.address?.street == "Side" && owner.pastAddresses.map(\.street) == ["P1"])
    }

    @Test func createFromAManagedObjectCopiesItAndLinksTheSameObjects() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let original = RelOwner(value: ["name": "Ann", "pets": [["name": "Rex"]], "bestFriend": ["name": "Best"],
                                        "petMap": ["k": ["name": "Mapped"]]] as [String: Any])
        try realm.write { realm.add(original) }
        let copy = try realm.write { realm.create(RelOwner.self, value: original) }
        #expect(copy != original && realm.objects(RelOwner.self).count == 2)
        #expect(copy.name == "Ann" && copy.pets.count == 1 && copy.pets[0] == original.pets[0])
        #expect(copy.bestFriend == original.bestFriend && copy.petMap["k"] == .some(original.petMap["k"]!))
        #expect(realm.objects(RelPet.self).count == 3, "linked objects of the same realm are linked, not copied")
        #expect(original.pets[0].owners.count == 2)
    }

    @Test
    func createFromAManagedObjectCopiesItsEmbeddedObjects() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let original = RelOwner(value: ["name": "Ann", "address": ["street": "Main"],
                                        "pastAddresses": [["street": "Old"]]] as [String: Any])
        try realm.write { realm.add(original) }
        let copy = try realm.write { realm.create(RelOwner.self, value: original) }
        #expect(copy.address?.street == "Main" && copy.pastAddresses.map(\.street) == ["Old"])
        try realm.write { copy.address?.street = "Changed"; copy.pastAddresses[0].street = "Changed" }
        #expect(original.address?.street == "Main" && original.pastAddresses[0].street == "Old", "copied, never shared")
    }

    @Test
    func createCopiesAGraphFromAnotherRealm() throws {
        let directory = try TemporaryDirectory()
        let source = try Realm(configuration: relConfiguration(directory))
        let target = try Realm(configuration: Realm.Configuration(
            fileURL: directory.url.appendingPathComponent("copy.realm"),
            objectTypes: [RelPet.self, RelAddress.self, RelGeo.self, RelOwner.self, RelHolder.self, RelTeam.self,
                          RelElementTypes.self]))
        let original = RelOwner(value: ["name": "Ann", "pets": [["name": "Rex"], ["name": "Fido"]],
                                        "address": ["street": "Main"]] as [String: Any])
        try source.write { source.add(original) }
        let copy = try target.write { target.create(RelOwner.self, value: original) }
        #expect(copy.realm === target && copy.pets.map(\.name) == ["Rex", "Fido"] && copy.pets[0].realm === target)
        #expect(copy.address?.street == "Main" && target.objects(RelPet.self).count == 2)
        #expect(source.objects(RelPet.self).count == 2)
    }

    @Test
    func nestedValuesBuildLinkedObjectsBeforeAnyRealmIsOpened() throws {
        // Realm Swift knows every class up front; a model built before opening a realm works.
        let owner = RelLoneOwner(value: ["name": "A", "pets": [["name": "Rex"]], "pet": ["name": "Solo"]])
        #expect(owner.pets.first?.name == "Rex" && owner.pet?.name == "Solo")
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [RelLoneOwner.self, RelLonePet.self]))
        try realm.write { realm.add(owner) }
        #expect(realm.objects(RelLonePet.self).count == 2)
    }

    // MARK: 8. create with update

    @Test func createWithUpdateReplacesAListItMentions() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        try realm.write {
            realm.create(RelTeam.self, value: ["id": 1, "name": "Team", "members": [["name": "A"], ["name": "B"]],
                                               "tags": ["x", "y"]] as [String: Any])
        }
        let team = try #require(realm.object(ofType: RelTeam.self, forPrimaryKey: 1))
        #expect(team.members.map(\.name) == ["A", "B"])
        let c = RelPet(value: ["name": "C"])
        try realm.write { realm.add(c) }
        // Not mentioned: the list is kept.
        try realm.write { realm.create(RelTeam.self, value: ["id": 1, "name": "Renamed"], update: .modified) }
        #expect(team.name == "Renamed" && team.members.map(\.name) == ["A", "B"] && Set(team.tags) == ["x", "y"])
        // Mentioned with .modified: the content is replaced.
        try realm.write {
            realm.create(RelTeam.self, value: ["id": 1, "members": [c, c], "tags": ["z"]] as [String: Any], update: .modified)
        }
        #expect(team.members.map(\.name) == ["C", "C"] && Set(team.tags) == ["z"] && team.name == "Renamed")
        #expect(team.members[0] == c && c.teams.count >= 1 && c.teams.contains(team))
        // Mentioned with .all: replaced as well, and an empty list empties it.
        try realm.write { realm.create(RelTeam.self, value: ["id": 1, "members": [] as [Any]], update: .all) }
        #expect(team.members.isEmpty)
        #expect(realm.objects(RelTeam.self).count == 1)
        #expect(realm.objects(RelPet.self).count == 3, "replaced members are unlinked, not deleted")
    }

    @Test func addWithUpdateAllReplacesTheList() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let first = RelTeam(value: ["id": 7, "members": [["name": "A"], ["name": "B"]]] as [String: Any])
        let c = RelPet(value: ["name": "C"])
        try realm.write { realm.add(first); realm.add(c) }
        let replacement = RelTeam(value: ["id": 7, "name": "New", "members": [c]] as [String: Any])
        try realm.write { realm.add(replacement, update: .all) }
        let team = try #require(realm.object(ofType: RelTeam.self, forPrimaryKey: 7))
        #expect(team.name == "New" && team.members.map(\.name) == ["C"])
        #expect(first.members.map(\.name) == ["C"] && replacement == first, "both accessors see the one stored object")
        #expect(realm.objects(RelTeam.self).count == 1 && realm.objects(RelPet.self).count == 3)
    }

    @Test
    func updatingAParentCreatesNewLinkedObjectsThatHaveNoPrimaryKey() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        try realm.write { realm.create(RelTeam.self, value: ["id": 1, "members": [["name": "A"]]] as [String: Any]) }
        let team = try #require(realm.object(ofType: RelTeam.self, forPrimaryKey: 1))
        try realm.write {
            realm.create(RelTeam.self, value: ["id": 1, "members": [["name": "B"], ["name": "C"]]] as [String: Any], update: .modified)
        }
        #expect(team.members.map(\.name) == ["B", "C"])
        try realm.write { realm.add(RelTeam(value: ["id": 1, "members": [["name": "D"]]] as [String: Any]), update: .all) }
        #expect(team.members.map(\.name) == ["D"])
        try realm.write { realm.create(RelTeam.self, value: ["id": 2, "members": [["name": "E"]]] as [String: Any], update: .all) }
        #expect(realm.object(ofType: RelTeam.self, forPrimaryKey: 2)?.members.first?.name == "E")
        #expect(realm.objects(RelPet.self).count == 5, "each nested value is a new object")
    }

    // MARK: 9. AnyRealmValue

    @Test func everyAnyRealmValueCaseRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        let id = ObjectId.generate()
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 1_234_567_890.5)
        let decimal = try Decimal128(string: "123.456")
        let cases: [AnyRealmValue] = [
            .none, .int(-42), .int(.max), .bool(true), .bool(false), .float(1.5), .double(-2.25),
            .string("héllo"), .string(""), .data(Data([0, 1, 255])), .date(date),
            .objectId(id), .decimal128(decimal), .uuid(uuid),
        ]
        do {
            let realm = try Realm(configuration: config)
            let rex = RelPet(value: ["name": "Rex"])
            try realm.write {
                realm.add(rex)
                for value in cases {
                    let holder = RelHolder()
                    holder.value = value
                    realm.add(holder)
                }
                let linking = RelHolder()
                linking.value = .object(rex)
                linking.values.append(contentsOf: cases + [.object(rex)])
                realm.add(linking)
            }
            let holders = realm.objects(RelHolder.self)
            for (index, value) in cases.enumerated() {
                #expect(holders[index].value == value, "before reopening: \(value)")
            }
        }
        let realm = try Realm(configuration: config)
        let holders = realm.objects(RelHolder.self)
        #expect(holders.count == cases.count + 1)
        for (index, value) in cases.enumerated() {
            #expect(holders[index].value == value, "after reopening: \(value)")
        }
        let linking = holders[cases.count]
        let rex = try #require(realm.objects(RelPet.self).first)
        #expect(linking.value.object(RelPet.self)?.name == "Rex")
        #expect(linking.value == .object(rex), "equal to another accessor of the same object")
        #expect(Array(linking.values.prefix(cases.count)) == cases)
        #expect(linking.values.last == .object(rex))
    }

    @Test func anyRealmValueEqualityAndAccessors() throws {
        #expect(AnyRealmValue.int(1) == .int(1) && AnyRealmValue.int(1) != .int(2))
        #expect(AnyRealmValue.int(1) != .double(1), "different types are different values")
        #expect(AnyRealmValue.none == .none && AnyRealmValue.none != .string(""))
        #expect(AnyRealmValue.string("a").stringValue == "a" && AnyRealmValue.string("a").intValue == nil)
        let a = RelPet(value: ["name": "A"])
        let b = RelPet(value: ["name": "A"])
        #expect(AnyRealmValue.object(a) == .object(a) && AnyRealmValue.object(a) != .object(b),
                "unmanaged objects compare by identity")
        // Setting an unmanaged object adds it with the owner.
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let holder = RelHolder()
        holder.value = .object(a)
        try realm.write { realm.add(holder) }
        #expect(a.realm === realm && holder.value.object(RelPet.self) == a)
        try realm.write { holder.value = .string("changed") }
        #expect(holder.value == .string("changed") && !a.isInvalidated, "replacing a link does not delete the object")
    }

    // MARK: 10. Wrong types in values

    @Test func wrongTypesInCollectionValuesFailTheWrite() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelHolder.self, value: ["strings": [1, 2]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelHolder.self, value: ["ints": ["one"]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelHolder.self, value: ["ints": [1, nil] as [Int?]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelHolder.self, value: ["tags": [true]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelHolder.self, value: ["scores": ["a": "x"]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelHolder.self, value: ["scores": [1, 2]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelOwner.self, value: ["pets": [["name": 5]]]) } }
        #expect(throws: Realm.Error.self) { try realm.write { realm.create(RelOwner.self, value: ["pets": ["Rex"]]) } }
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(RelOwner.self, value: ["pets": [RelTeam()]]) }
        }
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(RelOwner.self, value: ["petMap": ["a": "not a pet"]]) }
        }
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.create(RelOwner.self, value: ["address": ["street": 12]]) }
        }
        #expect(realm.isEmpty, "no failed transaction wrote anything")
    }

    // MARK: More element types, rollback, embedded edge cases

    @Test func collectionsOfEveryElementTypeRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        let uuids = [UUID(), UUID()]
        let ids = [ObjectId.generate(), ObjectId.generate()]
        let decimals = [try Decimal128(string: "1.5"), try Decimal128(string: "-0.001")]
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86_400.5), .distantFuture]
        let blob = Data((0..<3000).map { UInt8($0 % 256) })
        do {
            let realm = try Realm(configuration: config)
            let holder = RelElementTypes()
            holder.bools.append(contentsOf: [true, false, true])
            holder.doubles.append(contentsOf: [0.1, -.infinity, .greatestFiniteMagnitude])
            holder.floats.append(contentsOf: [1.25, -0.5])
            holder.datas.append(contentsOf: [Data(), blob, Data([0])])
            holder.uuids.append(contentsOf: uuids + uuids)
            holder.objectIds.append(contentsOf: ids)
            holder.decimals.append(contentsOf: decimals)
            holder.optionalStrings.append(contentsOf: ["a\u{0}b", nil, "", "ü"])
            for date in dates + dates { holder.dateSet.insert(date) }
            for value in [1, nil, 1, nil, 2] as [Int?] { holder.optionalIntSet.insert(value) }
            holder.uuidSet.formUnion(uuids + uuids)
            holder.dataMap["blob"] = blob
            holder.dataMap["empty"] = Data()
            holder.optionalStringMap["nil"] = .some(nil)
            holder.optionalStringMap["s"] = "text"
            holder.mixedMap["i"] = .int(1)
            holder.mixedMap["s"] = .string("x")
            holder.mixedMap["n"] = AnyRealmValue.none
            holder.mixedSet.formUnion([.int(1), .int(1), .string("1"), .double(2.5)])
            try realm.write { realm.add(holder) }
        }
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(RelElementTypes.self).first)
        #expect(Array(holder.bools) == [true, false, true])
        #expect(Array(holder.doubles) == [0.1, -.infinity, .greatestFiniteMagnitude])
        #expect(Array(holder.floats) == [1.25, -0.5])
        #expect(Array(holder.datas) == [Data(), blob, Data([0])])
        #expect(Array(holder.uuids) == uuids + uuids)
        #expect(Array(holder.objectIds) == ids)
        #expect(Array(holder.decimals) == decimals)
        #expect(Array(holder.optionalStrings) == ["a\u{0}b", nil, "", "ü"])
        #expect(Set(holder.dateSet) == Set(dates) && holder.dateSet.count == 3)
        #expect(Set(holder.optionalIntSet) == [1, nil, 2] && holder.optionalIntSet.count == 3)
        #expect(Set(holder.uuidSet) == Set(uuids) && holder.uuidSet.count == 2)
        #expect(holder.dataMap["blob"] == blob && holder.dataMap["empty"] == Data() && holder.dataMap.count == 2)
        #expect(holder.optionalStringMap["nil"] == .some(nil) && holder.optionalStringMap["s"] == "text")
        #expect(holder.mixedMap["i"] == .int(1) && holder.mixedMap["s"] == .string("x") && holder.mixedMap["n"] == AnyRealmValue.none)
        #expect(holder.mixedMap.count == 3)
        #expect(holder.mixedSet.count == 3 && holder.mixedSet.contains(.string("1")) && holder.mixedSet.contains(.int(1)))
    }

    @Test func aLargeListRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        let strings = (0..<20_000).map { "element \($0) " + String(repeating: "x", count: $0 % 50) }
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let holder = realm.create(RelHolder.self)
                holder.strings.append(contentsOf: strings)
                holder.ints.append(contentsOf: 0..<20_000)
            }
        }
        let realm = try Realm(configuration: config)
        let holder = try #require(realm.objects(RelHolder.self).first)
        #expect(holder.strings.count == 20_000 && holder.strings[12_345] == strings[12_345])
        #expect(Array(holder.strings) == strings)
        #expect(holder.ints.last == 19_999 && holder.ints.reduce(0, +) == 19_999 * 20_000 / 2)
    }

    @Test func cancellingAWriteRevertsCollectionChanges() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let rex = RelPet(value: ["name": "Rex"])
        let owner = RelOwner(value: ["name": "Ann"])
        owner.pets.append(rex)
        owner.petMap["r"] = rex
        try realm.write { realm.add(owner) }
        realm.beginWrite()
        let newcomer = RelPet(value: ["name": "New"])
        owner.pets.append(newcomer)
        owner.pets.move(from: 1, to: 0)
        owner.petSet.insert(rex)
        owner.petMap["r"] = nil
        owner.bestFriend = newcomer
        owner.address = RelAddress(value: ["street": "Temp"])
        #expect(owner.pets.count == 2 && rex.setOwners.count == 1)
        realm.cancelWrite()
        #expect(owner.pets.map(\.name) == ["Rex"] && owner.petSet.isEmpty && owner.petMap["r"] == .some(rex))
        #expect(owner.bestFriend == nil && owner.address == nil)
        #expect(newcomer.isInvalidated, "an object added by the cancelled transaction is invalidated")
        #expect(rex.setOwners.isEmpty && rex.owners.count == 1)
        #expect(realm.objects(RelPet.self).count == 1)
    }

    @Test func deletingAnEmbeddedObjectUnlinksItFromItsParent() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let owner = RelOwner(value: ["address": ["street": "Home"],
                                     "pastAddresses": [["street": "One"], ["street": "Two"], ["street": "Three"]]] as [String: Any])
        try realm.write { realm.add(owner) }
        try realm.write {
            realm.delete(owner.pastAddresses[1])
            realm.delete(try #require(owner.address))
        }
        #expect(owner.pastAddresses.map(\.street) == ["One", "Three"])
        #expect(owner.address == nil && !owner.isInvalidated)
    }

    @Test func embeddedObjectsInAMapAndNestedEmbeddedObjects() throws {
        let directory = try TemporaryDirectory()
        let config = relConfiguration(directory)
        do {
            let realm = try Realm(configuration: config)
            let owner = RelOwner()
            owner.addressBook["home"] = RelAddress(value: ["street": "Home", "geo": ["lat": 59.9, "lon": 10.7]] as [String: Any])
            owner.addressBook["work"] = RelAddress(value: ["street": "Work"])
            owner.address = RelAddress(value: ["street": "Main", "geo": ["lat": 1.0]] as [String: Any])
            try realm.write { realm.add(owner) }
            let work = try #require(owner.addressBook["work"] ?? nil)
            let geo = try #require(owner.address?.geo)
            try realm.write {
                owner.addressBook["work"] = nil
                owner.addressBook["home"]??.geo?.lon = 11.0
            }
            #expect(work.isInvalidated, "an embedded object removed from its map is deleted")
            try realm.write { owner.address = RelAddress(value: ["street": "Moved"]) }
            #expect(geo.isInvalidated, "an embedded object's own embedded objects are deleted with it")
        }
        let realm = try Realm(configuration: config)
        let owner = try #require(realm.objects(RelOwner.self).first)
        #expect(owner.addressBook.keys == ["home"])
        let home = try #require(owner.addressBook["home"] ?? nil)
        #expect(home.street == "Home" && home.geo?.lat == 59.9 && home.geo?.lon == 11.0)
        #expect(owner.address?.street == "Moved" && owner.address?.geo == nil)
    }

    @Test func linkingObjectsOfALinkToTheSameClass() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let a = RelPet(value: ["name": "A"])
        let b = RelPet(value: ["name": "B"])
        let c = RelPet(value: ["name": "C"])
        a.friend = b
        c.friend = b
        b.friend = b
        try realm.write { realm.add([a, b, c]) }
        #expect(Set(b.friendOf.map(\.name)) == ["A", "B", "C"] && a.friendOf.isEmpty)
        try realm.write { realm.delete(a) }
        #expect(Set(b.friendOf.map(\.name)) == ["B", "C"])
        try realm.write { b.friend = nil }
        #expect(b.friendOf.map(\.name) == ["C"])
    }

    @Test func assigningAWholeCollectionReplacesItsContent() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        let holder = RelHolder()
        holder.ints.append(contentsOf: [1, 2, 3])
        try realm.write { realm.add(holder) }
        let replacement = List<Int>()
        replacement.append(contentsOf: [9, 8])
        let tags = MutableSet<String>()
        tags.insert("t")
        let scores = Map<String, Int>()
        scores["k"] = 5
        try realm.write {
            holder.ints = replacement
            holder.tags = tags
            holder.scores = scores
        }
        #expect(Array(holder.ints) == [9, 8] && Array(holder.tags) == ["t"] && holder.scores["k"] == 5)
        let other = RelHolder()
        try realm.write {
            realm.add(other)
            other.ints = holder.ints  // another object's managed list: its values are copied
            holder.ints.append(7)
        }
        #expect(Array(other.ints) == [9, 8] && Array(holder.ints) == [9, 8, 7])
    }

    @Test func queriesFollowLinksCollectionsEmbeddedObjectsAndInverseRelationships() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        try realm.write {
            realm.create(RelOwner.self, value: ["name": "Ann", "pets": [["name": "Rex", "age": 3], ["name": "Fido", "age": 9]],
                                                "address": ["city": "Oslo"], "bestFriend": ["name": "Best"]] as [String: Any])
            realm.create(RelOwner.self, value: ["name": "Bob", "pets": [["name": "Spot", "age": 1]],
                                                "address": ["city": "Rome"]] as [String: Any])
            realm.create(RelOwner.self, value: ["name": "Cid"])
            realm.create(RelHolder.self, value: ["scores": ["a": 5, "b": 7], "tags": ["x"]] as [String: Any])
        }
        let owners = realm.objects(RelOwner.self)
        func names(_ results: Results<RelOwner>) -> Set<String> { Set(results.map(\.name)) }
        #expect(names(owners.where { $0.address.city == "Oslo" }) == ["Ann"])
        #expect(names(owners.where { $0.pets.name == "Spot" }) == ["Bob"])
        #expect(names(owners.where { $0.pets.age > 5 }) == ["Ann"])
        #expect(names(owners.where { $0.pets.count == 0 }) == ["Cid"])
        #expect(names(owners.where { $0.bestFriend.name == "Best" }) == ["Ann"])
        let pets = realm.objects(RelPet.self)
        let holders = realm.objects(RelHolder.self)
        #expect(holders.where { $0.scores.contains(7) }.count == 1 && holders.where { $0.scores.contains(6) }.isEmpty)
        #expect(holders.where { $0.tags.contains("x") }.count == 1)
        // Live through changes of the links.
        let spotOwners = owners.where { $0.pets.name == "Spot" }
        try realm.write { realm.delete(pets.where { $0.name == "Spot" }) }
        #expect(spotOwners.isEmpty)
        try realm.write { owners.where { $0.name == "Cid" }.first?.address = RelAddress(value: ["city": "Oslo"]) }
        #expect(names(owners.where { $0.address.city == "Oslo" }) == ["Ann", "Cid"])
    }

    @Test
    func queriesFollowLinkingObjects() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: relConfiguration(directory))
        try realm.write {
            realm.create(RelOwner.self, value: ["name": "Ann", "pets": [["name": "Rex"], ["name": "Fido"]]] as [String: Any])
            realm.create(RelOwner.self, value: ["name": "Bob", "pets": [["name": "Spot"]]] as [String: Any])
            realm.create(RelPet.self, value: ["name": "Stray"])
        }
        let pets = realm.objects(RelPet.self)
        #expect(Set(pets.where { $0.owners.name == "Ann" }.map(\.name)) == ["Rex", "Fido"])
        #expect(Set(pets.where { $0.owners.name != "Ann" }.map(\.name)) == ["Spot"])
    }
}
