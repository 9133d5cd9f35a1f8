import Foundation
import RealmActors
import Testing

final class Shelter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var city: String?                    // optional: nil by default
    @Persisted var openedAt = Date(timeIntervalSince1970: 0)
    @Persisted var status: ShelterStatus            // an enum, stored as its raw value
    @Persisted var capacity: Capacity               // a custom type, stored as an Int
    @Persisted var tags: List<String>
    var visitorsToday = 0                           // not @Persisted: not stored
}

enum ShelterStatus: String, PersistableEnum {
    case open, full, closed
}

struct Capacity: CustomPersistable {
    typealias PersistedType = Int
    var places: Int
    init(persistedValue: Int) { places = persistedValue }
    var persistableValue: Int { places }
}

/// The model of the DocC article "Models and Schema", as the article shows it, stored and read.
@Suite struct ModelsArticleExamples {
    @Test func theArticlesModelIsStoredAsDescribed() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "models-\(UUID())", objectTypes: [Shelter.self]))
        let shelter = Shelter()
        #expect(shelter.city == nil && shelter.status == .open && shelter.capacity.places == 0)
        shelter.name = "North"
        shelter.capacity = Capacity(persistedValue: 40)
        shelter.tags.append("dogs")
        shelter.visitorsToday = 12
        try realm.write { realm.add(shelter) }
        let stored = try #require(realm.object(ofType: Shelter.self, forPrimaryKey: 0))
        #expect(stored.name == "North" && stored.capacity.places == 40 && Array(stored.tags) == ["dogs"])
        let schema = try #require(realm.schema["Shelter"])
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["name"]?.isIndexed == true)
        #expect(schema["status"]?.type == .string)
        #expect(schema["capacity"]?.type == .int)
        #expect(schema["city"]?.isOptional == true)
        #expect(schema["visitorsToday"] == nil)
        #expect(realm.objects(Shelter.self).filter("status == 'open' AND capacity > 30").count == 1)
    }
}
