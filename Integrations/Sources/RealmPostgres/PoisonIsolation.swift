import Logging
import PostgresNIO
import RealmActors

/// Finding the rows PostgreSQL refuses, so that the stream goes on without them: what the sink
/// does with a batch once `deadLetterAfter` attempts of it have failed with a data error
/// (``RowRejection``: a `CHECK` constraint or a trigger an operator added, a value out of
/// range) — errors waiting does not mend, which would otherwise stop replication for good.
///
/// The batch's commits are applied one PostgreSQL transaction each (``PostgresReplicationSink/applyIsolatingPoison(_:)``).
/// A commit is tried whole first, inside a savepoint. If PostgreSQL refuses it, the savepoint
/// is rolled back and the commit applied again row by row: its schema changes and dropped
/// tables first (not isolated: their failure fails the transaction, which is retried), then each
/// object's row in a savepoint of its own. A row PostgreSQL refuses with a data error is rolled
/// back to its savepoint and becomes a ``DeadLetter``, written in the same transaction as the
/// commit's other rows and the progress row — so exactly once: a commit applied is skipped on a
/// restart, its dead letters with it. Any other error fails the transaction, to be retried.
///
/// The isolating transaction checks every constraint at its statement (`SET CONSTRAINTS ALL
/// IMMEDIATE`): a deferred constraint an operator added (a `DEFERRABLE INITIALLY DEFERRED`
/// unique or foreign key) would otherwise pass every savepoint and fail only the `COMMIT`, with
/// no row to set aside — and the batch would be retried forever.
///
/// A dead letter leaves PostgreSQL without that row's change (an insert missing, an update
/// not made, a row not deleted) until an operator replays it; the later commits go on as usual,
/// and a later write of the object that PostgreSQL accepts brings its row back (with the
/// columns that write changed).
struct PoisonIsolation {
    let dropsRemovedColumns: Bool
    let logger: Logger

    /// Applies `commit` in the transaction `connection` is in, isolating the rows PostgreSQL
    /// refuses; returns the tables' columns after it (`known` before) and the dead letters,
    /// which the caller writes in the same transaction.
    func apply(_ commit: Realm.Commit, known: [String: Set<String>],
               on connection: PostgresConnection) async throws -> (known: [String: Set<String>], deadLetters: [DeadLetter]) {
        let batch = ReplicationBatch([commit])
        do {
            return (try await attempt(batch, known: known, savepoint: "realm_commit", on: connection), [])
        } catch is RowRejection {}
        // Row by row: the schema's changes and the dropped tables, then each row alone.
        var prelude = batch
        prelude.classes = batch.classes.map { ($0.name, ReplicationBatch.ClassRows(dropped: $0.rows.dropped)) }
        var statements: [BatchStatement]
        var known = known
        (statements, known) = prelude.statements(known: known, dropsRemovedColumns: dropsRemovedColumns)
        for statement in statements { try await statement.run(on: connection, logger: logger) }
        var deadLetters: [DeadLetter] = []
        for (className, changes) in batch.classes {
            for (key, row) in changes.rows {
                var single = batch
                single.schemaCommit = nil
                single.classes = [(className, ReplicationBatch.ClassRows(rows: [key: row]))]
                do {
                    known = try await attempt(single, known: known, savepoint: "realm_row", on: connection)
                } catch let rejection as RowRejection {
                    // A row of a class the commit's schema has (else the row has no statement).
                    guard let objectSchema = batch.schema[className] else { throw rejection }
                    deadLetters.append(DeadLetter(row, key: key, of: TableMapping(objectSchema, schema: batch.schema),
                                                  at: commit.position, rejection: rejection))
                }
            }
        }
        return (known, deadLetters)
    }

    /// Runs `batch`'s statements inside savepoint `savepoint`: the tables' columns after them.
    /// When PostgreSQL refuses them with a data error, rolls back to the savepoint and throws
    /// the ``RowRejection``; other errors are thrown as they are (the transaction is lost).
    private func attempt(_ batch: ReplicationBatch, known: [String: Set<String>], savepoint: String,
                         on connection: PostgresConnection) async throws -> [String: Set<String>] {
        try await connection.query(PostgresQuery(unsafeSQL: "SAVEPOINT \(savepoint)"), logger: logger)
        do {
            let (statements, after) = batch.statements(known: known, dropsRemovedColumns: dropsRemovedColumns)
            for statement in statements { try await statement.run(on: connection, logger: logger) }
            try await connection.query(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(savepoint)"), logger: logger)
            return after
        } catch {
            guard let rejection = RowRejection(error) else { throw error }
            try await connection.query(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(savepoint)"), logger: logger)
            throw rejection
        }
    }
}

extension PostgresReplicationSink {
    /// Applies `commits` as ``apply(_:)`` does, but one PostgreSQL transaction per commit, with
    /// the rows PostgreSQL refuses set aside as dead letters (``PoisonIsolation``); each dead
    /// letter is counted (`realm.replication.dead_letters`) and logged at `error` once its
    /// transaction has committed.
    func applyIsolatingPoison(_ commits: [Realm.Commit]) async throws {
        let client = client, slot = slot, slotID = slotID, logger = logger, committed = appliedVersion
        let isolation = PoisonIsolation(dropsRemovedColumns: dropsRemovedColumns, logger: logger)
        for commit in commits {
            let known = knownColumns
            let result = try await withAbandoningDeadline(transactionTimeout) {
                try await Self.stopping {
                    try await client.withTransaction(logger: logger) { connection -> (known: [String: Set<String>], deadLetters: [DeadLetter])? in
                        // A deferred constraint fails its row's savepoint, not the COMMIT (see PoisonIsolation).
                        try await connection.query("SET CONSTRAINTS ALL IMMEDIATE", logger: logger)
                        let progress = try await ReplicationProgress.lock(slot: slot, slotID: slotID, notBehind: committed,
                                                                          on: connection, logger: logger)
                        guard progress.position.version < commit.version, let slotID else { return nil }  // applied before
                        let result = try await isolation.apply(commit, known: known, on: connection)
                        for deadLetter in result.deadLetters { try await deadLetter.insert(slot: slot, slotID: slotID, on: connection, logger: logger) }
                        try await MappedTables.record(Set(result.known.keys).subtracting(known.keys), dropped: MappedTables.dropped(by: [commit]),
                                                      slot: slot, on: connection, logger: logger)
                        try await ReplicationProgress.update(slot: slot, to: commit.position, on: connection, logger: logger)
                        return result
                    }
                }
            }
            guard let result else { continue }
            knownColumns = result.known
            for deadLetter in result.deadLetters {
                metrics.deadLetters.increment()
                logger.error("PostgreSQL refused a row; written to realm_replication_dead_letters", metadata: [
                    "slot": "\(slot)", "class": "\(deadLetter.className)", "key": "\(deadLetter.key ?? "null")",
                    "operation": "\(deadLetter.deletion ? "delete" : "write")", "version": "\(commit.version)",
                    "sqlstate": "\(deadLetter.rejection.sqlState)", "error": "\(deadLetter.rejection.message)"])
            }
        }
    }
}
