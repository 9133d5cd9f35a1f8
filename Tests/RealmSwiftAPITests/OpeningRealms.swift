// Opening and configuring realms as Realm Swift's documentation writes it, import changed only.
// Sources: the seeds' "Configure & Open a Realm - Swift SDK" (ja) and the Realm API reference
// (ja: init, Configuration, fileExists/deleteFiles), "Encrypt a Realm", "Reduce Realm File Size"
// (compacting), "Delete a Realm File", "Bundle a Realm File", the old guide's "Realms" section.
import Foundation
import RealmActors

// MARK: Open the default realm or a realm at a file URL ("Open a Realm Without Sync")

func openDefaultAndFileURLRealms() {
    // Open the default realm
    let defaultRealm = try! Realm()
    // Open the realm with a specific file URL, for example a username
    let username = "GordonCole"
    var config = Realm.Configuration.defaultConfiguration
    config.fileURL!.deleteLastPathComponent()
    config.fileURL!.appendPathComponent(username)
    config.fileURL!.appendPathExtension("realm")
    let realm = try! Realm(configuration: config)
    // The API reference's third initialiser: a realm persisted at a file URL.
    let fileRealm = try! Realm(fileURL: config.fileURL!)
    _ = (defaultRealm, realm, fileRealm)
}

func setTheDefaultConfiguration() {
    // Set the default configuration once; every later Realm() uses it.
    var config = Realm.Configuration()
    config.fileURL = config.fileURL!.deletingLastPathComponent().appendingPathComponent("default-v2.realm")
    Realm.Configuration.defaultConfiguration = config
    let realm = try! Realm()
    // The realm file's location, as the docs print it to find the file.
    print("User Realm User file location: \(realm.configuration.fileURL!.path)")
}

// MARK: Open an in-memory realm ("Open an In-Memory Realm")

func openInMemoryRealm() {
    // Open the realm with a specific in-memory identifier.
    let identifier = "MyRealm"
    let config = Realm.Configuration(
        inMemoryIdentifier: identifier)
    // Open the realm
    let realm = try! Realm(configuration: config)
    _ = realm
}

// MARK: Open a realm with Swift concurrency features ("Open a Realm with Swift Concurrency")

@MainActor
func mainThreadFunction() async throws {
    // Realm Swift's async init without an actor makes a MainActor-isolated realm; here the
    // actor is named (`Realm(actor:)` below, as the docs' second line does). See the DocC
    // article "Migrating from Realm Swift": "Threads and queues become actors".
    let realm1 = try await Realm(actor: MainActor.shared)
    let realm2 = try await Realm(actor: MainActor.shared)
    try await useTheRealm(realm: realm1)
    _ = realm2
}

@MainActor
func useTheRealm(realm: Realm) async throws {
    try await realm.asyncWrite {
        realm.add(Todo(value: ["name": "Keep it secret", "owner": "Frodo", "status": "In Progress"]))
    }
}

// A custom actor that manages every realm operation ("Define a Custom Realm Actor").
actor RealmActor {
    // An implicitly-unwrapped optional is used here to let us pass `self` to
    // `Realm(actor:)` within `init`
    var realm: Realm!
    init() async throws {
        realm = try await Realm(actor: self)
    }

    var count: Int {
        realm.objects(Todo.self).count
    }

    func createTodo(name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite {
            realm.create(Todo.self, value: [
                "_id": ObjectId.generate(),
                "name": name,
                "owner": owner,
                "status": status
            ])
        }
    }

    func getTodoOwner(forTodoNamed name: String) -> String {
        let todo = realm.objects(Todo.self).where {
            $0.name == name
        }.first!
        return todo.owner
    }

    struct TodoStruct {
        var id: ObjectId
        var name, owner, status: String
    }

    func getTodoAsStruct(forTodoNamed name: String) -> TodoStruct {
        let todo = realm.objects(Todo.self).where {
            $0.name == name
        }.first!
        return TodoStruct(id: todo._id, name: todo.name, owner: todo.owner, status: todo.status)
    }

    func updateTodo(_id: ObjectId, name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite {
            realm.create(Todo.self, value: [
                "_id": _id,
                "name": name,
                "owner": owner,
                "status": status
            ], update: .modified)
        }
    }

    func deleteTodo(id: ObjectId) async throws {
        try await realm.asyncWrite {
            let todoToDelete = realm.object(ofType: Todo.self, forPrimaryKey: id)
            realm.delete(todoToDelete!)
        }
    }

    func close() {
        realm = nil
    }
}

