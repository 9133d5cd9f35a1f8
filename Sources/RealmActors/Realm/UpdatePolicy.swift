import Foundation
internal import RealmRuntime

/// What `add(_:update:)` does when an object with the same primary key exists.
public enum UpdatePolicy: Int, Sendable {
    /// Adding an object whose primary key is taken fails (the transaction's commit throws).
    case error = 1
    /// The existing object takes every property of the new one.
    case all = 2
    /// The existing object takes only the properties whose values differ.
    case modified = 3
}

extension Realm {
    /// ``RealmActors/UpdatePolicy`` under Realm Swift's name, `Realm.UpdatePolicy`
    /// (`realm.add(dog, update: Realm.UpdatePolicy.modified)`).
    public typealias UpdatePolicy = RealmActors.UpdatePolicy
}
