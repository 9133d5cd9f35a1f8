import Foundation
import RealmActors

// The schema the `query` and `values` harnesses run against: every property type, optional and
// not, collections of each kind, links, an embedded object, linking objects, mixed values.

final class FuzzItem: Object, Codable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var note: String?
    @Persisted var flag = false
    @Persisted var count: Int?
    @Persisted var weight = 0.0
    @Persisted var grams: Float = 0
    @Persisted var price: Decimal128 = 0
    @Persisted var created = Date(timeIntervalSince1970: 0)
    @Persisted var blob: Data?
    @Persisted var code: ObjectId?
    @Persisted var uuid: UUID?
    @Persisted var tags: List<String>
    @Persisted var scores: MutableSet<Int>
    @Persisted var stock: Map<String, Double>
    @Persisted var parts: List<FuzzPart>
}

final class FuzzPart: Object, Codable {
    @Persisted var label = ""
    @Persisted var size = 0
    @Persisted(originProperty: "parts") var items: LinkingObjects<FuzzItem>

    /// Linking objects are not decoded.
    enum CodingKeys: String, CodingKey {
        case label, size
    }
}

final class FuzzBox: Object {
    @Persisted var name = ""
    @Persisted var favorite: FuzzItem?
    @Persisted var items: List<FuzzItem>
    @Persisted var anything: AnyRealmValue
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted var mixedMap: Map<String, AnyRealmValue>
    @Persisted var label: FuzzLabel?
}

final class FuzzLabel: EmbeddedObject {
    @Persisted var text = ""
    @Persisted var color: Int?
}

enum FuzzModels {
    static let types: [ObjectBase.Type] = [FuzzItem.self, FuzzPart.self, FuzzBox.self, FuzzLabel.self]

    /// An in-memory realm of these classes, populated; the harness `name` cannot run without it.
    static func populatedRealm(named name: String) -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: "realm-fuzz-\(name)")
        configuration.objectTypes = types
        do {
            let realm = try Realm(configuration: configuration)
            try populate(realm)
            return realm
        } catch {
            fatalError("realm-fuzz \(name): could not set up its realm: \(error)")
        }
    }

    /// A few objects of each class, with values of every kind.
    static func populate(_ realm: Realm) throws {
        try realm.write {
            let partA = realm.create(FuzzPart.self, value: ["label": "bolt", "size": 3])
            let partB = realm.create(FuzzPart.self, value: ["label": "nut", "size": -1])
            let milk = realm.create(FuzzItem.self, value: [
                "id": 1, "name": "milk", "flag": true, "count": 4, "weight": 1.5, "grams": Float(2.5),
                "price": try Decimal128(string: "1.50"), "created": Date(timeIntervalSince1970: 100),
                "blob": Data("fork".utf8), "code": try ObjectId(string: "6565a6b5e4b0a1b2c3d4e5f6"),
                "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "tags": ["a", "b"],
                "scores": [1, 2, 3], "stock": ["apples": 3.0, "pears.ripe": 7.5], "parts": [partA, partB],
            ])
            let bread = realm.create(FuzzItem.self, value: [
                "id": 2, "name": "bread", "note": "fresh", "weight": Double.infinity, "grams": Float.nan,
                "price": Decimal128(3), "tags": ["ü", ""], "parts": [partA],
            ])
            realm.create(FuzzItem.self, value: ["id": 3, "name": "cheese", "count": -9, "weight": -0.0])
            realm.create(FuzzBox.self, value: [
                "name": "first", "favorite": milk, "items": [milk, bread, milk], "anything": AnyRealmValue.int(7),
                "mixedList": [AnyRealmValue.string("x"), .double(2.5), .fromArray([.bool(true), .none]),
                              .fromDictionary(["k": .date(Date(timeIntervalSince1970: 5))])],
                "mixedMap": ["one": AnyRealmValue.int(1), "item": .object(milk)],
                "label": ["text": "red", "color": 3],
            ])
            realm.create(FuzzBox.self, value: ["name": "second", "anything": AnyRealmValue.object(bread)])
        }
    }
}
