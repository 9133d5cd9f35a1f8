// Schema versions and migrations as Realm Swift's documentation writes them, import changed only.
// Sources: the seeds' "Change an Object Model - Swift SDK" (ja: schema version, add/delete a
// property automatically, rename a property, modify a property, convert a property's type) and
// the API reference (Migration, schemaVersionAtURL, performMigration).
// Each schema version's `Person` is in its own enum, so each keeps its documented declaration.
import Foundation
import RealmActors

// MARK: Schema version 1 ("Schema Version")

enum MigrationV1 {
    // In the first version of the app, the Person model
    // has separate fields for first and last names,
    // and an age property.
    class Person: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var age = 0
    }
}

// MARK: Add a property ("Add a Property")

enum MigrationAddProperty {
    // In a new version, you add a property
    // on the Person model.
    class Person: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        // Add a new "email" property.
        @Persisted var email: String?
        // New properties can be migrated
        // automatically, but must update the schema version.
        @Persisted var age = 0
    }

    static func open() {
        // When you open the realm, specify that the schema
        // is now using a newer version.
        let config = Realm.Configuration(
            schemaVersion: 2)
        // Use this configuration when opening realms
        Realm.Configuration.defaultConfiguration = config
        let realm = try! Realm()
        _ = realm
    }
}

// MARK: Delete a property ("Delete a Property")

enum MigrationDeleteProperty {
    // In a new version, you remove a property
    // on the Person model.
    class Person: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        // Remove the "age" property.
        // @Persisted var age = 0
        // Removed properties can be migrated
        // automatically, but must update the schema version.
    }
}

// MARK: Rename a property ("Rename a Property")

enum MigrationRenameProperty {
    class Person: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var yearsSinceBirth = 0
    }

    static func configuration() -> Realm.Configuration {
        let config = Realm.Configuration(
            schemaVersion: 2,
            migrationBlock: { migration, oldSchemaVersion in
                if oldSchemaVersion < 2 {
                    // Rename the "age" property to "yearsSinceBirth".
                    // The renaming operation should be done outside of calls to `enumerateObjects(ofType: _:)`.
                    migration.renameProperty(onType: Person.className(), from: "age", to: "yearsSinceBirth")
                }
            })
        return config
    }
}

// MARK: Modify properties: combine fields ("Modify Properties", schema version 2)

enum MigrationV2 {
    // In version 2, the Person model has one
    // combined field for the full name and age as a Int.
    // A manual migration will be required to convert from
    // version 1 to this version.
    class Person: Object {
        @Persisted var fullName = ""
        @Persisted var age = 0
    }

    static func open() {
        // In application(_:didFinishLaunchingWithOptions:)
        let config = Realm.Configuration(
            schemaVersion: 2, // Set the new schema version.
            migrationBlock: { migration, oldSchemaVersion in
                if oldSchemaVersion < 2 {
                    // The enumerateObjects(ofType:_:) method iterates over
                    // every Person object stored in the Realm file to apply the migration
                    migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                        // combine name fields into a single field
                        let firstName = oldObject!["firstName"] as? String
                        let lastName = oldObject!["lastName"] as? String
                        newObject!["fullName"] = "\(firstName!) \(lastName!)"
                    }
                }
            }
        )
        // Tell Realm to use this new configuration object for the default Realm
        Realm.Configuration.defaultConfiguration = config
        // Now that we've told Realm how to handle the schema change, opening the file
        // will automatically perform the migration
        let realm = try! Realm()
        _ = realm
    }
}

// MARK: Convert a property's type (schema version 3)

enum MigrationV3 {
    // In version 3, the Person model has one
    // combined field for the full name and age as a String.
    // A manual migration will be required to convert from
    // version 2 to this version.
    class Person: Object {
        @Persisted var fullName = ""
        @Persisted var age = "0"
    }

    static func open() {
        // In application(_:didFinishLaunchingWithOptions:)
        let config = Realm.Configuration(
            schemaVersion: 3, // Set the new schema version.
            migrationBlock: { migration, oldSchemaVersion in
                if oldSchemaVersion < 2 {
                    // Previous Migration.
                    migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                        let firstName = oldObject!["firstName"] as? String
                        let lastName = oldObject!["lastName"] as? String
                        newObject!["fullName"] = "\(firstName!) \(lastName!)"
                    }
                }
                if oldSchemaVersion < 3 {
                    // New Migration.
                    migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                        // Make age a String instead of an Int
                        newObject!["age"] = "\(oldObject!["age"] ?? 0)"
                    }
                }
            }
        )
        // Tell Realm to use this new configuration object for the default Realm
        Realm.Configuration.defaultConfiguration = config
        // Now that we've told Realm how to handle the schema change, opening the file
        // will automatically perform the migration
        let realm = try! Realm()
        _ = realm
    }
}

// MARK: Bypass migrations during development ("Tip: Bypass Migration During Development")

func deleteRealmIfMigrationNeeded() {
    let config = Realm.Configuration(deleteRealmIfMigrationNeeded: true)
    // RealmActors empties the file in place instead of deleting it (DocC "Migrating from Realm
    // Swift": "Smaller differences"); the call is Realm's.
    let realm = try! Realm(configuration: config)
    _ = realm
}

// MARK: The rest of the Migration API (the API reference: Migration, MigrationObject, schemaVersionAtURL)

func migrationAPI(fileURL: URL) throws {
    let config = Realm.Configuration(
        schemaVersion: 4,
        migrationBlock: { migration, oldSchemaVersion in
            print(migration.oldSchema, migration.newSchema)
            if oldSchemaVersion < 4 {
                migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                    if let oldObject, oldObject["age"] as? Int == 0 {
                        migration.delete(newObject!)
                    }
                }
                migration.create("Person", value: ["fullName": "New Person", "age": "0"])
                migration.deleteData(forType: "Obsolete")
            }
        },
        objectTypes: [MigrationV3.Person.self])
    // Read a file's schema version without opening it.
    let version = try schemaVersionAtURL(fileURL)
    print("schema version \(version)")
    // Run the migration now instead of at the first open.
    try Realm.performMigration(for: config)
}
