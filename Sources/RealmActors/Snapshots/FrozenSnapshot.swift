internal import RealmRuntime

/// One version of a realm file, pinned while any frozen value refers to it.
///
/// `Sendable`: every field is immutable and `Sendable`; the pinned version's pages never change.
final class FrozenSnapshot: Sendable {
    let configuration: Realm.Configuration
    let file: SharedRealmFile
    let reader: ReadTransaction
    let catalog: SchemaCatalog

    init(configuration: Realm.Configuration, file: SharedRealmFile, reader: ReadTransaction, catalog: SchemaCatalog) {
        self.configuration = configuration
        self.file = file
        self.reader = reader
        self.catalog = catalog
    }

    /// A frozen handle on this version, for one read: handles are cheap and not `Sendable`, so
    /// each read from any thread makes its own.
    func handle() -> Realm { Realm(frozen: self) }

    /// Queries at this version.
    func queries() -> QueryContext { QueryContext(reader: reader, catalog: catalog) }

    /// `body` run on ``queries()``; damage it finds traps, naming the file.
    func query<T>(_ body: (QueryContext) throws -> T) -> T {
        do {
            return try body(queries())
        } catch {
            configuration.fileIsDamaged(error)
        }
    }
}
