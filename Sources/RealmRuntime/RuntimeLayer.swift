// Layer 3 of the architecture (SPEC §1): the runtime.
//
// The actors: the writer actor per file (single-writer lock, commit pipeline, group commit),
// the notifier actor per file (change computation off the callers' executors), and frozen
// `Sendable` snapshots. It imports only `RealmObjectStore`.
//
// The runtime arrives with issues 5 and 7; until then this file fixes the layer's place in the
// build so that the API layer reaches storage only through it.
package import RealmObjectStore

/// The error the runtime throws, which the API layer converts to `Realm.Error`.
package typealias RuntimeError = ObjectStoreError
