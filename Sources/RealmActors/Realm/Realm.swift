public import Foundation
internal import RealmRuntime

/// A realm: one embedded object database file (or in-memory store), seen through one handle.
///
/// This is the entry point of the API, named and shaped after Realm Swift's `Realm`:
///
/// ```swift
/// let realm = try Realm()
/// try realm.write {
///     realm.add(Dog(value: ["name": "Rex", "age": 1]))
/// }
/// let puppies = realm.objects(Dog.self).where { $0.age < 2 }
/// ```
///
/// A handle reads one version of the file, advancing when it writes or ``refresh()``es. It is not
/// `Sendable`: the compiler keeps it in the actor or thread that opened it.
public final class Realm {
    /// The configuration this realm was opened with.
    public let configuration: Configuration

    let file: SharedRealmFile
    // The handle's state below was private while this type was one file; it is internal only so
    // that its `Realm+…` files (transactions, tables, rows) can reach it. Nothing else in the
    // module sets it: `reader`, `readerCatalog` and `catalog` change together (`read(_:)`, the
    // transaction's begin and end), the column caches only as `catalog`'s observer resets them.
    // Exclusivity: the stored properties marked `@exclusivity(unchecked)` are read on every
    // property access of a managed object, where a runtime exclusivity check (a thread-local
    // access set, ~5–10 ns each, several per read) cost more than the read itself. Unchecked is
    // safe because a handle is confined to one isolation domain (it is not Sendable, and
    // actor-isolated handles are used only on their actor), so accesses never race, and none of
    // these properties is accessed while a modifying access to it is in progress (no inout or
    // mutating call on them re-enters code that touches them).

    /// The version this handle reads (also during a write, for what the write has not touched).
    @exclusivity(unchecked) var reader: ReadTransaction
    /// The open write transaction, if any (`openWrite`'s, kept apart for the reads on every
    /// property access).
    @exclusivity(unchecked) var writer: WriteTransaction?
    /// The open write transaction as the file's ``WritePipeline`` began it, if any.
    var openWrite: WritePipeline.OpenWrite?
    /// The schema recorded in `reader`'s version. Taken with it from `SharedRealmFile.beginRead()`,
    /// never from a newer commit, so every table it names has its trees in that version.
    var readerCatalog: SchemaCatalog
    /// The schema at the handle's version: `readerCatalog`, except in a write transaction, where
    /// it is the schema of the version the transaction builds on plus the tables it created.
    var catalog: SchemaCatalog {
        didSet {
            if catalog !== oldValue {
                checkedTables = [:]
                columnCache = [:]
                fieldColumnCache = [:]
                recentColumns = RecentColumns()
                currentTables = [:]
            }
        }
    }
    /// Classes already checked against their table under the current catalog.
    var checkedTables: [ObjectIdentifier: Table] = [:]
    /// Tables known to belong to the current catalog (retained, so identities stay unique).
    var currentTables: [ObjectIdentifier: Table] = [:]
    /// Property columns by the identity of the `@Persisted` storage key path (which the cache
    /// retains, so an identity is never reused for another key path while cached).
    var columnCache: [ObjectIdentifier: (keyPath: AnyKeyPath, table: Table, column: Int)] = [:]
    /// Recent hits of `columnCache`, checked first: a managed property read is then two
    /// identity comparisons instead of hashing and retaining (see ``RecentColumns``).
    @exclusivity(unchecked) var recentColumns = RecentColumns()
    /// For `add`: per class, its ``PersistedFieldLayout`` and the column of `table` each field
    /// stores into (nil for a property the table lacks), so that adding an object costs one
    /// lookup here rather than the layouts' process-wide, lock-guarded one as well. Retains the
    /// table, so an identity is never reused while cached.
    var fieldColumnCache: [ObjectIdentifier: (table: Table, layout: PersistedFieldLayout, columns: [Int?])] = [:]
    var catalogChanged = false
    /// When the last `prepareCommit` began: the start of the commit latency reported.
    var commitStarted: ContinuousClock.Instant?

