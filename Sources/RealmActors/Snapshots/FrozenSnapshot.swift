internal import RealmRuntime

/// One version of a realm file as the API's frozen values hold it: the runtime's pinned
/// ``FrozenVersion`` and the configuration of the handle it was frozen from (for the frozen
/// handles made from it).
///
/// `Sendable`: both fields are immutable and `Sendable`; the pinned version's pages never change.
final class FrozenSnapshot: Sendable {
    let configuration: Realm.Configuration
    let version: FrozenVersion

    init(configuration: Realm.Configuration, version: FrozenVersion) {
        self.configuration = configuration
        self.version = version
    }

    var file: SharedRealmFile { version.file }
    var reader: ReadTransaction { version.reader }
    var catalog: SchemaCatalog { version.catalog }

    /// A frozen handle on this version, for one read: handles are cheap and not `Sendable`, so
    /// each read from any thread makes its own.
    func handle() -> Realm { Realm(frozen: self) }

    /// `body` run on queries at this version; damage it finds traps, naming the file.
    func query<T>(_ body: (QueryContext) throws -> T) -> T { version.query(body) }
}
