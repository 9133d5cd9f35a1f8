// Layer 3 of the architecture (CONTRIBUTING.md, "Layout"): the runtime — what every handle of one realm file shares
// in a process (`Files/SharedRealmFile`): the schema of each version (`SchemaVersions`); the
// writer (`Writing/`: `WritePipeline` holds a commit's ordering rules over the `WriteLock` and
// `GroupCommit`); notifying (`Changes/`: each commit's change log through the `ChangeFeed` to the
// file's `Notifier` actor, whose trackers compute change sets); and pinned versions
// (`Snapshots/FrozenVersion`) that frozen values and the notifier read.
//
// It builds on the object store and re-exports it (and through it the storage layer) to the API
// layer, which imports this module `internal`ly, so none of it reaches users.
@_exported public import RealmObjectStore  // `public` is required by @_exported; nothing below is public

/// The error the runtime throws, which the API layer converts to `Realm.Error`.
package typealias RuntimeError = ObjectStoreError
