// Error handling as Realm Swift's documentation writes it, import changed only.
// Sources: "Handle Errors" (Swift SDK), the seeds' "Configure & Open a Realm" ("Handle Errors
// When Accessing a Realm") and the API reference (Realm.Error and its codes).
// Difference: Realm.Error is a struct with Realm's codes and `message`; Realm's NSError
// `userInfo` is not there (DocC "Migrating from Realm Swift": "Errors"). `catch let error as
// NSError`, as the docs write it, compiles (see OpeningRealms.swift).
import Foundation
import RealmActors

func handleRealmErrors() {
    do {
        let realm = try Realm()
        try realm.write {
            realm.add(Dog())
        }
    } catch Realm.Error.fileNotFound {
        print("The realm file was not found")
    } catch Realm.Error.filePermissionDenied {
        print("Permission denied")
    } catch let error as Realm.Error {
        switch error.code {
        case .fileAccess, .fileExists, .incompatibleLockFile:
            print("Could not open the file: \(error.localizedDescription)")
        case .fileFormatUpgradeRequired, .schemaMismatch:
            print("Migration needed: \(error.localizedDescription)")
        default:
            print("Realm error \(error.code) at \(error.fileURL?.path ?? "?")")
        }
    } catch {
        print("Unexpected error: \(error)")
    }
}

func readOnlyRealmErrors() {
    var config = Realm.Configuration.defaultConfiguration
    config.readOnly = true
    do {
        let realm = try Realm(configuration: config)
        print(realm.objects(Dog.self).count)
    } catch let error as Realm.Error where error.code == .fileNotFound {
        print("No realm yet: \(error.localizedDescription)")
    } catch {
        print(error.localizedDescription)
    }
}
