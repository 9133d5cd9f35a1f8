// Writes as Realm Swift's documentation writes them, import changed only.
// Sources: "CRUD - Create", "CRUD - Update", "CRUD - Delete" (Swift SDK), the seeds' old guide
// ("Writes", "Auto-Updating Objects", "Optional Properties", "Relationships") and Realm API
// reference (ja: write, beginWrite, commitWrite, cancelWrite, isInWriteTransaction, add,
// create, delete, deleteAll, asyncWrite).
import Foundation
import RealmActors

// MARK: Create objects ("Create a New Object")

func createObjects() {
    // (1) Create a Dog object and then set its properties
    let myDog = Dog()
    myDog.name = "Rex"
    myDog.age = 10

    // (2) Create a Dog object from a dictionary
    let myOtherDog = Dog(value: ["name": "Pluto", "age": 3])

    // (3) Create a Dog object from an array
    let myThirdDog = Dog(value: ["Fido", 5])

    // Get the default realm. You only need to do this once per thread.
    let realm = try! Realm()

    // Add to the realm inside a transaction
    try! realm.write {
        realm.add(myDog)
        realm.add([myOtherDog, myThirdDog])
    }
}

func createWithCreate() {
    let realm = try! Realm()
    try! realm.write {
        // Create an object from a dictionary, an array or another object.
        let person = realm.create(Person.self, value: ["id": 1, "name": "Jane"])
        realm.create(Dog.self, value: ["name": "Pluto", "age": 3])
        print(person.name)
    }
}

func createFromJSON() {
    let realm = try! Realm()
    // Realm's docs: create objects from the result of JSONSerialization.
    let data = "{\"name\": \"Rex\", \"age\": 2}".data(using: .utf8)!
    let json = try! JSONSerialization.jsonObject(with: data, options: [])
    try! realm.write {
        realm.create(Dog.self, value: json)
    }
}

func createEmbeddedObjects() {
    let realm = try! Realm()
    try! realm.write {
        let address = Address()
        address.street = "123 Fake St"
        address.city = "Springfield"
        address.country = "USA"
        address.postalCode = "90710"
        let contact = Contact(name: "Nick Riviera", address: address)
        realm.add(contact)
    }
}

// MARK: Relationships and auto-updating objects (the old guide's "Relationships", "Auto-Updating Objects")

func relationshipsAndLiveObjects() {
    let realm = try! Realm()
    let jim = Person()
    let rex = Dog()
    rex.name = "Rex"
    let someDogs = realm.objects(Dog.self).filter("name contains 'Fido'")
    jim.dogs.append(objectsIn: someDogs)
    jim.dogs.append(rex)
    rex.owner = jim

    let myDog = Dog()
    myDog.name = "Fido"
    myDog.age = 1

    try! realm.write {
        realm.add(myDog)
    }

    let myPuppy = realm.objects(Dog.self).filter("age == 1").first
    try! realm.write {
        myPuppy!.age = 2
    }

    print("age of my dog: \(myDog.age)") // => 2
}

// MARK: Update objects ("Update an Object", "Upsert an Object", "Update Properties through Key-value Coding")

func updateObjects() {
    let realm = try! Realm()

    // Get a dog to update
    let dog = realm.objects(Dog.self).first!

    // Open a thread-safe transaction
    try! realm.write {
        // Update some properties on the instance.
        // These changes are saved to the realm
        dog.name = "Wolfie"
        dog.age += 1
    }

    try! realm.write {
        let person1 = Person(value: ["id": 1234, "name": "Jones"])
        // Add a new person to the realm. Since nobody with ID 1234
        // has been added yet, this adds the instance to the realm.
        realm.add(person1, update: .modified)

        let person2 = Person(value: ["id": 1234, "name": "Bowie"])
        // Judging by the ID, it's the same person, just with a
        // different name. When `update` is:
        // - .modified: update the fields that have changed.
        // - .all: replace all of the fields regardless of
        //   whether they've changed.
        // - .error: throw an exception if a key with the same
        //   primary key already exists.
        realm.add(person2, update: .modified)
        realm.add(person2, update: .all)
        realm.create(Person.self, value: ["id": 1234, "name": "Bowie"], update: .all)
    }

    let allDogs = realm.objects(Dog.self)
    try! realm.write {
        allDogs.first?.setValue("Sparky", forKey: "name")
        // Move the dogs to Toronto for vacation
        allDogs.setValue("Toronto", forKey: "currentCity")
    }
}

func batchUpdate() {
    let realm = try! Realm()
    try! realm.write {
        // Create a person to take care of some dogs.
        let person = Person(value: ["id": 1, "name": "Ali"])
        realm.add(person)

        let dog = Dog(value: ["name": "Rex", "age": 1])
        realm.add(dog)

        // Find dogs younger than 2.
        let puppies = realm.objects(Dog.self).filter("age < 2")

        // Give all puppies to Ali.
        person.setValue(puppies, forKey: "dogs")
    }
}

