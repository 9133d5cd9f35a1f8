import Foundation
import Testing
import RealmActors
import RealmTestSupport

enum CodableMood: String, PersistableEnum, Codable {
    case calm, excited
}

final class CodableOwner: Object, Codable {
    @Persisted var name = ""
    @Persisted var age = 0
}

final class CodableCollar: EmbeddedObject, Codable {
    @Persisted var color = ""
}

final class CodableDog: Object, Codable {
    @Persisted var name = ""
    @Persisted var id = ObjectId()
    @Persisted var weight: Decimal128 = 0
    @Persisted var nickname: String?
    @Persisted var age: Int?
    @Persisted var mood = CodableMood.calm
    @Persisted var tags: List<String>
    @Persisted var scores: MutableSet<Int>
    @Persisted var notes: Map<String, String?>
    @Persisted var owner: CodableOwner?
    @Persisted var friends: List<CodableOwner>
    @Persisted var collar: CodableCollar?
}

/// A model whose JSON keys differ from its property names.
final class CodableRenamed: Object, Codable {
    @Persisted var title = ""
    enum CodingKeys: String, CodingKey { case title = "heading" }
}

private func codableConfiguration(_ directory: TemporaryDirectory) -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.url.appendingPathComponent("codable.realm"),
                        objectTypes: [CodableDog.self, CodableOwner.self, CodableCollar.self, CodableRenamed.self])
}

/// The JSON of `value` as a dictionary, to compare independently of key order.
private func jsonObject<T: Encodable>(_ value: T, _ encoder: JSONEncoder = JSONEncoder()) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any])
}

private let dogJSON = """
{
    "name": "Rex",
    "id": "1234567890abcdef12345678",
    "weight": "12.5",
    "nickname": null,
    "mood": "excited",
    "tags": ["good", "loud"],
    "scores": [3, 1, 3],
    "notes": {"a": "first", "b": null},
    "owner": {"name": "Ann", "age": 40},
    "friends": [{"name": "Bob", "age": 7}],
    "collar": {"color": "red"}
}
"""

