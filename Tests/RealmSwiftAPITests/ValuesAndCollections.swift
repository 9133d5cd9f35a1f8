// Values and collection properties as Realm Swift's documentation writes them, import changed only.
// Sources: "Supported Types" (ObjectId, Decimal128, UUID, AnyRealmValue, Map, MutableSet, List;
// Swift SDK), "CRUD - Update: Update a Map / MutableSet / List / AnyRealmValue", and the API
// reference (ObjectId, Decimal128, AnyRealmValue, List, MutableSet, Map).
import Foundation
import RealmActors

// MARK: ObjectId, UUID, Decimal128 ("Supported Types")

func valueTypes() throws {
    let objectId = ObjectId.generate()
    let parsed = try ObjectId(string: "11223344556677889900aabb")
    let literal = ObjectId("11223344556677889900aabb")
    print(objectId.stringValue, objectId.timestamp, parsed == literal, objectId < parsed)

    let uuid = UUID()
    let uuidFromString = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    print(uuid, uuidFromString)

    let decimal: Decimal128 = 1.5
    let fromString = try Decimal128(string: "123.45")
    let fromInt: Decimal128 = 42
    let sum = decimal + fromString * fromInt
    print(sum, sum.stringValue, sum.isNaN, Decimal128(value: 3), Decimal128(number: 7 as NSNumber))

    let realm = try! Realm()
    try! realm.write {
        let object = AllTypesObject()
        object.objectIdName = objectId
        object.uuidName = uuid
        object.decimalName = sum
        object.optDecimalName = nil
        object.int8Name = 8
        object.enumName = .inProgress
        realm.add(object)
    }
}

// MARK: AnyRealmValue ("Mixed Data Type")

func anyRealmValue() {
    let realm = try! Realm()
    // Create a Dog object and then set its properties
    let myDog = MixedDog()
    myDog.name = "Rex"
    // This dog has no companion.
    // You can set the field's type to "none", which represents `nil`
    myDog.companion = .none

    // Create another Dog whose companion is a cat.
    // We don't have a Cat object, so we'll use a string to describe the companion.
    let theirDog = MixedDog()
    theirDog.name = "Wolfie"
    theirDog.companion = .string("Fluffy the Cat")

    // Another dog might have a dog as a companion.
    // We do have an object that can represent that, so we can specify the
    // type is a Dog object, and even set the object's value.
    let anotherDog = MixedDog()
    anotherDog.name = "Fido"
    // Note: this sets Spot as a companion of Fido, but does not set
    // Fido as a companion of Spot. Spot has no companion in this instance.
    anotherDog.companion = .object(MixedDog(value: ["name": "Spot"]))

    // Add the dogs to the realm
    try! realm.write {
        realm.add([myDog, theirDog, anotherDog])
    }
    // After adding these dogs to the realm, we now have 4 dog objects.
    let dogs = realm.objects(MixedDog.self)
    print(dogs.count)

    // Read the value: switch on it, or read it as one type.
    switch theirDog.companion {
    case .string(let name): print(name)
    case .object(let companion): print(companion)
    case .none: print("none")
    default: print(theirDog.companion)
    }
    print(theirDog.companion.stringValue ?? "", anotherDog.companion.object(MixedDog.self)?.name ?? "",
          anotherDog.companion.dynamicObject?["name"] ?? "")

    // Nested collections in a mixed property.
    try! realm.write {
        myDog.companion = AnyRealmValue.fromArray([.string("Fido"), .int(3)])
        theirDog.companion = AnyRealmValue.fromDictionary(["name": .string("Spot"), "age": .int(2)])
    }
    print(myDog.companion.listValue?.count ?? 0, theirDog.companion.dictionaryValue?["name"] ?? .none)
}

// MARK: Map ("Map/Dictionary")

