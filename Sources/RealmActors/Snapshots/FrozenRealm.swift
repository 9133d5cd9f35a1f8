internal import RealmRuntime

/// A realm frozen at one version: `Sendable`, immutable, readable from any actor or thread.
/// Made by ``Realm/freeze()``.
///
/// ```swift
/// let snapshot = realm.freeze()
/// Task.detached {
///     for dog in snapshot.objects(Dog.self) { print(dog.name) }
/// }
/// ```
public struct FrozenRealm: Sendable {
    let snapshot: FrozenSnapshot

    /// The configuration of the realm it was frozen from.
    public var configuration: Realm.Configuration { snapshot.configuration }

    /// Always true, as Realm's `Realm.isFrozen` is for a frozen realm: code written against
    /// Realm Swift (`realm.freeze().isFrozen`) compiles and reads the same. A live ``Realm``'s
    /// ``Realm/isFrozen`` is false.
    public var isFrozen: Bool { true }

    /// The classes the realm stored at this version.
    public var schema: Schema { Schema(snapshot.catalog) }

    /// Every object of a class at this version.
    public func objects<T: Object>(_ type: T.Type) -> FrozenResults<T> {
        FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[T.className()], keys: nil,
                      query: ObjectQuery(className: T.className()))
    }

    /// The object with the given primary key at this version, or nil. Traps as
    /// ``Realm/object(ofType:forPrimaryKey:)`` does on a class without a primary key.
    public func object<T: Object, Key>(ofType type: T.Type, forPrimaryKey key: Key) -> Frozen<T>? {
        let realm = snapshot.handle()
        guard let table = snapshot.catalog.tables[T.className()], let found = realm.object(in: table, forPrimaryKey: key) else { return nil }
        return Frozen(snapshot: snapshot, table: table, key: found)
    }

    /// Whether the realm held no objects at this version.
    public var isEmpty: Bool { snapshot.handle().isEmpty }

    /// A frozen handle on this version, to read through the ordinary API (not `Sendable`; make
    /// one where you read). Writing through it traps.
    public func realm() -> Realm { snapshot.handle() }
}
