// Realm Swift models as its documentation declares them, with only the import changed.
// Sources: "Define a Realm Object Model", "Supported Types", "Relationships", "Embedded Objects"
// (Swift SDK), the seeds' old "Models" guide (its models in today's @Persisted form, see below),
// and the seeds' "Configure & Open a Realm" and "Modify an Object Schema" models.
//
// These files only have to type-check: nothing here is called (see Package.swift). The
// migration guide's successive `Person` versions live in enums (MigrationV1.Person, …) so that
// each keeps its documented declaration.
import Foundation
import RealmActors

// MARK: Object models, primary keys, indexes, ignored properties ("Define a Realm Object Model")

class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var breed: String?
    @Persisted var dateLastFed: Date?
    @Persisted var color = ""
    @Persisted var currentCity = ""
    @Persisted var favoriteToy: DogToy?
    // To-one relationship: properties can be optional.
    @Persisted var owner: Person?
    // Linking objects: every Person whose `dogs` holds this dog.
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class DogToy: Object {
    @Persisted var name = ""
}

class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var birthdate = Date(timeIntervalSince1970: 1)
    // To-many relationship: a person can have many dogs.
    @Persisted var dogs: List<Dog>
    // Inverse relationship: a person can be a member of many clubs.
    @Persisted(originProperty: "members") var clubs: LinkingObjects<DogClub>
    @Persisted var address: Address?
    // Not persisted: a plain property is ignored by Realm.
    var tmpID = 0
    // Read-only computed properties are ignored too.
    var displayName: String { "\(name) (\(id))" }
}

class DogClub: Object {
    @Persisted var name = ""
    @Persisted var members: List<Person>
}

class Book: Object {
    @Persisted var price = 0
    @Persisted(indexed: true) var title = ""
}

class Todo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var owner: String
    @Persisted var status: String
}

class Task: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var owner: String?
    @Persisted var status = ""
    @Persisted var priority = 0
    @Persisted var progressMinutes = 0
    @Persisted var isComplete = false
    @Persisted var assignee: Person?
    @Persisted var labels: MutableSet<String>
    @Persisted var tags: List<String>
}

class User: Object {
    @Persisted(primaryKey: true) var id = ObjectId.generate()
    @Persisted var name = ""
}

// MARK: Every supported property type ("Supported Types": required and optional forms)

class AllTypesObject: Object {
    @Persisted var boolName: Bool
    @Persisted var optBoolName: Bool?
    @Persisted var intName: Int
    @Persisted var optIntName: Int?
    @Persisted var int8Name = 8
    @Persisted var int16Name: Int16
    @Persisted var int32Name: Int32
    @Persisted var int64Name: Int64
    @Persisted var optInt64Name: Int64?
    @Persisted var floatName: Float
    @Persisted var optFloatName: Float?
    @Persisted var doubleName: Double
    @Persisted var optDoubleName: Double?
    @Persisted var stringName: String
    @Persisted var optStringName: String?
    @Persisted var dataName: Data
    @Persisted var optDataName: Data?
    @Persisted var dateName: Date
    @Persisted var optDateName: Date?
    @Persisted var decimalName: Decimal128
    @Persisted var optDecimalName: Decimal128?
    @Persisted var uuidName: UUID
    @Persisted var optUuidName: UUID?
    @Persisted var objectIdName: ObjectId
    @Persisted var optObjectIdName: ObjectId?
    @Persisted var listName: List<MyCustomObjectType>
    @Persisted var mutableSetName: MutableSet<String>
    @Persisted var mapName: Map<String, String>
    @Persisted var optMapName: Map<String, String?>
    @Persisted var anyRealmValueName: AnyRealmValue
    @Persisted var objectName: MyCustomObjectType?
    @Persisted var embeddedObjectName: MyEmbeddedObjectType?
    @Persisted var enumName: TaskStatusEnum
    @Persisted var optEnumName: TaskStatusEnum?
}

class MyCustomObjectType: Object {
    @Persisted var value = ""
}

class MyEmbeddedObjectType: EmbeddedObject {
    @Persisted var value = ""
}

// Enums ("Supported Types: Enums"): a PersistableEnum with a raw value Realm stores.
enum TaskStatusEnum: String, PersistableEnum {
    case notStarted
    case inProgress
    case complete
}

class EnumTask: Object {
    @Persisted var name: String = ""
    @Persisted var owner: String?
    @Persisted var status = TaskStatusEnum.notStarted
}

// MARK: Custom types mapped to persisted ones ("Type Projections")

struct CLLocationCoordinate: CustomPersistable {
    typealias PersistedType = Location
    var latitude: Double
    var longitude: Double
    init(persistedValue: Location) {
        latitude = persistedValue.latitude
        longitude = persistedValue.longitude
    }
    var persistableValue: Location { Location(value: [latitude, longitude]) }
}

class Location: EmbeddedObject {
    @Persisted var latitude = 0.0
    @Persisted var longitude = 0.0
}

struct HexColor: FailableCustomPersistable {
    typealias PersistedType = String
    var red = 0, green = 0, blue = 0
    init?(persistedValue: String) {
        guard persistedValue.count == 6, let value = Int(persistedValue, radix: 16) else { return nil }
        red = value >> 16 & 0xFF
        green = value >> 8 & 0xFF
        blue = value & 0xFF
    }
    var persistableValue: String { String(format: "%02X%02X%02X", red, green, blue) }
}

class Club: Object {
    @Persisted var id: ObjectId
    @Persisted var name: String
    @Persisted var location: CLLocationCoordinate
    @Persisted var color: HexColor?
}

// MARK: Embedded objects ("Embedded Objects")

class Address: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

class Contact: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    // Embed a single object. Embedded object properties must be marked optional.
    @Persisted var address: Address?

    convenience init(name: String, address: Address) {
        self.init()
        self.name = name
        self.address = address
    }
}

class Business: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    // Embed an array of objects.
    @Persisted var addresses: List<Address>
}

// MARK: Relationships: to-one, to-many, inverse ("Relationships")

class Employee: Object {
    @Persisted var name = ""
    @Persisted var tasks: List<Task>
    @Persisted var manager: Employee?
    @Persisted var reports: List<Employee>
    @Persisted var siblings: List<Employee>
}

class Project: Object {
    @Persisted var name = ""
    @Persisted var items: List<Item>
}

class Item: Object {
    @Persisted var name = ""
    @Persisted var isComplete = false
    @Persisted var assignee: String?
    @Persisted var priority = 0
    @Persisted var progressMinutes = 0
    // The projects whose `items` list holds this item.
    @Persisted(originProperty: "items") var projects: LinkingObjects<Project>
}

// MARK: Map, MutableSet and AnyRealmValue models ("Map", "MutableSet", "AnyRealmValue")

class MapDog: Object {
    @Persisted var name = ""
    @Persisted var currentCity = ""
    // Map of city name -> favorite park in that city
    @Persisted var favoriteParksByCity: Map<String, String>
}

class SetDog: Object {
    @Persisted var name = ""
    @Persisted var currentCity = ""
    @Persisted var citiesVisited: MutableSet<String>
}

class MixedDog: Object {
    @Persisted var name = ""
    @Persisted var companion: AnyRealmValue
}

// MARK: Model composition instead of inheritance (the old "Models" guide: "Model Inheritance")

class Animal: Object {
    @Persisted var age = 0
}

class Duck: Object {
    @Persisted var animal: Animal?
    @Persisted var name = ""
}

class Frog: Object {
    @Persisted var animal: Animal?
    @Persisted var dateProp = Date()
}
