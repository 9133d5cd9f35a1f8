public import Foundation
internal import RealmRuntime

extension Realm {
    /// Where a realm lives and how it is opened, as in Realm Swift's `Realm.Configuration`.
    ///
    /// A configuration is a plain `Sendable` value: build one, pass it to any actor, open a realm
    /// with it there. The static ``defaultConfiguration`` is what `Realm()` uses.
    ///
    /// On Linux the default file is `$XDG_DATA_HOME/<executable>/default.realm`, or
    /// `~/.local/share/<executable>/default.realm` when `XDG_DATA_HOME` is unset. On Apple
    /// platforms it is `default.realm` in the user's Documents directory, as in Realm Swift.
    public struct Configuration: Sendable, Equatable {
        /// The realm file's location. Setting it clears ``inMemoryIdentifier``.
        public var fileURL: URL? {
            get { storage.fileURL }
            set { storage = newValue.map(Location.file) ?? .file(Self.defaultFileURL) }
        }

        /// The name of an in-memory realm. Realms with the same identifier share their data
        /// within the process; the data is dropped when the last handle closes.
        /// Setting it clears ``fileURL``.
        public var inMemoryIdentifier: String? {
            get { storage.inMemoryIdentifier }
            set { storage = newValue.map(Location.inMemory) ?? .file(Self.defaultFileURL) }
        }

        /// The 64-byte key of an encrypted realm file: Realm Swift's `encryptionKey`.
        ///
        /// A file created with a key is encrypted from its first page: every page is encrypted
        /// with AES-256 and authenticated with HMAC-SHA-256, with keys derived from this one and
        /// from a random salt of the file (see the "Files" article). Use 64 random bytes, kept
        /// in the platform's keychain or secret store; a password needs a key-derivation function
        /// first. Opening needs the same key: a wrong key, no key for an encrypted file, or a key
        /// for an unencrypted one throws ``Realm/Error/Code/invalidDatabase`` saying which; a key
        /// of another length than 64 bytes throws ``Realm/Error/Code/invalidInput``. To encrypt,
        /// decrypt or re-key an existing realm, write a copy with
        /// ``Realm/writeCopy(toFile:encryptionKey:)``. In-memory realms accept and ignore a key.
        public var encryptionKey: Data?

        /// Opens the file without ever writing to it; write transactions fail. Commits that a
        /// crash left only in the write-ahead log (`<file>.log`) are applied in memory.
        public var readOnly: Bool = false

        /// A realm file to start from: when the realm is opened and no file exists at `fileURL`,
        /// a copy of this file is installed there first (a bundled, pre-populated realm). Later
        /// opens never overwrite the file; a missing seed file is an error (`fileNotFound`).
        ///
        /// ```swift
        /// var configuration = Realm.Configuration()
        /// configuration.seedFilePath = Bundle.main.url(forResource: "seed", withExtension: "realm")
        /// let realm = try await Realm.open(configuration: configuration)
        /// ```
        public var seedFilePath: URL?

        /// Decides whether to compact the file when it is first opened in the process: called
        /// with the file's size and the bytes its data uses (both in bytes); returning true
        /// rewrites the file compactly before the open (all objects kept; a crash meanwhile
        /// leaves the old file or the new one). Not called for in-memory or read-only realms, nor
        /// while another handle of this process or another process has the file open: compaction
        /// is then skipped, as in Realm.
        ///
        /// ```swift
        /// configuration.shouldCompactOnLaunch = { totalBytes, usedBytes in
        ///     totalBytes > 100 * 1024 * 1024 && Double(usedBytes) / Double(totalBytes) < 0.5
        /// }
        /// ```
        public var shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? {
            get { shouldCompactOnLaunchBox?.value }
            set { shouldCompactOnLaunchBox = newValue.map(CallbackBox.init) }
        }

        private var shouldCompactOnLaunchBox: CallbackBox<@Sendable (Int, Int) -> Bool>?

        /// The current version of the schema (default 0). It must not decrease between opens.
        public var schemaVersion: UInt64 = 0

        /// Runs when the realm is opened at a higher ``schemaVersion`` than its file's, with the
        /// file's old version, to migrate the data (see <doc:Migrations>). Without one, a higher
        /// version still applies the schema changes: added properties take their type's zero
        /// value or nil, removed ones are dropped, and a changed type starts from the zero value.
        public var migrationBlock: MigrationBlock? {
            get { migrationBlockBox?.value }
            set { migrationBlockBox = newValue.map(CallbackBox.init) }
        }

        private var migrationBlockBox: CallbackBox<MigrationBlock>?

        /// A callback held by a `Configuration`.
        final class CallbackBox<Value: Sendable>: Sendable {
            let value: Value
            init(_ value: Value) { self.value = value }
        }

        /// Whether opening the realm empties it instead of migrating it, when a migration would be
        /// needed (a higher ``schemaVersion`` on a file with a schema, or classes that differ from
        /// the file's at the same version). For development only: the data is lost. A file that
        /// needs no migration is never emptied; a lower ``schemaVersion`` is still an error.
        public var deleteRealmIfMigrationNeeded: Bool = false

        /// The classes this realm stores. `nil` (the default) registers each class the first time
        /// it is used, together with the classes it links to; listing them checks the whole schema
        /// when the realm opens.
        public var objectTypes: [ObjectBase.Type]? {
            get { objectTypesStorage?.types }
            set { objectTypesStorage = newValue.map(ObjectTypes.init) }
        }

