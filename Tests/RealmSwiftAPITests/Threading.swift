// Freezing, thawing and passing data between threads as Realm Swift's documentation writes it,
// import changed only. Sources: "Threading" (Swift SDK: "Freeze", "Thaw", "Pass Instances Across
// Threads", "Use Realm with Actors"), the seeds' old guide ("Threading") and the API reference
// (ja: freeze, thaw, isFrozen).
//
// The difference here is the DocC article "Migrating from Realm Swift", "Passing objects between
// actors": `freeze()` returns `Sendable` snapshots (`FrozenRealm`, `FrozenResults`, `Frozen<T>`)
// instead of frozen live classes, and ThreadSafeReference is replaced by sending a frozen value.
import Foundation
import RealmActors

// MARK: Freeze ("Freeze")

func freezeExample() {
    let realm = try! Realm()

    // Get an immutable copy of the realm that can be passed across threads
    let frozenRealm = realm.freeze()

    assert(frozenRealm.isFrozen)

    let tasks = realm.objects(Task.self)

    // You can freeze collections
    let frozenTasks = tasks.freeze()

    assert(frozenTasks.isFrozen)

    // You can still read from frozen realms
    let frozenTasks2 = frozenRealm.objects(Task.self)

    assert(frozenTasks2.isFrozen)

    let task = tasks.first!

    assert(!task.realm!.isFrozen)

    // You can freeze objects
    let frozenTask = task.freeze()

    assert(frozenTask.isFrozen)
    // Frozen objects have a reference to a frozen realm
    assert(frozenTask.realm!.isFrozen)

    // Frozen collections of a relationship, and a list of values.
    let person = realm.objects(Person.self).first!
    let frozenDogs = person.dogs.freeze()
    let frozenTags = task.tags.freeze()
    print(frozenDogs.count, frozenTags.count, frozenRealm.object(ofType: Person.self, forPrimaryKey: 1)?.name ?? "")
}

// MARK: Thaw ("Thaw Frozen Objects")

func thawExample() {
    let realm = try! Realm()
    let frozenTask = realm.objects(Task.self).first!.freeze()
    // Realm Swift: `let thawedTask = frozenTask.thaw()`. Thawing needs a live handle of the
    // context that will use the object (DocC "Migrating from Realm Swift": `frozen.thaw(in:
    // realm)` or `realm.thaw(frozen)`).
    let thawedTask = frozenTask.thaw(in: realm)!
    let alsoThawed = realm.thaw(frozenTask)
    // Thawed objects are live and can be modified in a write.
    try! realm.write {
        thawedTask.status = "Done"
    }
    let frozenResults = realm.objects(Task.self).freeze()
    let thawedResults = frozenResults.thaw(in: realm)
    print(alsoThawed?.name ?? "", thawedResults.count)
}

@MainActor
func thawOnAnActor(frozenTask: Frozen<Task>) async throws {
    // `thaw()` opens a handle on the caller's actor, so it is async (DocC "Migrating from Realm
    // Swift": "Passing objects between actors").
    let task = try await frozenTask.thaw()
    print(task?.name ?? "deleted")
}

// MARK: Pass instances across threads ("Pass Instances Across Threads")

func passAcrossThreads() {
    let person = Person(value: ["id": 2, "name": "Jane"])
    let realm = try! Realm()

    try! realm.write {
        realm.add(person)
    }

    // Realm Swift: `let personRef = ThreadSafeReference(to: person)` and `realm.resolve(personRef)`.
    // A frozen object is Sendable: send it, then thaw it where it is used (DocC "Migrating from
    // Realm Swift": "Passing objects between actors").
    let personRef = person.freeze()

    // Pass the reference to a background thread
    DispatchQueue(label: "background").async {
        let realm = try! Realm()
        guard let person = realm.thaw(personRef) else {
            return // person was deleted
        }
        try! realm.write {
            person.name = "Jane Doe"
        }
    }
}

// The old guide's opening example: "Query and update from any thread".
func queryAndUpdateFromAnyThread() {
    DispatchQueue(label: "background").async {
        let realm = try! Realm()
        let theDog = realm.objects(Dog.self).filter("age == 1").first
        try! realm.write {
            theDog!.age = 3
        }
    }
}

// MARK: Use Realm with actors ("Use Realm with Actors": pass data across actors)

actor Kennel {
    var realm: Realm!

    init() async throws {
        realm = try await Realm(actor: self)
    }

    // Frozen values cross actor boundaries; live objects stay with their actor.
    func show(_ dog: Frozen<Dog>) -> String {
        dog.name
    }

    func rename(_ frozen: Frozen<Dog>, to name: String) async throws {
        try await realm.asyncWrite {
            realm.thaw(frozen)?.name = name
        }
    }

    func frozenDogs() -> FrozenResults<Dog> {
        realm.objects(Dog.self).where { $0.age < 2 }.freeze()
    }
}

@MainActor
func useTheKennel() async throws {
    let kennel = try await Kennel()
    let realm = try await Realm(actor: MainActor.shared)
    let dog = realm.objects(Dog.self).first!.freeze()
    print(await kennel.show(dog))
    try await kennel.rename(dog, to: "Rex")
    let puppies = await kennel.frozenDogs()
    for puppy in puppies { print(puppy.name) }
    // Read a frozen object's properties several at once.
    print(dog.read { "\($0.name) \($0.age)" })
}
