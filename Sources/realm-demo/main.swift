// The RealmActors demo: `swift run realm-demo`.
//
// It exercises what the library can do today, end to end, through the public API only, and grows
// with every feature that lands (the target: several actors writing concurrently, a query, and a
// printed change stream).
import Foundation
import RealmActors

let config = Realm.Configuration.defaultConfiguration
print("RealmActors demo")
print("default realm file: \(config.fileURL?.path ?? "(in memory)")")
print("file exists: \(Realm.fileExists(for: config))")

// Errors are values with Realm's codes.
let error = Realm.Error(.invalidDatabase, "Not a realm file", fileURL: config.fileURL)
switch error.code {
case .invalidDatabase: print("errors carry Realm's codes: \(error.code) — \(error)")
default: break
}