        private var objectTypesStorage: ObjectTypes?

        /// A list of classes compared by identity, so that the configuration stays `Equatable`.
        struct ObjectTypes: Sendable, Equatable {
            let types: [ObjectBase.Type]
            static func == (lhs: Self, rhs: Self) -> Bool {
                lhs.types.map(ObjectIdentifier.init) == rhs.types.map(ObjectIdentifier.init)
            }
        }

        /// The most versions of the file that may be live at once: each open handle pins the
        /// version it reads, each frozen snapshot its own, and a pinned version's pages cannot be
        /// reused, so unbounded pinning grows the file. A commit that would make one more live
        /// version throws ``Realm/Error/Code/maximumActiveVersionsExceeded`` (and writes
        /// nothing). `nil` (the default) means no limit. The first handle to open the file sets it.
        public var maximumNumberOfActiveVersions: UInt?

        /// Where the realm reports events and measurements for logs and metrics: opening,
        /// migrations, commit latency, group-commit batches, file statistics, snapshots held too
        /// long, notifier lag, compaction (see ``Realm/Instrumentation``). `nil` (the default)
        /// reports nothing. The file's own events go to the first handle's instrumentation. Not
        /// compared by `==`.
        public var instrumentation: Realm.Instrumentation?

        private var storage: Location

        /// Where the data lives: one of a file or a named in-memory realm, never both.
        enum Location: Sendable, Equatable {
            case file(URL)
            case inMemory(String)

            var fileURL: URL? { if case .file(let url) = self { url } else { nil } }
            var inMemoryIdentifier: String? { if case .inMemory(let id) = self { id } else { nil } }
        }

        /// Creates a configuration for a file (default: ``defaultFileURL``) or an in-memory realm.
        public init(
            fileURL: URL? = nil,
            inMemoryIdentifier: String? = nil,
            encryptionKey: Data? = nil,
            readOnly: Bool = false,
            schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil,
            deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil,
            maximumNumberOfActiveVersions: UInt? = nil,
            objectTypes: [ObjectBase.Type]? = nil,
            seedFilePath: URL? = nil
        ) {
            if let inMemoryIdentifier {
                storage = .inMemory(inMemoryIdentifier)
            } else {
                storage = .file(fileURL ?? Self.defaultFileURL)
            }
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
        }

        var location: Location { storage }

        /// Whether two configurations name the same realm opened the same way: the same file or
        /// in-memory identifier, encryption key, read-only or not, and schema version — what Realm
        /// Swift compares.
        /// Callbacks, `objectTypes` and the other options are not compared.
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.storage == rhs.storage && lhs.encryptionKey == rhs.encryptionKey && lhs.readOnly == rhs.readOnly
                && lhs.schemaVersion == rhs.schemaVersion
        }

        /// The configuration `Realm()` uses. Change it once at startup, before opening realms.
        public static var defaultConfiguration: Configuration {
            get { defaultConfigurationBox.withLock { $0 } }
            set { defaultConfigurationBox.withLock { $0 = newValue } }
        }

        /// Guarded by its own lock: any thread may read or replace the default.
        private static let defaultConfigurationBox = Lock(Configuration())

        /// The default realm file: `$XDG_DATA_HOME/<executable>/default.realm` on Linux
        /// (falling back to `~/.local/share`), `Documents/default.realm` on Apple platforms.
        public static var defaultFileURL: URL {
            let environment = ProcessInfo.processInfo.environment
            #if os(Linux) || os(Android) || os(FreeBSD)
            let base: URL
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                base = URL(fileURLWithPath: xdg, isDirectory: true)
            } else {
                let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
                base = URL(fileURLWithPath: home, isDirectory: true)
                    .appendingPathComponent(".local/share", isDirectory: true)
            }
            let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "realm")
                .lastPathComponent
            return base.appendingPathComponent(executable.isEmpty ? "realm" : executable, isDirectory: true)
                .appendingPathComponent("default.realm")
            #else
            let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
            return documents.appendingPathComponent("default.realm")
            #endif
        }
    }
}

extension Realm.Configuration {
}

extension Realm.Configuration: CustomStringConvertible {
    /// The configuration's settings, one per line, as Realm Swift prints them.
    public var description: String {
        var lines = ["Realm.Configuration {"]
        switch location {
        case .file(let url): lines.append("\tfileURL = \(url.path);")
        case .inMemory(let identifier): lines.append("\tinMemoryIdentifier = \(identifier);")
        }
        lines.append("\tencryptionKey = \(encryptionKey == nil ? "(null)" : "<\(encryptionKey!.count) bytes>");")
        lines.append("\treadOnly = \(readOnly ? 1 : 0);")
        lines.append("\tschemaVersion = \(schemaVersion);")
        lines.append("\tmigrationBlock = \(migrationBlock == nil ? "(null)" : "<block>");")
        lines.append("\tdeleteRealmIfMigrationNeeded = \(deleteRealmIfMigrationNeeded ? 1 : 0);")
        lines.append("\tshouldCompactOnLaunch = \(shouldCompactOnLaunch == nil ? "(null)" : "<block>");")
        lines.append("\tseedFilePath = \(seedFilePath?.path ?? "(null)");")
        lines.append("\tmaximumNumberOfActiveVersions = \(maximumNumberOfActiveVersions.map { "\($0)" } ?? "(null)");")
        lines.append("\tobjectTypes = \(objectTypes.map { "(" + $0.map { $0.className() }.joined(separator: ", ") + ")" } ?? "(null)");")
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
