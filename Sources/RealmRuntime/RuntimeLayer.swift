// Layer 3 of the architecture (SPEC §1): the runtime — the shared file state per realm file,
// the writer actor (single-writer lock, commit pipeline, group commit), the notifier actor, and
// frozen `Sendable` snapshots.
//
// It builds on the object store and re-exports it (and through it the storage layer) to the API
// layer, which imports this module `internal`ly, so none of it reaches users.
@_exported public import RealmObjectStore  // `public` is required by @_exported; nothing below is public

/// The error the runtime throws, which the API layer converts to `Realm.Error`.
package typealias RuntimeError = ObjectStoreError
