// Layer 2 of the architecture (SPEC §1): the object store.
//
// Schema, tables, typed values, objects, links, lists/sets/maps, indexes, query evaluation and
// the per-commit change log, all synchronous over one storage snapshot or one write transaction.
// It imports only `RealmStorage`; the runtime and API layers build on it.
//
// The object store arrives with issues 4 and 6; until then this file fixes the layer's place in
// the build so that nothing above can skip it.
package import RealmStorage

/// The storage error type, re-exported to the layers above under the object store's name.
package typealias ObjectStoreError = StorageError
