import Foundation
@testable import RealmRuntime

/// An in-memory realm file that the runtime's unit tests write to as the API layer does: each
/// write goes through the file's ``WritePipeline`` (the lock, the commit with its change log
/// recorded in the ``ChangeFeed``, durability), and the schema is written only by a write that
/// changes it. Objects are named by class and property, so a test reads as the commit it makes.
///
/// Not `Sendable`: a test holds it in one task; what crosses tasks is its `file`.
final class TestRealmFile {
    let file: SharedRealmFile
    /// The schema of the newest commit.
    private(set) var catalog: SchemaCatalog

    /// A new in-memory file (named for the calling test file) holding `classes`' tables,
    /// created by its first commit.
    init(_ classes: [ObjectSchemaInfo], caller: String = #fileID, isolation: isolated (any Actor)? = #isolation) async throws {
        file = try SharedRealmFile.open(.inMemory("\(caller)-\(UUID().uuidString)"), readOnly: false)
        catalog = .empty
        try await write { writer in
            for schema in classes { try writer.createTable(schema) }
        }
    }

    func table(_ className: String) -> Table { catalog.tables[className]! }

    /// One commit, as made: its transaction id and its row change log.
    struct Commit {
        let transaction: TransactionID
        let log: RowChangeLog
    }

    /// The edits of one write transaction, by class and property name.
    final class Writer {
        let transaction: WriteTransaction
        fileprivate(set) var catalog: SchemaCatalog
        fileprivate var schemaChanged = false

        fileprivate init(transaction: WriteTransaction, catalog: SchemaCatalog) {
            self.transaction = transaction
            self.catalog = catalog
        }

        /// Inserts an object of `className` with a value per property (by name; the others
        /// take the table's defaults) and returns its key.
        @discardableResult
        func insert(_ className: String, _ values: [String: ColumnValue] = [:]) throws -> UInt64 {
            let table = catalog.tables[className]!
            var row = table.defaultRow
            for (name, value) in values { row[table.columns[name]!] = value }
            let key = try transaction.newObjectKey(in: table, values: row)
            try transaction.insertObject(into: table, key: key, values: row)
            return key
        }

        func set(_ property: String, of key: UInt64, in className: String, to value: ColumnValue) throws {
            let table = catalog.tables[className]!
            try transaction.setValue(value, column: table.columns[property]!, of: key, in: table, catalog: catalog)
        }

        func delete(_ key: UInt64, from className: String) throws {
            try transaction.deleteObject(key, from: catalog.tables[className]!, catalog: catalog)
        }

        /// Creates the table of a new class (a migration adding it).
        func createTable(_ schema: ObjectSchemaInfo) throws {
            var stored = catalog.stored
            stored.tables.append(try transaction.createTable(schema))
            catalog = SchemaCatalog(stored)
            schemaChanged = true
        }

        /// Drops a class's table and its indexes, as a migration that deletes the class does.
        func dropTable(_ className: String) throws {
            let table = catalog.tables[className]!
            try transaction.dropTree(table.tree)
            for tree in table.stored.indexes.values { try transaction.dropTree(tree) }
            var stored = catalog.stored
            stored.tables.removeAll { $0.schema.className == className }
            catalog = SchemaCatalog(stored)
            schemaChanged = true
        }
    }

    /// Runs `body` in a write transaction and commits it, durably; `silencing` are the observers
    /// (notifier ids) the commit must not notify, as `write(withoutNotifying:)` asks.
    @discardableResult
    func write<Result>(silencing: Set<UInt64> = [], isolation: isolated (any Actor)? = #isolation,
                       _ body: (Writer) throws -> Result) async throws -> (commit: Commit, result: Result) {
        let made = try await commit(silencing: silencing, body)
        try await file.writes.waitUntilDurable(made.commit.transaction)
        return made
    }

    /// ``write(silencing:isolation:_:)`` up to the commit, without waiting for it to be durable:
    /// commits made so are flushed together by the next wait (`file.writes.waitUntilDurable`),
    /// one new durable version for all of them.
    func commit<Result>(silencing: Set<UInt64> = [], isolation: isolated (any Actor)? = #isolation,
                        _ body: (Writer) throws -> Result) async throws -> (commit: Commit, result: Result) {
        let open = try await file.writes.begin()
        let writer = Writer(transaction: open.transaction, catalog: catalog)
        let result: Result
        do {
            result = try body(writer)
        } catch {
            file.writes.abort(open)
            throw error
        }
        let log = open.transaction.changeLog
        let transaction = try file.writes.commit(open, schema: writer.schemaChanged ? writer.catalog : nil,
                                                 changes: CommitChanges(rows: log, silencedObservers: silencing))
        catalog = writer.catalog
        return (Commit(transaction: transaction, log: log), result)
    }

    /// The newest version with the merged logs of `commits` (consecutive, oldest first), as the
    /// notifier hands a version to its trackers.
    func version(after commits: [Commit]) throws -> VersionContext {
        var log = RowChangeLog()
        for commit in commits { log.append(commit.log) }
        return VersionContext(snapshot: try FrozenVersion.newest(of: file), changes: RowChanges(log))
    }

    func newest() throws -> FrozenVersion { try FrozenVersion.newest(of: file) }
}

extension ColumnValue {
    /// A string as stored.
    static func text(_ value: String) -> ColumnValue { .bytes(Array(value.utf8)) }
}
