// Every `Realm` member of Realm Swift's API reference (the seeds' "Realm" page, ja), called as
// declared there, import changed only. Members replaced by a design difference are written in
// the replacement form, with the DocC article "Migrating from Realm Swift" cited; Sync,
// Combine publishers (`objectWillChange`, `asyncOpen` publisher), `events` and `subscriptions`
// are out of scope (see the report in issue 37).
import Foundation
import RealmActors

func realmMembers(otherURL: URL, key: Data) throws {
    // init(queue:) / init(configuration:queue:): a handle is confined to its thread or actor, not
    // to a queue ("Threads and queues become actors"): init(), init(configuration:).
    let realm = try Realm()
    let configured = try Realm(configuration: .defaultConfiguration)
    let atURL = try Realm(fileURL: otherURL)

    // write(withoutNotifying:_:), beginWrite(), commitWrite(withoutNotifying:), cancelWrite(),
    // isInWriteTransaction.
    let token = realm.observe { _, _ in }
    let count = try realm.write(withoutNotifying: [token]) { realm.objects(Dog.self).count }
    realm.beginWrite()
    try realm.commitWrite(withoutNotifying: [token])
    realm.beginWrite()
    realm.cancelWrite()
    print(count, realm.isInWriteTransaction)

    // writeAsync, beginAsyncWrite, commitAsyncWrite, cancelAsyncWrite,
    // isPerformingAsynchronousWriteOperations: one `asyncWrite` replaces them (see asyncWrites()
    // in Writes.swift; "Threads and queues become actors").

    // add(_:update:) for an object and a sequence, with Realm's UpdatePolicy.
    try realm.write {
        realm.add(Person(value: ["id": 7]), update: .error)
        realm.add([Person(value: ["id": 8]), Person(value: ["id": 9])], update: Realm.UpdatePolicy.all)
        // create(_:value:update:)
        realm.create(Person.self, value: ["id": 7, "name": "Seven"], update: .modified)
        // delete(_:) for an object and a sequence; deleteAll().
        realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 9)!)
        realm.delete(realm.objects(Person.self).filter("id > 7"))
        realm.delete(Array(realm.objects(Dog.self)))
        realm.deleteAll()
    }

    // objects(_:), object(ofType:forPrimaryKey:)
    print(realm.objects(Person.self).count, realm.object(ofType: Person.self, forPrimaryKey: 7)?.name ?? "")

    // observe(_:): the block gets the frozen realm of the new version ("Threads and queues
    // become actors").
    let observation = realm.observe { notification, frozenRealm in
        print(notification, frozenRealm.objects(Person.self).count)
    }
    observation.invalidate()

    // autorefresh, refresh(), invalidate()
    realm.autorefresh = true
    realm.refresh()
    realm.invalidate()

    // isFrozen, freeze(), thaw(), freeze(_:) of an object and a collection, thaw(_:): frozen
    // values are Sendable snapshots ("Passing objects between actors"); see Threading.swift
    // for `frozenRealm.thaw()`, which is async.
    let frozenRealm = realm.freeze()
    print(realm.isFrozen, frozenRealm.isFrozen)
    if let person = realm.objects(Person.self).first {
        let frozenPerson = realm.freeze(person)
        let frozenPeople = realm.freeze(realm.objects(Person.self))
        print(realm.thaw(frozenPerson)?.name ?? "", frozenPeople.count)
    }

    // writeCopy(toFile:encryptionKey:), writeCopy(configuration:)
    try realm.writeCopy(toFile: otherURL.appendingPathExtension("copy"), encryptionKey: key)
    try realm.writeCopy(configuration: Realm.Configuration(fileURL: otherURL.appendingPathExtension("copy2")))

    // fileExists(for:), deleteFiles(for:), performMigration(for:)
    let config = Realm.Configuration(fileURL: otherURL.appendingPathExtension("copy2"))
    if Realm.fileExists(for: config) {
        try Realm.performMigration(for: config)
        _ = try Realm.deleteFiles(for: config)
    }

    // Error (Realm.Error), ==
    let error: Realm.Error? = nil
    print(error?.code ?? .fail, configured == atURL)
}

// init(configuration:actor:), asyncWrite(_:), asyncRefresh()
actor ReferenceActor {
    func members() async throws {
        let realm = try await Realm(configuration: .defaultConfiguration, actor: self)
        let name = try await realm.asyncWrite {
            realm.create(Person.self, value: ["id": 10, "name": "Ten"]).name
        }
        await realm.asyncRefresh()
        print(name)
    }
}
