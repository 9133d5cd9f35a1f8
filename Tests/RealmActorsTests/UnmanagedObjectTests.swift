import Foundation
import Testing
import RealmActors

/// A model class with a model subclass: the subclass's table has the inherited properties first.
class UMAnimal: Object {
    @Persisted var name = ""
    var note = "not persisted"
    @Persisted var tags: List<String>
    @Persisted var toys: MutableSet<String>
}

final class UMCat: UMAnimal {
    var scratchCount = 3
    @Persisted var lives = 9
    @Persisted var born = Date(timeIntervalSince1970: 0)
    @Persisted var nickname: String?
}

/// An unmanaged object keeps its values in its `@Persisted` wrappers; `add` reads them from
/// there (by field offset, not by reflection), and values given by name (`Object(value:)`,
/// `obj["x"] = …`) take precedence until a setter replaces them. Each test adds objects made in
/// one of those ways and reads the stored values back through a fresh query.
@Suite struct UnmanagedObjectTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [UMAnimal.self, UMCat.self]))
    }

    private func stored(_ realm: Realm) throws -> UMCat {
        let cats = realm.objects(UMCat.self)
        try #require(cats.count == 1)
        return cats[0]
    }

    @Test func setterValuesOfASubclassAndItsSuperclassAreStored() throws {
        let realm = try realm()
        let cat = UMCat()
        cat.name = "Tom"
        cat.lives = 7
        cat.nickname = "T"
        cat.born = Date(timeIntervalSince1970: 1_000)
        cat.tags.append(objectsIn: ["grey", "old"])
        cat.note = "ignored"
        #expect(cat.name == "Tom" && cat.lives == 7 && Array(cat.tags) == ["grey", "old"])
        try realm.write { realm.add(cat) }
        let read = try stored(realm)
        #expect(read.name == "Tom" && read.lives == 7 && read.nickname == "T")
        #expect(read.born == Date(timeIntervalSince1970: 1_000) && Array(read.tags) == ["grey", "old"])
        #expect(realm.schema["UMCat"]?.properties.map(\.name) == ["name", "tags", "toys", "lives", "born", "nickname"])
    }

    @Test func initialValuesAreStoredWhenNothingWasSet() throws {
        let realm = try realm()
        try realm.write { realm.add(UMCat()) }
        let read = try stored(realm)
        #expect(read.name == "" && read.lives == 9 && read.nickname == nil && read.tags.isEmpty)
    }

    @Test func aSetterReplacesAValueGivenByName() throws {
        let realm = try realm()
        let cat = UMCat(value: ["name": "Given", "lives": 5])
        cat.name = "Set"
        #expect(cat.name == "Set" && cat.lives == 5)
        try realm.write { realm.add(cat) }
        let read = try stored(realm)
        #expect(read.name == "Set" && read.lives == 5)
    }

    @Test func aValueSetByNameReplacesASetterValue() throws {
        let realm = try realm()
        let cat = UMCat()
        cat.lives = 2
        cat["lives"] = 4
        cat.name = "After"
        #expect(cat.lives == 4 && cat["name"] as? String == "After")
        try realm.write { realm.add(cat) }
        let read = try stored(realm)
        #expect(read.lives == 4 && read.name == "After")
    }

    @Test func aCollectionGivenByNameAndThenChangedIsStoredChanged() throws {
        let realm = try realm()
        let cat = UMCat(value: ["name": "Listy", "tags": ["a"]])
        cat.tags.append("b")
        #expect(Array(cat.tags) == ["a", "b"])
        try realm.write { realm.add(cat) }
        #expect(Array(try stored(realm).tags) == ["a", "b"])
    }

    /// A collection given as values is made by its own type's rules: a list keeps repeated
    /// elements, in order; a set keeps one of each (unmanaged, and as stored, in value order).
    @Test func collectionsGivenAsValuesKeepTheirTypesRules() throws {
        let realm = try realm()
        let cat = UMCat(value: ["name": "Twins", "tags": ["b", "a", "b"], "toys": ["mouse", "ball", "mouse"]])
        #expect(Array(cat.tags) == ["b", "a", "b"])
        #expect(cat.toys.count == 2 && cat.toys.contains("mouse") && cat.toys.contains("ball"))
        try realm.write { realm.add(cat) }
        let read = try stored(realm)
        #expect(Array(read.tags) == ["b", "a", "b"])
        #expect(Array(read.toys) == ["ball", "mouse"])
    }

    @Test func objectsOfBothClassesInOneWriteKeepTheirOwnValues() throws {
        let realm = try realm()
        let animal = UMAnimal()
        animal.name = "Generic"
        let cats = (0..<100).map { index in
            let cat = UMCat()
            cat.name = "cat \(index)"
            cat.lives = index
            return cat
        }
        try realm.write {
            realm.add(animal)
            realm.add(cats)
        }
        #expect(realm.objects(UMAnimal.self).map(\.name) == ["Generic"])
        let stored = realm.objects(UMCat.self).sorted(byKeyPath: "lives")
        #expect(stored.map(\.lives) == Array(0..<100) && stored.map(\.name) == (0..<100).map { "cat \($0)" })
    }
}
