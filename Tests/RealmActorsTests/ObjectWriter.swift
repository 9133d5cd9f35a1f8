import RealmActors

/// An actor that owns its realm handle (opened on first use, on the actor) and commits one
/// object per call with `asyncWrite`: the concurrent writers of the I/O fault and full-disk
/// tests, each a task of its own.
actor ObjectWriter {
    let configuration: Realm.Configuration
    private var realm: Realm?

    init(configuration: Realm.Configuration) { self.configuration = configuration }

    /// Adds, in one write transaction, the object `makeObject` builds (on the actor: objects
    /// are not `Sendable`).
    func add(_ makeObject: @Sendable () -> Object) async throws {
        if realm == nil { realm = try await Realm(configuration: configuration, actor: self) }
        let realm = realm!
        try await realm.asyncWrite { realm.add(makeObject()) }
    }

    /// Closes the handle (the next ``add(_:)`` opens another).
    func close() { realm = nil }
}
