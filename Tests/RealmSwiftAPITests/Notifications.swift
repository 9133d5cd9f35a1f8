// Change notifications as Realm Swift's documentation writes them, import changed only.
// Sources: "React to Changes" (Swift SDK: realm, collection, object and key-path listeners,
// silent writes, stop watching, change streams with async/await), the seeds' old guide
// ("Notifications") and the API reference (ja: observe, NotificationToken, write(withoutNotifying:)).
//
// Two differences recur, both from the DocC article "Migrating from Realm Swift" ("Threads and
// queues become actors", "Change notifications"): the blocks are `@Sendable` and run on a queue
// (there is no run loop to deliver to), and payloads are frozen (`FrozenResults`, `Frozen`,
// `FrozenRealm`) instead of live.
import Foundation
import RealmActors

// The docs keep tokens in globals or view controllers; Swift 6 forbids unprotected global mutable
// state, so they live in a main-actor class here (a Swift 6 rule, not a RealmActors difference).
@MainActor
final class NotificationExamples {
    var notificationToken: NotificationToken?
    var objectNotificationToken: NotificationToken?

    // MARK: Register an object change listener ("Register an Object Change Listener")

    func objectNotificationExample() {
        let dog = Dog()
        dog.name = "Max"

        // Open the default realm.
        let realm = try! Realm()
        try! realm.write {
            realm.add(dog)
        }
        // Observe object notifications. Keep a strong reference to the notification token
        // or the observation will stop. Invalidate the token when done observing.
        objectNotificationToken = dog.observe { change in
            switch change {
            case .change(let object, let properties):
                for property in properties {
                    print("Property '\(property.name)' of object \(object) changed to '\(property.newValue!)'")
                }
            case .error(let error):
                print("An error occurred: \(error)")
            case .deleted:
                print("The object was deleted.")
            }
        }

        // Now update to trigger the notification
        try! realm.write {
            dog.name = "Wolfie"
        }
    }

    // MARK: Register a key path change listener ("Register a Key Path Change Listener")

    func keyPathObjectNotificationExample() {
        let dog = Dog()
        dog.name = "Max"
        dog.age = 2

        // Open the default realm.
        let realm = try! Realm()
        try! realm.write {
            realm.add(dog)
        }
        // Observe notifications on some of the object's key paths. Keep a strong
        // reference to the notification token or the observation will stop.
        // Invalidate the token when done observing.
        objectNotificationToken = dog.observe(keyPaths: ["favoriteToy", "age"], { change in
            switch change {
            case .change(let object, let properties):
                for property in properties {
                    print("Property '\(property.name)' of object \(object) changed to '\(property.newValue!)'")
                }
            case .error(let error):
                print("An error occurred: \(error)")
            case .deleted:
                print("The object was deleted.")
            }
        })
        // Key paths as Swift key paths.
        let typed = dog.observe(keyPaths: [\Dog.name]) { _ in }
        typed.invalidate()

        // When one or more keypaths is specified, changes to other properties
        // do not trigger notifications. In this example, changing the "name"
        // property does not trigger a notification.
        try! realm.write {
            dog.name = "Maxamillion"
        }
    }

    // MARK: Register a collection change listener ("Register a Collection Change Listener")

    func collectionNotificationExample() {
        let realm = try! Realm()
        let results = realm.objects(Dog.self)

        // Observe collection notifications. Keep a strong
        // reference to the notification token or the
        // observation will stop.
        notificationToken = results.observe { (changes: RealmCollectionChange) in
            switch changes {
            case .initial:
                // Results are now populated and can be accessed without blocking the UI
                print("reload")
            case .update(_, let deletions, let insertions, let modifications):
                // Query results have changed, so apply them to the UITableView
                // Always apply updates in the following order: deletions, insertions, then modifications.
                // Handling insertions before deletions may result in unexpected behavior.
                print(deletions, insertions, modifications)
            case .error(let error):
                // An error occurred while opening the Realm file on the background worker thread
                fatalError("\(error)")
            }
        }
        // On a given queue, as Realm's `observe(on:)`.
        let onMain = results.observe(on: .main) { changes in
            if case .update(let dogs, _, let insertions, _) = changes { print(dogs.count, insertions) }
        }
        // A relationship's objects and a list of values are observed the same way.
        let person = realm.objects(Person.self).first!
        let dogsToken = person.dogs.observe { _ in }
        let tagsToken = realm.objects(Task.self).first!.tags.observe { changes in
            if case .initial(let tags) = changes { print(tags) }
        }
        let parksToken = realm.objects(MapDog.self).first!.favoriteParksByCity.observe { changes in
            switch changes {
            case .initial(let parks): print(parks)
            case .update(_, let deletions, let insertions, let modifications): print(deletions, insertions, modifications)
            case .error(let error): print(error)
            }
        }
        for token in [onMain, dogsToken, tagsToken, parksToken] { token.invalidate() }
    }

    // MARK: Register a realm change listener ("Register a Realm Change Listener")

    func realmNotificationExample() {
        let realm = try! Realm()

        // Observe realm notifications. Keep a strong reference to the notification token
        // or the observation will stop.
        let token = realm.observe { notification, realm in
            // `notification` is an enum specifying what kind of notification was emitted
            print(notification, realm.objects(Dog.self).count)
        }

        // ...

        // Later, explicitly stop observing.
        token.invalidate()
    }

    // MARK: Write silently ("Write Silently")

    func silentWrite() {
        let realm = try! Realm()

        // Observe realm notifications
        let token = realm.observe { notification, realm in
            // ... handle update
        }

        // Later, pass the token in an array to the realm.write(withoutNotifying:)
        // method to write without sending a notification to that observer.
        try! realm.write(withoutNotifying: [token]) {
            // ... write to realm
        }

        // The same with beginWrite/commitWrite (the API reference: commitWrite(withoutNotifying:)).
        realm.beginWrite()
        try! realm.commitWrite(withoutNotifying: [token])

        // Finally
        token.invalidate()
    }
}

// MARK: Change streams with async/await ("React to Changes: async sequences", "Observe on an actor")

actor DogWatcher {
    var realm: Realm!
    var token: NotificationToken?

    init() async throws {
        realm = try await Realm(actor: self)
    }

    func watch() async throws {
        let dogs = realm.objects(Dog.self)
        // Realm Swift: `dogs.observe(on: self) { actor, changes in … }` with the actor isolated.
        token = await dogs.observe(on: self) { actor, changes in
            switch changes {
            case .initial(let dogs): print("initial \(dogs.count)")
            case .update(let dogs, let deletions, let insertions, let modifications):
                print(dogs.count, deletions, insertions, modifications)
            case .error(let error): print(error)
            }
        }
        let dog = dogs.first!
        let dogToken = await dog.observe(keyPaths: ["name"], on: self) { actor, change in
            if case .change(_, let properties) = change { print(properties.map(\.name)) }
        }
        dogToken.invalidate()
        // The async sequence of changes.
        for await changes in dogs.changes {
            if case .update(_, _, let insertions, _) = changes, !insertions.isEmpty { break }
        }
        for await change in dog.changes {
            if case .deleted = change { break }
        }
        // Every new version of the realm.
        for await version in realm.changes {
            print(version.objects(Dog.self).count)
            break
        }
    }
}
