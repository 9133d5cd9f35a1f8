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
    // Exclusivity: the stored properties marked `@exclusivity(unchecked)` are read on every
    // property access of a managed object, where a runtime exclusivity check (a thread-local
    // access set, ~5–10 ns each, several per read) cost more than the read itself. Unchecked is
    // safe because a handle is confined to one isolation domain (it is not Sendable, and
    // actor-isolated handles are used only on their actor), so accesses never race, and none of
    // these properties is accessed while a modifying access to it is in progress (no inout or
    // mutating call on them re-enters code that touches them).

    /// The version this handle reads (also during a write, for what the write has not touched).
    @exclusivity(unchecked) private(set) var reader: ReadTransaction
    /// The open write transaction, if any (`openWrite`'s, kept apart for the reads on every
    /// property access).
    @exclusivity(unchecked) private(set) var writer: WriteTransaction?
    /// The open write transaction as the file's ``WritePipeline`` began it, if any.
    private var openWrite: WritePipeline.OpenWrite?
    /// The schema recorded in `reader`'s version. Taken with it from `SharedRealmFile.beginRead()`,
    /// never from a newer commit, so every table it names has its trees in that version.
    private var readerCatalog: SchemaCatalog
    /// The schema at the handle's version: `readerCatalog`, except in a write transaction, where
    /// it is the schema of the version the transaction builds on plus the tables it created.
    private(set) var catalog: SchemaCatalog {
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
    private var checkedTables: [ObjectIdentifier: Table] = [:]
    /// Tables known to belong to the current catalog (retained, so identities stay unique).
    private var currentTables: [ObjectIdentifier: Table] = [:]
    /// Property columns by the identity of the `@Persisted` storage key path (which the cache
    /// retains, so an identity is never reused for another key path while cached).
    private var columnCache: [ObjectIdentifier: (keyPath: AnyKeyPath, table: Table, column: Int)] = [:]
    /// Recent hits of `columnCache`, checked first: a managed property read is then two
    /// identity comparisons instead of hashing and retaining (see ``RecentColumns``).
    @exclusivity(unchecked) private var recentColumns = RecentColumns()
    /// For `add`: per class, its ``PersistedFieldLayout`` and the column of `table` each field
    /// stores into (nil for a property the table lacks), so that adding an object costs one
    /// lookup here rather than the layouts' process-wide, lock-guarded one as well. Retains the
    /// table, so an identity is never reused while cached.
    private var fieldColumnCache: [ObjectIdentifier: (table: Table, layout: PersistedFieldLayout, columns: [Int?])] = [:]
    private var catalogChanged = false
    /// When the last `prepareCommit` began: the start of the commit latency reported.
    private var commitStarted: ContinuousClock.Instant?

    /// Whether this handle's write transaction created or changed tables not yet recorded in it.
    var schemaChangedInWrite: Bool { catalogChanged }
    /// The first error of the current write transaction from an operation that cannot throw
    /// (`add`, `create`): the transaction cannot commit and `commitWrite`/`write` throw it.
    private var deferredError: Realm.Error?
    /// Observers (registration ids) this write transaction must not notify (`write(withoutNotifying:)`).
    var silencedObservers: Set<UInt64> = []
    /// Changes whenever what this handle sees may have changed (refresh, or any change inside a
    /// write transaction): caches of query results and linking objects hold while it stays.
    @exclusivity(unchecked) private(set) var stamp: UInt64 = 0
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
        guard newest.reader.transaction != reader.transaction else { return false }
        read(newest)
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

    // MARK: Transactions

    /// Whether a write transaction is open on this handle.
    public var isInWriteTransaction: Bool { writer != nil }

    /// Starts a write transaction, waiting (blocking the thread) for other writers of the file to
    /// finish, and advances the handle to the newest version. Traps if one is already open on
    /// this handle or the realm is read-only. In async code use ``asyncWrite(_:isolation:)``,
    /// which suspends instead of blocking.
    public func beginWrite() {
        do {
            try beginWriteOrThrow()
        } catch {
            fatalError("Could not begin a write transaction: \(error)")
        }
    }

    /// ``beginWrite()``, throwing what the engine reports (a database that refuses writes after
    /// a failed sync) instead of trapping: what ``write(_:)`` uses.
    private func beginWriteOrThrow() throws {
        precondition(!isFrozen, "Can't perform transactions on a frozen Realm")
        precondition(writer == nil, "The Realm is already in a write transaction")
        precondition(!configuration.readOnly, "Can't perform transactions on read-only Realms.")
        precondition(asyncWritesWaiting == 0,
                     "Cannot begin a synchronous write while an asyncWrite of this Realm waits for the write lock: it would deadlock. Use asyncWrite.")
        let write: WritePipeline.OpenWrite
        do {
            write = try file.writes.beginBlocking()
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
        try didBeginWrite(write)
    }

    /// Makes `write`, just begun by the file's ``WritePipeline``, this handle's transaction and
    /// advances the handle to the newest version beside it. Aborts it if that version cannot be
    /// read.
    func didBeginWrite(_ write: WritePipeline.OpenWrite) throws {
        do {
            read(try file.beginRead())
        } catch {
            file.writes.abort(write)
            throw Realm.Error.from(error, configuration: configuration)
        }
        openWrite = write
        writer = write.transaction
        catalog = write.schema
        catalogChanged = false
        deferredError = nil
        touch()
    }

    /// Commits the write transaction, returning once it is durable (blocking the thread while the
    /// disk syncs; other writers proceed meanwhile and may share the sync).
    ///
    /// - Throws: the first error of an operation in the transaction that could not throw itself
    ///   (such as a duplicate primary key in `add`), after rolling back; or a commit failure
    ///   (`outOfDiskSpace`, `fileAccess`). Either way nothing of the transaction is written.
    public func commitWrite() throws {
        let transaction = try prepareCommit()
        try finishCommit(transaction) { try file.writes.waitUntilDurableBlocking(transaction) }
    }

    /// Hands the open transaction to the file's ``WritePipeline`` to be recorded, prepared and
    /// released (so the next writer can build on it while this one's sync is pending), and ends
    /// it on this handle. Returns the commit's transaction, to wait for with ``finishCommit(_:_:)``.
    func prepareCommit() throws -> TransactionID {
        guard let write = openWrite else {
            throw Realm.Error(.wrongTransactionState, "Can't commit a non-existing write transaction")
        }
        if let error = deferredError {
            cancelWrite()
            throw error
        }
        commitStarted = ContinuousClock.now
        let changes = CommitChanges(rows: write.transaction.changeLog, silencedObservers: silencedObservers)
        let transaction: TransactionID
        do {
            transaction = try file.writes.commit(write, schema: catalogChanged ? catalog : nil, changes: changes)
        } catch {
            endWrite()
            advance()
            throw Realm.Error.from(error, configuration: configuration)
        }
        endWrite()
        return transaction
    }

    /// Waits (with `wait`, one of the pipeline's waits, which drop a failed commit's change log)
    /// for prepared commit `transaction` to be durable, then advances the handle to the newest
    /// version.
    func finishCommit(_ transaction: TransactionID, _ wait: () throws -> Void) throws {
        do {
            try wait()
        } catch {
            advance()
            throw Realm.Error.from(error, configuration: configuration)
        }
        if let commitStarted { report(.committed(version: transaction, latency: ContinuousClock.now - commitStarted)) }
        advance()
    }

    /// Discards every change of the write transaction. Objects it added become invalid.
    ///
    /// As in Realm, the data of objects deleted in the transaction is restored, but object
    /// instances read before the cancel that were invalidated by the deletion stay invalidated;
    /// read the object again to use it.
    public func cancelWrite() {
        guard let write = openWrite else { return }
        let deleted = deletedInWrite
        file.writes.abort(write)
        endWrite()
        advance()
        for object in deleted { revokedObjects[object] = stamp }
    }

    /// An object by table tree and key, for ``revokedObjects``.
    struct ObjectIdentity: Hashable {
        let tree: TreeID
        let key: UInt64
    }

    /// Objects deleted in the open write transaction (``cancelWrite()`` revokes their instances).
    var deletedInWrite: [ObjectIdentity] = []
    /// Objects deleted in a cancelled write transaction, with the ``stamp`` at the cancel: an
    /// instance read before that stays invalidated (see `ObjectBase.location()`). Empty unless a
    /// write that deleted objects was cancelled; consulted only when an object is looked up again.
    private(set) var revokedObjects: [ObjectIdentity: UInt64] = [:]

    /// Forgets the write transaction, which the pipeline has ended (committed or not; the
    /// write lock is released). The handle still reads the version the transaction began at
    /// until ``advance()``.
    private func endWrite() {
        openWrite = nil
        writer = nil
        deletedInWrite = []
        deferredError = nil
        silencedObservers = []
        catalogChanged = false
        catalog = readerCatalog
        touch()
    }

    /// Moves the handle to the newest durable version.
    func advance() {
        if let newest = try? file.beginRead() { read(newest) }
        touch()
    }

    /// Reads `version` from now on: its transaction and its schema, always together.
    private func read(_ version: (reader: ReadTransaction, schema: SchemaCatalog)) {
        reader = version.reader
        readerCatalog = version.schema
        catalog = version.schema
    }

    /// Runs `block` in a write transaction and commits it; if `block` throws, everything it did
    /// is rolled back and the error rethrown. Blocks the thread while waiting for other writers
    /// and for the disk; in async code use ``asyncWrite(_:isolation:)``.
    ///
    /// - Throws: ``Realm/Error/Code/wrongTransactionState`` if a write transaction is already
    ///   open on this handle; whatever `block` throws; commit errors (see ``commitWrite()``).
    ///
    /// Inside an actor, a block that reads the actor's own properties is actor-isolated, and
    /// Swift 6.3 reports passing it here as "sending the realm" (a known limitation of the
    /// compiler's region analysis); copy what the block needs into local constants first, or use
    /// `asyncWrite`.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        guard writer == nil else {
            throw Realm.Error(.wrongTransactionState, "Cannot call write() when already in a write transaction")
        }
        try beginWriteOrThrow()
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        if writer != nil { try commitWrite() }
        return result
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

    /// The write transaction, or a trap with Realm's message for writing outside one.
    func requireWrite() -> WriteTransaction {
        guard let writer else {
            if isFrozen { fatalError("Attempting to modify a frozen object - call thaw on the Object instance first.") }
            fatalError("Attempting to modify object outside of a write transaction - call beginWrite first.")
        }
        return writer
    }

    /// Records the first failure of a non-throwing write operation.
    func recordDeferredError(_ error: any Swift.Error) {
        if deferredError == nil {
            deferredError = (Realm.Error.from(error, configuration: configuration) as? Realm.Error)
                ?? Realm.Error(.fail, "\(error)")
        }
    }

    // MARK: Tables

    /// The table of a class at this handle's version, if it exists.
    func table(for type: ObjectBase.Type) -> Table? {
        catalog.tables[ObjectSchemaDiscovery.className(of: type)]
    }

    /// The table of a class, created in the current write transaction if the class is new, with
    /// the tables of the classes it links to (directly or not).
    func tableCreatingIfNeeded(for type: ObjectBase.Type) throws -> Table {
        if let checked = checkedTables[ObjectIdentifier(type)] { return checked }
        for linked in ObjectSchemaDiscovery.linkedClosure(of: type) {
            let schema = ObjectSchemaDiscovery.schema(for: linked)
            try schema.validateLinkingObjects { name in
                ObjectSchemaDiscovery.registeredType(named: name).map(ObjectSchemaDiscovery.schema(for:))
            }
            if let table = catalog.tables[schema.className] {
                try SchemaMigration.checkMatches(table, schema, configuration: configuration)
                if table.schema.linkingObjects != schema.linkingObjects, writer != nil {
                    // A file written before linking objects were recorded: record them now.
                    var next = catalog.stored
                    if let index = next.tables.firstIndex(where: { $0.schema.className == schema.className }) {
                        next.tables[index].schema.linkingObjects = schema.linkingObjects
                    }
                    replaceCatalog(next)
                }
                continue
            }
            let stored = try requireWrite().createTable(schema)
            var next = catalog.stored
            next.tables.append(stored)
            catalog = SchemaCatalog(next)
            catalogChanged = true
        }
        let table = catalog.tables[type.className()]!
        checkedTables[ObjectIdentifier(type)] = table
        return table
    }

    func replaceCatalog(_ stored: StoredSchema) {
        catalog = SchemaCatalog(stored)
        catalogChanged = true
    }

    /// The column of the property at a `@Persisted` storage key path if already resolved for
    /// `table`. Inlined into `ObjectBase.knownColumn` (every managed property access), where the
    /// common case is then two comparisons and no call or retain.
    @inline(__always)
    func knownColumn(for keyPath: AnyKeyPath, in table: Table) -> Int? {
        let id = ObjectIdentifier(keyPath), tableID = ObjectIdentifier(table)
        if let column = recentColumns.column(id, tableID) { return column }
        return knownColumnSlowly(for: keyPath, in: table)
    }

    /// `knownColumn` past `recentColumns`: the dictionary, whose hits are then remembered.
    @inline(never)
    private func knownColumnSlowly(for keyPath: AnyKeyPath, in table: Table) -> Int? {
        let id = ObjectIdentifier(keyPath), tableID = ObjectIdentifier(table)
        guard let entry = columnCache[id], entry.keyPath === keyPath, entry.table === table else { return nil }
        recentColumns.remember(id, tableID, entry.column)
        return entry.column
    }

    /// `type`'s field layout and the column of `table` each field stores into (nil where the
    /// table lacks the property); nil if the runtime cannot enumerate the class's fields. One
    /// lookup after the first object of the class.
    func fieldColumns(of type: ObjectBase.Type, in table: Table) -> (layout: PersistedFieldLayout, columns: [Int?])? {
        let id = ObjectIdentifier(type)
        if let entry = fieldColumnCache[id], entry.table === table { return (entry.layout, entry.columns) }
        guard let layout = PersistedFieldLayout.of(type) else { return nil }
        let columns = layout.fields.map { table.columns[$0.name] }
        fieldColumnCache[id] = (table, layout, columns)
        return (layout, columns)
    }

    /// The column of the property at a `@Persisted` storage key path, for a table; `resolve`
    /// finds it the first time.
    func column(for keyPath: AnyKeyPath, in table: Table, resolve: () -> Int) -> Int {
        let id = ObjectIdentifier(keyPath)
        if let entry = columnCache[id], entry.keyPath === keyPath, entry.table === table { return entry.column }
        let column = resolve()
        columnCache[id] = (keyPath, table, column)
        recentColumns.remember(id, ObjectIdentifier(table), column)
        return column
    }

    /// Whether `table` belongs to the current schema (it may come from a rolled-back write).
    /// An identity check in the common case; a name lookup only after the schema changed.
    func isCurrent(_ table: Table) -> Bool {
        if let known = currentTables[ObjectIdentifier(table)], known === table { return true }
        guard catalog.tables[table.name]?.tree == table.tree else { return false }
        currentTables[ObjectIdentifier(table)] = table
        return true
    }

    // MARK: Reading rows

    /// The root of a table's tree at this handle's version.
    func root(of tree: TreeID) -> TreeRoot {
        do {
            if let writer { return try writer.root(of: tree) }
            return try reader.root(of: tree)
        } catch {
            fileIsDamaged(error, in: tree)
        }
    }

    /// Where an object is now, or nil if it does not exist (deleted, or its table was created
    /// by a transaction that was rolled back).
    func locate(_ table: Table, _ key: UInt64) -> (ClusterLeaf, Int)? {
        guard isCurrent(table) else { return nil }
        do {
            if let writer { return try writer.row(in: writer.root(of: table.tree), key: key) }
            return try reader.row(in: reader.root(of: table.tree), key: key)
        } catch {
            fileIsDamaged(error, in: table.tree)
        }
    }

    func withBytes<R>(_ stored: ClusterLeaf.StoredBytes, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        do {
            if let writer { return body(try writer.bytes(of: stored)) }
            return body(try reader.bytes(of: stored))
        } catch {
            fileIsDamaged(error)
        }
    }

    /// A property's stored value (for dynamic access; copies).
    func value(of object: ObjectBase, column: Int) -> ColumnValue {
        let (leaf, row) = object.managedLocation()
        let spec = object.managedTable!.layout[column]
        do {
            if let writer { return try writer.value(leaf, row: row, column: column, spec: spec) }
            return try reader.value(leaf, row: row, column: column, spec: spec)
        } catch {
            fileIsDamaged(error, in: object.managedTable!.tree)
        }
    }

    /// Writes one property of a managed object (adding the unmanaged objects a link or
    /// collection value refers to).
    ///
    /// A value Realm rejects as bad data (over 16 MB, a linked object with a duplicate primary
    /// key) leaves the property unchanged and fails the transaction's commit, like `add`.
    func set(_ value: _RealmValue, column: Int, of object: ObjectBase) {
        _ = requireWrite()
        let table = object.managedTable!
        if column == table.primaryKeyColumn {
            fatalError("Primary key can't be changed after an object is inserted.")
        }
        if case .stored(let scalar) = value.storage, table.storesOnlyInRow[column] {
            return setStored(scalar, column: column, of: object)
        }
        guard let property = table.property(column) else { fatalError("Property is not in the realm's schema") }
        if case .stored(let scalar) = value.storage, !property.canLink, property.collection == nil {
            return setStored(scalar, column: column, of: object)
        }
        do {
            setStored(try storedValue(value, for: property), column: column, of: object)
        } catch {
            recordDeferredError(error)
        }
    }

    /// Writes a property's stored value.
    func setStored(_ value: ColumnValue, column: Int, of object: ObjectBase) {
        let write = requireWrite()
        guard let position = object.location() else { fatalError("Object has been deleted or invalidated.") }
        let moves = write.positionChanges
        do {
            try write.setValue(value, column: column, of: object.managedKey, in: object.managedTable!, catalog: catalog,
                               at: position)
        } catch let error as StorageError where error.code == .invalidInput {
            recordDeferredError(error)
        } catch {
            fileIsDamaged(error)
        }
        if write.positionChanges == moves {
            stamp &+= 1  // written in place: every position found before still holds
        } else {
            touch()
        }
    }

    /// A property of a managed object as dynamic access returns it.
    func swiftValue(of object: ObjectBase, column: Int, property: PropertyInfo) -> Any? {
        let stored = value(of: object, column: column)
        guard let collection = property.collection else {
            let location = CollectionLocation(owner: object, column: column, nested: .root)
            return ObjectValues.swiftValue(realmValue(stored, element: property, type: nil, location: location), property)
        }
        let elements = CollectionLocation(owner: object, column: column).allStored()
        let element = property.element
        let content: _RealmValue = collection == .map
            ? _RealmValue(.entries(PackedCollection.entries(elements).map { ($0.key, realmValue($0.value, element: element, type: nil)) }))
            : _RealmValue(.elements(elements.map { realmValue($0, element: element, type: nil) }))
        return ObjectValues.swiftValue(content, property)
    }

    // MARK: Files

    /// Whether the realm file of `config` exists. Always `false` for in-memory realms.
    public static func fileExists(for config: Configuration) -> Bool {
        guard let url = config.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Deletes the realm file of `config` and its auxiliary files: the write-ahead log
    /// (`<file>.log`), the lock file (`<file>.lock`) and any temporary file a crash left behind
    /// (`.creating`, `.seeding`, `.copying`).
    ///
    /// - Returns: `true` if the realm file existed and was deleted, `false` if there was none.
    /// - Throws: ``Realm/Error`` with ``Realm/Error/Code/alreadyOpen`` while a handle — in this
    ///   process or another — has the file open (deleting it would leave that handle writing to a
    ///   file nobody can open again); ``Realm/Error/Code/filePermissionDenied`` or
    ///   ``Realm/Error/Code/fileAccess`` when a file exists but cannot be removed.
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        guard let url = config.fileURL else { return false }
        if SharedRealmFile.isOpen(path: url.standardizedFileURL.path) {
            throw Realm.Error(.alreadyOpen, "Cannot delete files of an open Realm: '\(url.path)' is still in use.", fileURL: url)
        }
        var deleted = false
        for file in [url] + AuxiliaryFile.allCases.map({ URL(fileURLWithPath: url.path + $0.suffix) }) {
            do {
                try FileManager.default.removeItem(at: file)
                if file == url { deleted = true }
            } catch CocoaError.fileNoSuchFile {
                continue
            } catch CocoaError.fileWriteNoPermission {
                throw Realm.Error(.filePermissionDenied, "Permission denied deleting realm file", fileURL: file)
            } catch {
                throw Realm.Error(.fileAccess, "Could not delete realm file: \(error.localizedDescription)", fileURL: file)
            }
        }
        return deleted
    }
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
