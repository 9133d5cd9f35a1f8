// The RealmActors demo: `swift run realm-demo`.
//
// It exercises what the library can do today, end to end, through the public API only, and grows
// with every feature that lands.
import Foundation
import RealmActors

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var owner: String?
    @Persisted var friends: List<Dog>
}

/// A kennel with its own realm handle, isolated to the actor.
actor Kennel {
    let name: String
    private var registered = 0
    init(name: String) { self.name = name }

    /// Registers dogs in small transactions: each `asyncWrite` suspends (never blocks a thread)
    /// for the lock and the disk; the writers of all kennels share disk syncs (group commit).
    func register(ids: Range<Int>, config: Realm.Configuration) async throws -> Frozen<Dog>? {
        let realm = try await Realm.open(configuration: config)  // isolated to this actor
        var last: Dog?
        for batch in stride(from: ids.lowerBound, to: ids.upperBound, by: 25) {
            last = try await realm.asyncWrite {
                var newest: Dog?
                for id in batch..<min(batch + 25, ids.upperBound) {
                    let dog = Dog(value: ["id": id, "name": "\(name) dog \(id)", "age": id % 15, "owner": name])
                    if let friend = realm.object(ofType: Dog.self, forPrimaryKey: id - 1), id > ids.lowerBound {
                        dog.friends.append(friend)
                    }
                    realm.add(dog, update: .modified)
                    newest = dog
                    registered += 1  // the block runs on the actor: its state is at hand
                }
                return newest
            }
        }
        return last?.freeze()  // a Sendable snapshot, to hand to another actor
    }
}

var config = Realm.Configuration.defaultConfiguration
config.objectTypes = [Dog.self]
print("RealmActors demo")
print("realm file: \(config.fileURL?.path ?? "(in memory)")")

// A file this library cannot open (damaged, foreign, or left by an older development build of
// the format) is reported, not trapped on.
do {
    _ = try Realm(configuration: config)
} catch let error as Realm.Error {
    print("cannot open the demo's realm: \(error.message)")
    print("it holds only demo data: delete \(config.fileURL?.path ?? "it") and run the demo again")
    exit(1)
}

// Several actors write concurrently; every write transaction takes the file's write lock in turn.
let kennels = ["North", "South", "East", "West"].map(Kennel.init)
let started = ContinuousClock.now
let lastDogs = try await withThrowingTaskGroup(of: Frozen<Dog>?.self) { group in
    for (index, kennel) in kennels.enumerated() {
        group.addTask { try await kennel.register(ids: index * 250..<(index + 1) * 250, config: config) }
    }
    var dogs: [Frozen<Dog>] = []
    for try await dog in group { if let dog { dogs.append(dog) } }
    return dogs
}
print("4 actors wrote 1,000 dogs in 40 transactions in \(ContinuousClock.now - started)")
for dog in lastDogs.sorted(by: { $0.id < $1.id }) {
    print("  \(dog.owner ?? "?") kennel's last dog: \(dog.name), friend of \(dog.friends.first?.name ?? "nobody")")
}

let realm = try Realm(configuration: config)
let dogs = realm.objects(Dog.self)
print("the realm holds \(dogs.count) dogs; dog 42 is \(realm.object(ofType: Dog.self, forPrimaryKey: 42)?.name ?? "missing")")
let puppies = dogs.where { $0.age < 2 }.sorted(byKeyPath: "name")
print("\(puppies.count) puppies, for example \(puppies.prefix(3).map(\.name).joined(separator: ", "))")
let northOld = dogs.filter("owner == %@ AND age >= %@", "North", 13)
print("\(northOld.count) old dogs in the North kennel, average age \(northOld.average(ofProperty: "age") as Double? ?? 0)")

// A change stream: the notifier actor reports what each commit does to the puppies. The loop
// writes as it goes: Rex joins the puppies, then grows up and leaves.
watch: for await change in puppies.changes {
    switch change {
    case .initial(let initial):
        print("watching \(initial.count) puppies")
        try realm.write { realm.create(Dog.self, value: ["id": 10_000, "name": "Rex", "age": 1], update: .modified) }
    case .update(let now, let deletions, let insertions, _) where !insertions.isEmpty:
        print("  change: \(now[insertions[0]].name) joined the puppies at position \(insertions[0]), deletions \(deletions)")
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 10_000)!.age += 1 }
    case .update(let now, let deletions, _, _):
        print("  change: puppies at \(deletions) left (\(now.count) now); Rex is \(realm.object(ofType: Dog.self, forPrimaryKey: 10_000)?.age ?? -1)")
        break watch
    case .error(let error):
        print("stopped: \(error)")
        break watch
    }
}

do {
    try realm.write {
        realm.add(Dog(value: ["id": 10_000]))  // taken: the whole transaction fails
    }
} catch let error as Realm.Error where error.code == .invalidInput {
    print("rolled back: \(error.message)")
}