// A custom global actor ("Use Realm with a Global Actor").
@globalActor actor BackgroundActor: GlobalActor {
    // Realm's docs declare `static var shared`; Swift 6 requires a global actor's `shared` to be
    // immutable (a Swift 6 rule, not a RealmActors difference).
    static let shared = BackgroundActor()
}

@BackgroundActor
func backgroundThreadFunction() async throws {
    // Explicitly specifying the actor is required for anything that is not MainActor
    let realm = try await Realm(actor: BackgroundActor.shared)
    try await realm.asyncWrite {
        _ = realm.create(Todo.self, value: [
            "name": "Pledge fealty and service to Gondor",
            "owner": "Pippin",
            "status": "In Progress"
        ])
    }
    // Thread-confined Realms would sometimes throw an exception here, as we
    // may end up on a different thread after an `await`
    let todoCount = realm.objects(Todo.self).count
    print("The number of Realm objects is: \(todoCount)")
}

@MainActor
func callTheBackgroundActor() async throws {
    try await backgroundThreadFunction()
}

// MARK: Open a realm asynchronously (the API reference: asyncOpen; "Threads and queues become actors")

func openAsynchronously() {
    // The callback form: the handle is made on the callback queue (DocC "Migrating from Realm
    // Swift": `Realm.asyncOpen(configuration:callbackQueue:callback:)` is the same call).
    let config = Realm.Configuration(schemaVersion: 1)
    Realm.asyncOpen(configuration: config, callbackQueue: .main) { result in
        switch result {
        case .success(let realm):
            print("Realm opened: \(realm.configuration.schemaVersion)")
        case .failure(let error):
            print("Failed to open realm: \(error.localizedDescription)")
        }
    }
}

// MARK: Handle errors when accessing a realm ("Handle Errors When Accessing a Realm")

func handleOpenErrors() {
    do {
        let realm = try Realm()
        // Use realm
        _ = realm
    } catch let error as NSError {  // compiles; on Linux it never matches (DocC "Migrating from Realm Swift", Errors)
        // Handle error
        _ = error
    }
    // The error itself is a Realm.Error, a struct with Realm's codes; its NSError form carries
    // no Realm-specific userInfo (DocC "Migrating from Realm Swift": "Errors"). See Errors.swift.
}

// MARK: Provide a subset of classes to a realm ("Provide a Subset of Classes to a Realm")

func openWithASubsetOfClasses() {
    var config = Realm.Configuration.defaultConfiguration
    // Given: `class Dog: Object`
    // Limit the realm to only the Dog object. All other
    // Object- and EmbeddedObject-derived classes are not added.
    config.objectTypes = [Dog.self]
    let realm = try! Realm(configuration: config)
    _ = realm
}

// MARK: Initialize properties using Realm APIs ("Initialize Properties Using Realm APIs")

class SomeSwiftType {
    let persons = try! Realm().objects(Person.self)
    // ...
}

class LazySwiftType {
    // The docs' advice: a lazy property waits until the configuration is set.
    lazy var persons = try! Realm().objects(Person.self)
}

// MARK: Use a realm when the device is locked ("Use Realm When the Device Is Locked")

func realmFileParentDirectory() {
    let realm = try! Realm()
    // Get the realm file's parent directory
    let folderPath = realm.configuration.fileURL!.deletingLastPathComponent().path
    // The docs then call FileManager.setAttributes with FileProtectionType, an iOS file-system
    // API, not Realm's; Linux has no file protection classes.
    _ = folderPath
}

// MARK: Every Configuration field (the API reference: Realm.Configuration)

