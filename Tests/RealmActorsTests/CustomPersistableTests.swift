import Foundation
import Testing
import RealmActors

struct CPCelsius: CustomPersistable, Hashable {
    typealias PersistedType = Double
    var degrees: Double
    init(degrees: Double) { self.degrees = degrees }
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

struct CPLink: FailableCustomPersistable, Hashable {
    typealias PersistedType = String
    var url: URL
    init(_ text: String) { url = URL(string: text)! }
    init?(persistedValue: String) {
        guard persistedValue.hasPrefix("https://"), let url = URL(string: persistedValue) else { return nil }
        self.url = url
    }
    var persistableValue: String { url.absoluteString }
}

final class CPReading: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var temperature: CPCelsius
    @Persisted var history: List<CPCelsius>
    @Persisted var source = CPLink("https://example.com")
    @Persisted var mirror: CPLink?
}

/// Realm Swift's `CustomPersistable` and `FailableCustomPersistable`: types stored as a native type.
@Suite struct CustomPersistableTests {
    @Test func storedAsThePersistedTypeAndQueried() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            let reading = CPReading()
            reading.temperature = CPCelsius(degrees: 21.5)
            reading.history.append(objectsIn: [CPCelsius(degrees: 19), CPCelsius(degrees: 20)])
            realm.add(reading)
            realm.create(CPReading.self, value: ["id": 2, "temperature": CPCelsius(degrees: 12), "mirror": "https://m.example"])
        }
        let first = try #require(realm.object(ofType: CPReading.self, forPrimaryKey: 0))
        #expect(first.temperature == CPCelsius(degrees: 21.5))
        #expect(first.history.map(\.degrees) == [19, 20])
        #expect(first.source.url.host == "example.com" && first.mirror == nil)
        #expect(first["temperature"] as? Double == 21.5, "dynamic access sees the stored value")
        #expect(realm.objectSchema(CPReading.self)?["temperature"]?.type == .double)
        let second = try #require(realm.object(ofType: CPReading.self, forPrimaryKey: 2))
        #expect(second.mirror?.url.host == "m.example")

        let readings = realm.objects(CPReading.self)
        #expect(readings.where { $0.temperature.persistableValue > 20 }.map(\.id) == [0])
        #expect(readings.where { $0.temperature == CPCelsius(degrees: 12) }.map(\.id) == [2])
        #expect(readings.filter("temperature < %@", 15.0).map(\.id) == [2])
        #expect(readings.sorted(byKeyPath: "temperature").map(\.id) == [2, 0])
        #expect(CPReading().temperature == CPCelsius(degrees: 0), "the persisted type's default")
    }
}

extension Realm {
    /// The schema of `type`'s class in this realm.
    func objectSchema(_ type: Object.Type) -> ObjectSchema? { schema[type.className()] }
}