    /// Whether this handle's write transaction created or changed tables not yet recorded in it.
    var schemaChangedInWrite: Bool { catalogChanged }
    /// The first error of the current write transaction from an operation that cannot throw
    /// (`add`, `create`): the transaction cannot commit and `commitWrite`/`write` throw it.
    var deferredError: Realm.Error?
    /// Objects deleted in the open write transaction (``cancelWrite()`` revokes their instances).
    var deletedInWrite: [ObjectIdentity] = []
    /// Objects deleted in a cancelled write transaction, with the ``stamp`` at the cancel: an
    /// instance read before that stays invalidated (see `ObjectBase.location()`). Empty unless a
    /// write that deleted objects was cancelled; consulted only when an object is looked up again.
    var revokedObjects: [ObjectIdentity: UInt64] = [:]

    /// Observers (registration ids) this write transaction must not notify (`write(withoutNotifying:)`).
    var silencedObservers: Set<UInt64> = []
    /// Changes whenever what this handle sees may have changed (refresh, or any change inside a
    /// write transaction): caches of query results and linking objects hold while it stays.
    @exclusivity(unchecked) var stamp: UInt64 = 0
    /// Changes whenever a row may have moved: with ``stamp``, except for a value written in
    /// place (`setStored`), which moves nothing. The objects' cached positions (leaf and row)
    /// hold while it stays, so a loop that writes one property of each object it visits does
    /// not look each one up again.
    @exclusivity(unchecked) private(set) var positionStamp: UInt64 = 0
    /// The actor the handle is isolated to (``open(configuration:isolation:)``), if any; see
    /// ``bind(to:)`` for a handle opened before its actor was initialised.
    private(set) var actor: (any Actor)?
    /// The version a frozen handle reads; nil for live handles.
    let frozenSnapshot: FrozenSnapshot?
    /// The snapshot of the current version last handed out by ``freeze()``, shared by every
    /// freeze of that version while any of them lives (weak: the cache never pins a version).
    weak var lastSnapshot: FrozenSnapshot?

    /// Whether this is a frozen handle (from a frozen snapshot): it never changes and cannot write.
    public var isFrozen: Bool { frozenSnapshot != nil }
    /// The handle's registration for refreshing after other handles commit (actor handles).
    private var autorefreshToken: UInt64?
    /// `asyncWrite`s of this handle waiting for the write lock (a synchronous write then would
    /// deadlock the actor, so it traps instead).
    var asyncWritesWaiting = 0
    /// The schema this handle's classes were checked against when it opened (see
    /// ``SchemaMigration``); nil while it opens. Once set, the handle follows only additive schema
    /// changes made by other handles or processes (``read(_:)``).
    var openedCatalog: SchemaCatalog?
    /// The newest schema the handle could not follow (another handle or process removed or
    /// changed what it reads) with its changes in Realm's words: the handle stays at the version
    /// before it, and its writes throw.
    var unfollowableSchema: (catalog: SchemaCatalog, changes: [String])?
    /// Whether a mixed link is read without looking its object up (inside
    /// `withMixedLinksUnchecked(_:)`: reading a damaged file's readable objects).
    var mixedLinksUnchecked = false

    /// Whether an actor-isolated handle advances to each new version by itself, on its actor,
    /// after other handles commit (true by default, as in Realm). Thread-confined handles
    /// advance only with ``refresh()``.
    public var autorefresh = true

    /// Marks every cached result and position stale.
    func touch() {
        stamp &+= 1
        positionStamp &+= 1
    }

    /// Opens the realm described by `configuration` on the current thread.
    ///
    /// The handle reads the newest version and is confined to this thread (use it from one actor
    /// or thread only; in async code prefer ``open(configuration:isolation:)``). With
    /// `objectTypes`, the schema is checked now: classes missing from the file are added, and a
    /// class that differs from the file at the same `schemaVersion` throws
    /// ``Realm/Error/Code/schemaMismatch`` listing the differences; a higher `schemaVersion`
    /// migrates the file, running the configuration's ``Realm/Configuration/migrationBlock``
    /// (see <doc:Migrations>).
    ///
    /// - Throws: ``Realm/Error`` (`fileAccess`, `filePermissionDenied`, `invalidDatabase`,
    ///   `incompatibleLockFile`, `schemaMismatch`, …).
    public convenience init(configuration: Configuration = .defaultConfiguration) throws {
        let start = ContinuousClock.now
        try self.init(configuration: configuration, file: Realm.openFile(configuration), actor: nil, openingSince: start)
    }

