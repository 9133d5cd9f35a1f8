/// One version of a realm file, pinned while anything refers to it: the notifier's newest
/// version, each tracker's, and every frozen value of the API (through its `FrozenSnapshot`).
///
/// `Sendable`: every field is immutable and `Sendable`, and the pinned version's pages never
/// change, so any thread may read it, each with its own ``QueryContext``.
package final class FrozenVersion: Sendable {
    package let file: SharedRealmFile
    /// The pinned version.
    package let reader: ReadTransaction
    /// The version's schema (taken with it; see ``SchemaVersions``).
    package let catalog: SchemaCatalog

    package init(file: SharedRealmFile, reader: ReadTransaction, catalog: SchemaCatalog) {
        self.file = file
        self.reader = reader
        self.catalog = catalog
    }

    /// The newest durable version of `file`.
    package static func newest(of file: SharedRealmFile) throws -> FrozenVersion {
        let (reader, catalog) = try file.beginRead()
        return FrozenVersion(file: file, reader: reader, catalog: catalog)
    }

    /// The version's transaction id.
    package var transaction: TransactionID { reader.transaction }

    /// Queries at this version.
    package func queries() -> QueryContext { QueryContext(reader: reader, catalog: catalog) }

    /// `body` run on ``queries()``; damage it finds traps, naming the file.
    package func query<T>(_ body: (QueryContext) throws -> T) -> T {
        do {
            return try body(queries())
        } catch {
            file.fileIsDamaged(error)
        }
    }
}
