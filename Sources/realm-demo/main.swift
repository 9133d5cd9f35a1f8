// The RealmActors demo: `swift run realm-demo`.
//
// It exercises what the library can do today, end to end, through the public API only, and grows
// with every feature that lands (next: `asyncWrite` from actors with group commit, queries with
// `where { }`, and a printed change stream).
import Foundation
import RealmActors

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var owner: String?
}

/// A kennel that registers dogs from its own task, with its own realm handle.
actor Kennel {
    let name: String
    init(name: String) { self.name = name }

    func register(ids: Range<Int>, config: Realm.Configuration) throws {
        let realm = try Realm(configuration: config)  // confined to this actor's call
        // The block copies the actor's state into a local: a block that read `self.name` would be
        // actor-isolated, which Swift 6.3 rejects here (see `Realm.write`).
        let name = self.name
        try realm.write {
            for id in ids {
                realm.add(Dog(value: ["id": id, "name": "\(name) dog \(id)", "age": id % 15, "owner": name]),
                          update: .modified)
            }
        }
    }
}

var config = Realm.Configuration.defaultConfiguration
config.objectTypes = [Dog.self]
print("RealmActors demo")
print("realm file: \(config.fileURL?.path ?? "(in memory)")")

// Several actors write concurrently; every write transaction takes the file's write lock in turn.
let kennels = ["North", "South", "East", "West"].map(Kennel.init)
let started = ContinuousClock.now
try await withThrowingTaskGroup(of: Void.self) { group in
    for (index, kennel) in kennels.enumerated() {
        group.addTask { try await kennel.register(ids: index * 250..<(index + 1) * 250, config: config) }
    }
    try await group.waitForAll()
}
print("4 actors wrote 1,000 dogs in \(ContinuousClock.now - started)")

let realm = try Realm(configuration: config)
let dogs = realm.objects(Dog.self)
print("the realm holds \(dogs.count) dogs; dog 42 is \(realm.object(ofType: Dog.self, forPrimaryKey: 42)?.name ?? "missing")")
let puppies = dogs.filter { $0.age < 2 }  // `where { }` queries arrive with the query engine
print("\(puppies.count) puppies, for example \(puppies.prefix(3).map(\.name).joined(separator: ", "))")

try realm.write {
    let rex = realm.create(Dog.self, value: ["id": 10_000, "name": "Rex", "age": 1], update: .modified)
    rex.age += 1
}
print("Rex is now \(realm.object(ofType: Dog.self, forPrimaryKey: 10_000)?.age ?? -1)")

do {
    try realm.write {
        realm.add(Dog(value: ["id": 10_000]))  // taken: the whole transaction fails
    }
} catch let error as Realm.Error where error.code == .invalidInput {
    print("rolled back: \(error.message)")
}