    /// Opens the realm file at `fileURL`, with the default configuration's other settings.
    ///
    /// - Throws: ``Realm/Error`` as ``init(configuration:)``.
    public convenience init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    /// A handle on an open file, bound to `actor` if given (then it refreshes itself there).
    /// `openingSince`: when opening began (the ``Event/opened(duration:)`` reported); nil for a
    /// handle made only to open and migrate the file, which reports nothing.
    init(configuration: Configuration, file: SharedRealmFile, actor: (any Actor)?,
         openingSince: ContinuousClock.Instant? = ContinuousClock.now) throws {
        self.configuration = configuration
        self.file = file
        self.actor = actor
        frozenSnapshot = nil
        let read: (reader: ReadTransaction, schema: SchemaCatalog)
        do {
            read = try file.beginRead()
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
        reader = read.reader
        readerCatalog = read.schema
        catalog = read.schema
        try SchemaMigration.prepare(self)
        openedCatalog = catalog
        if let actor {
            autorefreshToken = file.versionObservers.add(AutorefreshObserver(realm: self, actor: actor))
        }
        if let openingSince { report(.opened(duration: ContinuousClock.now - openingSince)) }
    }

    /// Binds a handle that no actor owns yet to `isolation`, the actor using it now, so that it
    /// advances there by itself (``autorefresh``) from then on.
    ///
    /// An actor's `init` is not isolated to the actor until all its stored properties are set, so
    /// `self.realm = try await Realm.open()` there opens a handle for no actor. Once the actor
    /// owns it, its first ``asyncWrite(_:isolation:)``, ``asyncRefresh(isolation:)`` or change
    /// observation on the actor binds it. (Realm's pattern binds it at once:
    /// `var realm: Realm!` and `realm = try await Realm(configuration: configuration, actor: self)`.)
    ///
    /// A handle already bound to an actor must be used on that actor: it refreshes itself there
    /// between the caller's jobs, so a caller running elsewhere — a nonisolated async function,
    /// or a closure that does not capture the actor and so runs off it — would race with the
    /// refresh. That traps here, as Realm's "Realm accessed from incorrect thread" exception does.
    ///
    /// - Precondition: the handle is unbound, or bound to `isolation`.
    func bind(to isolation: (any Actor)?, _ function: StaticString = #function) {
        guard !isFrozen else { return }
        if let actor {
            guard isolation !== actor else { return }
            preconditionFailure("""
                Realm accessed from incorrect actor: \(function) was called \(isolation.map { "on \(type(of: $0))" } ?? "from a nonisolated context") \
                on a realm isolated to \(type(of: actor)). An actor-isolated realm is used only on its actor (which \
                refreshes it between jobs); a closure that does not capture the actor, or a nonisolated async function, \
                runs off it. Use the realm in the actor's own methods, or open one where it is used.
                """)
        }
        guard let isolation else { return }
        actor = isolation
        autorefreshToken = file.versionObservers.add(AutorefreshObserver(realm: self, actor: isolation))
    }

    /// A frozen handle: reads `snapshot`'s version forever and cannot write. Cheap (nothing is
    /// opened or pinned); frozen objects make one per read.
    init(frozen snapshot: FrozenSnapshot) {
        configuration = snapshot.configuration
        file = snapshot.file
        actor = nil
        reader = snapshot.reader
        readerCatalog = snapshot.catalog
        catalog = snapshot.catalog
        frozenSnapshot = snapshot
    }

    deinit {
        if let autorefreshToken { file.versionObservers.remove(autorefreshToken) }
    }

    /// The shared state of the configuration's file (or in-memory store), opening it if needed.
    static func openFile(_ configuration: Configuration) throws -> SharedRealmFile {
        if let key = configuration.encryptionKey, key.count != 64 {
            throw Realm.Error(.invalidInput, "Encryption key must be exactly 64 bytes, got \(key.count)", fileURL: configuration.fileURL)
        }
        do {
            let identity: SharedRealmFile.Identity
            switch configuration.location {
            case .file(let url):
                if !configuration.readOnly {
                    try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                }
                identity = .file(url.standardizedFileURL.path)
                if let seed = configuration.seedFilePath {
                    try Database.installSeed(from: seed.standardizedFileURL.path, to: url.standardizedFileURL.path)
                }
            case .inMemory(let identifier):
                identity = .inMemory(identifier)
            }
            return try SharedRealmFile.open(identity, readOnly: configuration.readOnly,
                                            encryptionKey: configuration.encryptionKey.map { [UInt8]($0) },
                                            maximumActiveVersions: configuration.maximumNumberOfActiveVersions.map { Int(clamping: $0) },
                                            shouldCompact: configuration.shouldCompactOnLaunch,
                                            instrumentation: configuration.instrumentation?.fileInstrumentation(configuration))
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    // MARK: Versions

    /// Advances to the newest version. Returns whether anything changed.
    @discardableResult
    public func refresh() -> Bool {
        guard !isFrozen, writer == nil, let newest = try? file.beginRead() else { return false }
        guard newest.reader.transaction != reader.transaction, read(newest) else { return false }
        touch()
        return true
    }

    /// Stops reading the current version: every object and collection read so far becomes
    /// invalidated, and the handle no longer pins the version (so its pages can be reused).
    /// The next read starts at the newest version. An open write transaction is cancelled.
    public func invalidate() {
        guard !isFrozen else { return }
        if writer != nil { cancelWrite() }
        invalidations &+= 1
        if let newest = try? file.beginRead() { read(newest) }
        touch()
    }

    /// Counts ``invalidate()`` calls; objects read before the last one are invalid.
    @exclusivity(unchecked) private(set) var invalidations: UInt64 = 0

    /// Whether the realm holds no objects.
    public var isEmpty: Bool {
        catalog.tables.values.allSatisfy { table in
            ((try? writer?.count(of: table.tree)) ?? (try? reader.count(of: table.tree)) ?? 0) == 0
        }
    }

    /// Traps for damage found by a read that cannot throw, naming the file and the problem
    /// (``SharedRealmFile/fileIsDamaged(_:)-(any Error)``).
    func fileIsDamaged(_ error: any Swift.Error) -> Never { file.fileIsDamaged(error) }

    func fileIsDamaged(_ problem: String) -> Never { file.fileIsDamaged(problem) }

    /// ``fileIsDamaged(_:)-(any Swift.Error)`` met in the tree `tree`, which the message names
    /// ("bad tree page 17 (table 'Dog')").
    func fileIsDamaged(_ error: any Swift.Error, in tree: TreeID) -> Never {
        file.fileIsDamaged(Self.problem(error) + " (\(treeNames[tree] ?? "tree \(tree)"))")
    }

    /// ``fileIsDamaged(_:)-(any Swift.Error)`` met while reading the objects of `className`
    /// (a query may also read the classes it links to).
    func fileIsDamaged(_ error: any Swift.Error, reading className: String) -> Never {
        file.fileIsDamaged(Self.problem(error) + " (reading class '\(className)')")
    }

    private static func problem(_ error: any Swift.Error) -> String { (error as? StorageError)?.message ?? "\(error)" }
}

extension Realm: Equatable {
    /// Whether two handles are the same realm as Realm Swift compares them: the same handle, or
    /// handles of the same file in the same isolation (the same actor, or both confined to a
    /// thread) at the same version, or frozen at the same version.
    public static func == (lhs: Realm, rhs: Realm) -> Bool {
        if lhs === rhs { return true }
        guard lhs.file === rhs.file, lhs.isFrozen == rhs.isFrozen,
              lhs.reader.transaction == rhs.reader.transaction else { return false }
        if lhs.isFrozen { return true }
        return lhs.actor.map(ObjectIdentifier.init) == rhs.actor.map(ObjectIdentifier.init)
    }
}