@Suite struct CodableTests {
    @Test func decodedObjectHoldsItsValuesAndIsStoredByAdd() throws {
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(dogJSON.utf8))
        #expect(dog.realm == nil)
        #expect(dog.name == "Rex" && dog.id == ObjectId("1234567890abcdef12345678") && dog.weight == Decimal128(12.5))
        #expect(dog.nickname == nil && dog.age == nil && dog.mood == .excited)
        #expect(Array(dog.tags) == ["good", "loud"] && Set(dog.scores) == [1, 3])
        #expect(dog.notes["a"] == .some("first") && dog.notes["b"] == .some(nil) && dog.notes.count == 2)
        #expect(dog.owner?.name == "Ann" && dog.owner?.age == 40 && dog.friends.map(\.name) == ["Bob"])
        #expect(dog.collar?.color == "red")

        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: codableConfiguration(directory))
        try realm.write { realm.add(dog) }
        #expect(dog.realm === realm)

        // A fresh accessor reads what was stored, not the instance's memory.
        let stored = try #require(realm.objects(CodableDog.self).first)
        #expect(stored.name == "Rex" && stored.id == ObjectId("1234567890abcdef12345678") && stored.weight == Decimal128(12.5))
        #expect(stored.nickname == nil && stored.age == nil && stored.mood == .excited)
        #expect(Array(stored.tags) == ["good", "loud"] && Set(stored.scores) == [1, 3])
        #expect(stored.notes["a"] == .some("first") && stored.notes["b"] == .some(nil))
        #expect(stored.owner?.name == "Ann" && stored.owner?.age == 40)
        #expect(stored.friends.map(\.name) == ["Bob"] && stored.collar?.color == "red")
        #expect(realm.objects(CodableOwner.self).count == 2)
    }

    @Test func aValueSetAfterDecodingIsWhatAddStores() throws {
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(dogJSON.utf8))
        dog.name = "Max"
        dog.tags.append("new")
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: codableConfiguration(directory))
        try realm.write { realm.add(dog) }
        let stored = try #require(realm.objects(CodableDog.self).first)
        #expect(stored.name == "Max" && Array(stored.tags) == ["good", "loud", "new"])
    }

    @Test func missingOptionalKeysDecodeAsNilAndMissingRequiredKeysFail() throws {
        let minimal = #"{"name": "Rex", "id": "1234567890abcdef12345678", "weight": 1, "mood": "calm", "tags": [], "scores": [], "notes": {}, "friends": []}"#
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(minimal.utf8))
        #expect(dog.nickname == nil && dog.age == nil && dog.owner == nil && dog.collar == nil)
        #expect(dog.weight == Decimal128(1) && dog.tags.isEmpty)

        // As with Realm Swift's synthesized decoding, only optional properties may be absent.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableOwner.self, from: Data(#"{"name": "Ann"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableDog.self, from: Data(#"{"name": "Rex"}"#.utf8))
        }
        // A null for a non-optional property is refused too.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableOwner.self, from: Data(#"{"name": null, "age": 1}"#.utf8))
        }
    }

    @Test func encodingAnUnmanagedObjectWritesItsCurrentValues() throws {
        // Setting the same property on a second instance records it by name only: the encoding
        // must still see it.
        let first = CodableOwner()
        first.name = "Ann"
        let second = CodableOwner()
        second.name = "Bob"
        second.age = 7
        let fromValue = CodableOwner(value: ["name": "Cy", "age": 3])
        var json = try jsonObject(second)
        #expect(json["name"] as? String == "Bob" && json["age"] as? Int == 7 && json.count == 2)
        json = try jsonObject(fromValue)
        #expect(json["name"] as? String == "Cy" && json["age"] as? Int == 3)

        let dog = CodableDog()
        dog.name = "Rex"
        dog.tags.append("good")
        dog.notes["k"] = "v"
        dog.owner = first
        json = try jsonObject(dog)
        #expect(json["name"] as? String == "Rex" && json["tags"] as? [String] == ["good"])
        #expect(json["notes"] as? [String: String] == ["k": "v"])
        #expect((json["owner"] as? [String: Any])?["name"] as? String == "Ann")
        #expect(json["nickname"] is NSNull && json["collar"] is NSNull && json["mood"] as? String == "calm")
    }

    @Test func encodingAManagedObjectReadsTheRealm() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: codableConfiguration(directory))
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(dogJSON.utf8))
        try realm.write { realm.add(dog) }
        try realm.write {
            dog.name = "Max"
            dog.age = 4
            dog.tags.append("new")
            dog.owner?.age = 41
        }
        for object in [dog, try #require(realm.objects(CodableDog.self).first)] {
            let json = try jsonObject(object)
            #expect(json["name"] as? String == "Max" && json["age"] as? Int == 4)
            #expect(json["id"] as? String == "1234567890abcdef12345678" && json["weight"] as? String == Decimal128(12.5).stringValue)
            #expect(json["tags"] as? [String] == ["good", "loud", "new"])
            #expect((json["scores"] as? [Int]).map(Set.init) == [1, 3])
            #expect((json["owner"] as? [String: Any])?["age"] as? Int == 41)
            #expect((json["friends"] as? [[String: Any]])?.first?["name"] as? String == "Bob")
            #expect((json["collar"] as? [String: Any])?["color"] as? String == "red")
            #expect(json["mood"] as? String == "excited")
        }
        // Results of Encodable objects encode as an array.
        let owners = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(realm.objects(CodableOwner.self))) as? [[String: Any]])
        #expect(Set(owners.compactMap { $0["name"] as? String }) == ["Ann", "Bob"])
    }

    @Test func encodingThenDecodingRoundTrips() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(dogJSON.utf8))
        let encoded = try encoder.encode(dog)
        let decoded = try JSONDecoder().decode(CodableDog.self, from: encoded)
        #expect(try encoder.encode(decoded) == encoded)
        #expect(decoded.name == "Rex" && Array(decoded.tags) == ["good", "loud"] && decoded.owner?.name == "Ann")

        // The encoder's strategies apply to property names and values, as for any Codable type.
        let snake = JSONEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        snake.dateEncodingStrategy = .secondsSince1970
        let owner = CodableOwner()
        owner.name = "Ann"
        let json = try jsonObject(owner, snake)
        #expect(json["name"] as? String == "Ann" && json["age"] as? Int == 0)
    }

    @Test func customCodingKeysApplyToDecoding() throws {
        let renamed = try JSONDecoder().decode(CodableRenamed.self, from: Data(#"{"heading": "Hello"}"#.utf8))
        #expect(renamed.title == "Hello")
    }
}
