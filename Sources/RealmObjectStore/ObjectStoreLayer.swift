// Layer 2 of the architecture (CONTRIBUTING.md, "Layout"): the object store — the schema as stored and as each
// version's catalog (`Schema/`), objects with their links, collections and index entries
// (`Objects/`), the stored forms of values that need more than bytes (`Values/`), and queries
// (`Queries/`, each run through `QueryContext`, with its sorting, distinct and aggregates), in
// folders by stage: the predicate as written (`Expressions/`), parsing the query language
// (`Parsing/`), binding to the schema into a `QueryPlan` (`Binding/`), evaluation — index
// candidates, column scans, the values of paths (`Evaluation/`) — and the order of sorted values
// (`Sorting/`). Synchronous, over one storage snapshot or write transaction.
//
// The object store works *with* the storage layer's transactions rather than hiding them: the
// runtime opens a `Database` and hands its transactions to object-store operations. So this layer
// re-exports the storage module to the layers above; the build still rejects any upward import.
@_exported public import RealmStorage  // `public` is required by @_exported; see RealmStorage's few public symbols in CONTRIBUTING

/// The error the object store throws (the storage layer's, shared by every layer below the API).
package typealias ObjectStoreError = StorageError