func mapUsage() {
    let realm = try! Realm()

    let dog = MapDog()
    dog.name = "Wolfie"
    dog.currentCity = "New York"

    // Set map values
    dog.favoriteParksByCity["New York"] = "Domino Park"
    dog.favoriteParksByCity["Chicago"] = "Wiggly Field"
    dog.favoriteParksByCity.setValue("Bush Park", forKey: "Ottawa")

    try! realm.write {
        realm.add(dog)
    }

    // Check if an entry exists
    if dog.favoriteParksByCity.keys.contains("Chicago") {
        print("\(dog.name) has a favorite park in Chicago")
    }

    // Iterate over entries
    for element in dog.favoriteParksByCity {
        print("\(element.key) \(element.value)")
    }

    // Delete an entry
    try! realm.write {
        // Use Map.removeObject(for:)
        dog.favoriteParksByCity.removeObject(for: "New York")
        // Or assign `nil` to delete non-optional values.
        // If the value type is optional (e.g. Map<String, String?>),
        // this will assign a `nil` value rather than deleting the entry.
        dog.favoriteParksByCity["New York"] = nil
        dog.favoriteParksByCity.updateValue("Grant Park", forKey: "Chicago")
    }
    print(dog.favoriteParksByCity.count, dog.favoriteParksByCity.values, dog.favoriteParksByCity.isEmpty)
}

// MARK: MutableSet ("MutableSet")

func mutableSetUsage() {
    let realm = try! Realm()

    // Record a dog's name and current city
    let dog = SetDog()
    dog.name = "Maui"
    dog.currentCity = "New York"

    // Add the dog to the realm.
    try! realm.write {
        realm.add(dog)
    }

    // Later, update the dog's current city and add it to the set of cities visited.
    try! realm.write {
        dog.currentCity = "Toronto"
        dog.citiesVisited.insert(dog.currentCity)
    }

    // Use the MutableSet API.
    try! realm.write {
        dog.citiesVisited.insert(objectsIn: ["Boston", "Chicago"])
        dog.citiesVisited.remove("Boston")
    }
    let otherDog = realm.objects(SetDog.self).last!
    try! realm.write {
        dog.citiesVisited.formUnion(otherDog.citiesVisited)
        dog.citiesVisited.formIntersection(["Toronto", "Chicago"])
        dog.citiesVisited.subtract(["Chicago"])
    }
    print(dog.citiesVisited.contains("Toronto"), dog.citiesVisited.isSubset(of: otherDog.citiesVisited),
          dog.citiesVisited.intersects(otherDog.citiesVisited), dog.citiesVisited.count)
    try! realm.write {
        dog.citiesVisited.removeAll()
    }
}

// MARK: List ("List": append, insert, move, remove, replace)

func listUsage() {
    let realm = try! Realm()
    let person = realm.objects(Person.self).first!
    let dogs = realm.objects(Dog.self)
    try! realm.write {
        person.dogs.append(dogs[0])
        person.dogs.append(objectsIn: dogs.filter("age < 2"))
        person.dogs.insert(dogs[1], at: 0)
        person.dogs.move(from: 0, to: 1)
        person.dogs.swapAt(0, 1)
        person.dogs.replace(index: 0, object: dogs[2])
        person.dogs[1] = dogs[3]
        person.dogs.remove(at: 0)
        person.dogs.removeLast()
        person.dogs.removeAll()
    }
    print(person.dogs.index(of: dogs[0]) ?? -1, person.dogs.filter("age > 1").count,
          person.dogs.where { $0.age > 1 }.count, person.dogs.realm != nil, person.dogs.isInvalidated)
    // Lists of values.
    let task = realm.objects(Task.self).first!
    try! realm.write {
        task.tags.append("urgent")
        task.tags.append(objectsIn: ["home", "work"])
    }
    print(Array(task.tags), task.tags.contains("home"))
}

// MARK: Embedded objects in a list ("Embedded Objects: Create, Update, Query")

func embeddedObjectsInAList() {
    let realm = try! Realm()
    try! realm.write {
        let business = Business()
        business.name = "MongoDB"
        let address = Address()
        address.city = "New York"
        business.addresses.append(address)
        realm.add(business)
    }
    let nyBusinesses = realm.objects(Business.self).filter("ANY addresses.city == %@", "New York")
    print(nyBusinesses.count)
}
