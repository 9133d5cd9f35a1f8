// Layer 2 of the architecture (SPEC §1): the object store — schema, tables, typed values,
// objects, indexes, queries, the change log — synchronous over one storage snapshot or write
// transaction.
//
// The object store works *with* the storage layer's transactions rather than hiding them: the
// runtime opens a `Database` and hands its transactions to object-store operations. So this layer
// re-exports the storage module to the layers above; the build still rejects any upward import.
@_exported public import RealmStorage  // `public` is required by @_exported; RealmStorage declares nothing public

/// The error the object store throws (the storage layer's, shared by every layer below the API).
package typealias ObjectStoreError = StorageError
