import Foundation
internal import RealmRuntime

extension Realm {
    /// What a realm file holds and how its pages are used: what `realm-inspect info` prints, and
    /// what to watch to decide when to compact.
    ///
    /// Every page of the file is in exactly one of four states, so
    /// `fileBytes == liveBytes + freeBytes + pinnedBytes + retainedBytes`:
    /// - *live*: reachable from the newest version (its objects, indexes and bookkeeping);
    /// - *free*: reusable by the next commits;
    /// - *pinned*: free in the newest version but still read by an older one that a handle, a
    ///   frozen snapshot or a change notification in this process holds (or by a commit not yet
    ///   durable). Pinned bytes that keep growing mean a snapshot held for too long;
    /// - *retained*: kept, across restarts, for the versions a replication slot has not
    ///   confirmed (see ``Realm/createReplicationSlot(named:limits:)``). Retained bytes that keep
    ///   growing mean a consumer that stopped confirming.
    public struct FileStatistics: Sendable, Equatable, CustomStringConvertible {
        /// The version of the file format.
        public let formatVersion: Int
        /// The size of a page in bytes.
        public let pageSize: Int
        /// The file's length that the newest version uses, in bytes.
        public let fileBytes: UInt64
        /// Bytes reachable from the newest version.
        public let liveBytes: UInt64
        /// Bytes free for the next commits to reuse.
        public let freeBytes: UInt64
        /// Bytes free in the newest version but held for older versions still being read.
        public let pinnedBytes: UInt64
        /// Bytes of older versions kept for replication slots that have not confirmed them.
        public let retainedBytes: UInt64
        /// The newest committed version: a number that grows with every commit and never
        /// repeats — by one per commit, except that the first commit after the file is opened
        /// jumps ahead by about a million. It orders commits; it does not count them.
        public let version: UInt64
        /// How many versions are live in this process: the newest, plus each older one a
        /// handle, snapshot or notifier still reads.
        public let activeVersions: Int
        /// Whether the file is encrypted.
        public let isEncrypted: Bool
        /// How many records of the write-ahead log the first open of the file in this process
        /// applied: commits made durable in the log that the file itself did not hold yet (after
        /// a crash or power cut; 0 after a clean close).
        public let logRecordsReplayed: Int

        init(usage: SpaceUsage, version: UInt64, activeVersions: Int, isEncrypted: Bool, logRecordsReplayed: Int) {
            formatVersion = Int(usage.formatVersion)
            pageSize = PageLayout.pageSize
            fileBytes = usage.fileBytes
            liveBytes = usage.liveBytes
            freeBytes = usage.freeBytes
            pinnedBytes = usage.heldBytes
            retainedBytes = usage.retainedBytes
            self.version = version
            self.activeVersions = activeVersions
            self.isEncrypted = isEncrypted
            self.logRecordsReplayed = logRecordsReplayed
        }

        /// One line per field, `name: value`.
        public var description: String {
            """
            format version: \(formatVersion)
            page size: \(pageSize)
            file bytes: \(fileBytes)
            live bytes: \(liveBytes)
            free bytes: \(freeBytes)
            pinned bytes: \(pinnedBytes)
            retained bytes: \(retainedBytes)
            version: \(version)
            active versions: \(activeVersions)
            encrypted: \(isEncrypted)
            log records replayed: \(logRecordsReplayed)
            """
        }
    }

    /// How the realm's file is used now (see ``FileStatistics``).
    ///
    /// - Complexity: O(free runs in the free list), under the file's state lock; no I/O.
    public var fileStatistics: FileStatistics {
        let database = file.database
        return FileStatistics(usage: database.spaceUsage, version: database.preparedTransaction,
                              activeVersions: database.activeVersionCount, isEncrypted: configuration.encryptionKey != nil,
                              logRecordsReplayed: database.recordsReplayed)
    }

    /// What a full integrity check of a realm file found: every page of the newest version
    /// read and accounted for.
    public struct IntegrityReport: Sendable, Equatable {
        /// The version checked.
        public let version: UInt64
        /// The file's length in pages at that version.
        public let pages: UInt64
        /// Pages the version uses.
        public let usedPages: UInt64
        /// Pages free (reusable or pinned).
        public let freePages: UInt64
        /// How many B+trees the version holds (tables, indexes and collections).
        public let trees: Int
        /// How many entries those trees hold in all.
        public let entries: UInt64
        /// Pages in use by kind (`"leaf"`, `"inner"`, `"overflow"`, …).
        public let pagesByKind: [String: UInt64]
    }

    /// Reads every page of the realm's newest version and checks it: each page's checksum (and
    /// authentication tag, if encrypted) and the transaction that wrote it, the order of keys and
    /// the counts in every tree, the runs of large values, that every page of the file is used
    /// exactly once or free exactly once, that table pages hold the schema's columns, and that
    /// every link names an object that exists. `realm-inspect check` runs it.
    ///
    /// A server that must not stop on a damaged file runs it once before serving from a file it
    /// did not write itself (a restored backup, a file copied in): a read that cannot throw and
    /// meets a damaged page traps, as in Realm.
    ///
    /// - Throws: ``Realm/Error`` (``Realm/Error/Code/invalidDatabase`` for damage) whose message
    ///   counts the problems found and names the first five: which page, what is wrong with it,
    ///   and what it belongs to ("table 'Dog'", "index 'Dog.name'", "the schema", "the catalog").
    /// - Complexity: O(pages of the file): reads the whole file.
    public func checkIntegrity() throws -> IntegrityReport {
        do {
            // The schema of the version checked says which trees hold tables and what their
            // columns are (a table on a tree of another kind, or a column of another kind,
            // passes every page's check but cannot be read), and what the links point at.
            // Both closures get the same version: its schema is decoded once, by the first.
            var schema: SchemaCatalog?
            let report = try file.database.verify(treeNames: treeNames) { read in
                schema = try read.storedSchema().map(SchemaCatalog.init)
                return schema?.tableColumns ?? [:]
            } contents: { read in
                guard let schema else { return [] }
                return try read.contentProblems(of: schema.tables.values, in: schema)
            }
            return IntegrityReport(version: report.transaction, pages: report.pageCount, usedPages: report.usedPages,
                                   freePages: report.freePages, trees: report.trees, entries: report.entries,
                                   pagesByKind: Dictionary(uniqueKeysWithValues: report.pagesByKind.map { ("\($0.key)", $0.value) }))
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }
}