func updateEmbeddedObjects() {
    let realm = try! Realm()
    let resultsToUpdate = realm.objects(Contact.self).where { $0.name == "Nick Riviera" }
    let contact = resultsToUpdate.first!
    try! realm.write {
        // Update the embedded object directly through the contact
        contact.address?.street = "Hollywood Upstairs Medical College"
        contact.address?.city = "Los Angeles"
        // Overwrite the embedded object with a new one
        let newAddress = Address()
        newAddress.street = "Hollywood Upstairs Medical College"
        newAddress.city = "Los Angeles"
        contact.address = newAddress
    }
}

func copyToAnotherRealm() {
    let realm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "first realm"))

    try! realm.write {
        let dog = Dog()
        dog.name = "Wolfie"
        dog.age = 1
        realm.add(dog)
    }

    // Later, fetch the instance we want to copy
    let wolfie = realm.objects(Dog.self).first(where: { $0.name == "Wolfie" })!

    // Open the other realm
    let otherRealm = try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: "second realm"))
    try! otherRealm.write {
        // Copy to the other realm
        let wolfieCopy = otherRealm.create(type(of: wolfie), value: wolfie)
        wolfieCopy.age = 2
    }
}

// MARK: Delete objects ("Delete an Object", "Delete Multiple Objects", "Delete All Objects")

func deleteObjects() {
    // Instantiate the class. For convenience, you can initialize
    // objects from dictionaries with appropriate keys and values.
    let dog = Dog(value: ["name": "Max", "age": 5])

    let realm = try! Realm()
    // Open a thread-safe transaction.
    try! realm.write {
        // Add the instance to the realm.
        realm.add(dog)
    }

    try! realm.write {
        // Delete the instance from the realm.
        realm.delete(dog)
    }

    try! realm.write {
        // Find dogs younger than 2 years old.
        let puppies = realm.objects(Dog.self).filter("age < 2")

        // Delete the objects in the collection from the realm.
        realm.delete(puppies)
    }

    try! realm.write {
        // Delete all instances of Dog from the realm.
        let allDogs = realm.objects(Dog.self)
        realm.delete(allDogs)
    }

    let person = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    try! realm.write {
        // Delete the related collection
        realm.delete(person.dogs)
        realm.delete(person)
    }

    try! realm.write {
        // Delete all objects from the realm.
        realm.deleteAll()
    }
    print(dog.isInvalidated)
}

// MARK: Transactions (the API reference: write, beginWrite, commitWrite, cancelWrite, isInWriteTransaction)

func transactions() {
    // Open the default realm.
    let realm = try! Realm()

    // Prepare to handle exceptions.
    do {
        // Open a thread-safe transaction.
        try realm.write {
            // Make any writes within this code block.
            // Realm automatically cancels the transaction
            // if this code throws an exception. Otherwise,
            // Realm automatically commits the transaction
            // after the end of this code block.
        }
    } catch let error as NSError {  // compiles; on Linux it never matches (DocC "Migrating from Realm Swift", Errors)
        // Failed to write to realm.
        // ... Handle error ...
        _ = error
    }

    // BAD EXAMPLE -- avoid this!
    realm.beginWrite()
    // ... Make changes ...
    // If an exception is thrown before the commit,
    // this transaction stays open!
    try! realm.commitWrite()

    // The API reference's cancelWrite example.
    let oldObject = realm.objects(Dog.self).first!
    let newObject = Dog()

    realm.beginWrite()
    realm.add(newObject)
    realm.delete(oldObject)
    realm.cancelWrite()

    if !realm.isInWriteTransaction {
        // A write's block may return a value.
        let count = try! realm.write { realm.objects(Dog.self).count }
        print(count)
    }
}

func optionalProperties() {
    // The old guide's RealmOptional is `@Persisted var age: Int?` in today's models.
    let realm = try! Realm()
    try! realm.write() {
        let person = realm.create(EnumTask.self, value: ["Jane", "Owner"])
        person.owner = nil
    }
}

// MARK: Asynchronous writes ("Write Asynchronously"; asyncWrite in the API reference)

@MainActor
func asyncWrites() async throws {
    let realm = try await Realm(actor: MainActor.shared)
    // Realm's docs: `realm.writeAsync { … } onComplete: { error in … }`. RealmActors replaces the
    // callback forms with one async call (DocC "Migrating from Realm Swift": "Threads and
    // queues become actors").
    try await realm.asyncWrite {
        realm.create(Todo.self, value: ["_id": ObjectId.generate(), "name": "Sam", "owner": "Frodo", "status": "Done"])
    }
    let todo = try await realm.asyncWrite {
        realm.create(Todo.self, value: ["_id": ObjectId.generate(), "name": "Rosie", "owner": "Sam", "status": "Open"])
    }
    print(todo.name)
    await realm.asyncRefresh()
}