func configurationFields(key: Data) {
    let config = Realm.Configuration(
        fileURL: Realm.Configuration.defaultConfiguration.fileURL,
        inMemoryIdentifier: nil,
        encryptionKey: nil,
        readOnly: false,
        schemaVersion: 3,
        migrationBlock: nil,
        deleteRealmIfMigrationNeeded: false,
        shouldCompactOnLaunch: nil,
        objectTypes: [Dog.self, Person.self])
    var copy = config
    copy.readOnly = true
    copy.schemaVersion = 4
    copy.encryptionKey = key
    copy.deleteRealmIfMigrationNeeded = true
    copy.maximumNumberOfActiveVersions = 8
    copy.seedFilePath = URL(fileURLWithPath: "/tmp/seed.realm")
    print(copy.description, copy == config, Realm.Configuration.defaultConfiguration.fileURL!)
}

// MARK: Encrypt a realm ("Encrypt a Realm")

func encryptARealm() {
    // Generate a random encryption key
    var key = Data(count: 64)
    key.withUnsafeMutableBytes { (pointer: UnsafeMutableRawBufferPointer) in
        for index in pointer.indices { pointer[index] = UInt8.random(in: 0...255) }
    }
    // Realm's docs fill the key with SecRandomCopyBytes (Apple's Security framework, not on
    // Linux); any 64 random bytes serve.

    // Configure for an encrypted realm
    var config = Realm.Configuration(encryptionKey: key)

    do {
        // Open the encrypted realm
        let realm = try Realm(configuration: config)
        // ... use the realm as normal ...
        _ = realm
    } catch let error as NSError {  // compiles; on Linux it never matches (DocC "Migrating from Realm Swift", Errors)
        // If the encryption key is wrong, `error` will say that it's an invalid database
        fatalError("Error opening realm: \(error.localizedDescription)")
    }
    config.encryptionKey = nil
}

// MARK: Compact a realm ("Reduce Realm File Size": shouldCompactOnLaunch)

func compactOnLaunch() {
    let config = Realm.Configuration(shouldCompactOnLaunch: { totalBytes, usedBytes in
        // totalBytes refers to the size of the file on disk in bytes (data + free space)
        // usedBytes refers to the number of bytes used by data in the file

        // Compact if the file is over 100MB in size and less than 50% 'used'
        let oneHundredMB = 100 * 1024 * 1024
        return (totalBytes > oneHundredMB) && (Double(usedBytes) / Double(totalBytes)) < 0.5
    })
    do {
        // Realm is compacted on the first open if the configuration block conditions were met.
        let realm = try Realm(configuration: config)
        _ = realm
    } catch {
        // handle error compacting or opening Realm
    }
}

// MARK: Delete realm files, check that one exists (the API reference: deleteFiles, fileExists)

func deleteRealmFiles() {
    let config = Realm.Configuration.defaultConfiguration
    // Whether a realm file exists for this configuration.
    if Realm.fileExists(for: config) {
        do {
            // Delete the realm and its auxiliary files (every handle must be closed first).
            _ = try Realm.deleteFiles(for: config)
        } catch {
            // handle error
        }
    }
}

// MARK: Bundle a realm file, copy a realm ("Bundle a Realm File": writeCopy)

func bundleARealm() {
    let realm = try! Realm()
    // Copy the realm to a new file, as the docs do before bundling it with the app.
    let bundledURL = realm.configuration.fileURL!.deletingLastPathComponent().appendingPathComponent("bundle.realm")
    try! realm.writeCopy(toFile: bundledURL)
    // Open the copy read-only, as an app opens its bundled realm.
    let config = Realm.Configuration(fileURL: bundledURL, readOnly: true)
    let bundled = try! Realm(configuration: config)
    // Or seed a writable realm from it on first open.
    var seeded = Realm.Configuration.defaultConfiguration
    seeded.seedFilePath = bundledURL
    _ = (bundled, try! Realm(configuration: seeded))
}

// MARK: The Realm handle's own state (the API reference: autorefresh, refresh, invalidate, isEmpty, schema, ==)

func realmHandleState() {
    let realm = try! Realm()
    realm.autorefresh = false
    realm.refresh()
    print(realm.isEmpty, realm.schema.objectSchema.count, realm == realm)
    realm.invalidate()
}
