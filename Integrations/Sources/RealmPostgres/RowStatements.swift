import PostgresNIO

/// Row writes — multi-row upserts and deletes, in the order they are added — combined into as
/// few PostgreSQL statements as the bind limit allows: each statement after the first write of
/// a chain is a data-modifying common table expression (`WITH w1 AS (INSERT …), w2 AS (DELETE
/// …) INSERT …`). A batch's rows then cost one round trip, not one per class and set of columns
/// (measured: ~13 statements per batch of 64 commits in the replication check's mix).
///
/// **Why combining is the same as running them in turn.** PostgreSQL runs the sub-statements of
/// one statement on one snapshot, in an unspecified order, and a row must not be changed twice
/// by one statement. The writes added here never touch one row twice: a batch writes each
/// object's row at most once, as an upsert *or* a delete (``ReplicationBatch``), and each
/// multi-row upsert holds each key once. Nothing they do depends on the order, then; PostgreSQL
/// checks an operator's constraints and runs its row triggers for each sub-statement as for a
/// statement of its own. DDL cannot be a common table expression: it is never added here.
///
/// Invariant: the placeholders of every write (`$n`) number the binds of the statement it ends
/// up in, since each write appends its binds to that statement's and names them by their
/// position (``append(bindCount:_:)``).
struct RowStatements {
    /// The most parameters one statement takes (PostgreSQL's limit is 65,535).
    static let maximumBinds = 30_000

    /// The statements finished so far.
    private var finished: [PostgresQuery] = []
    /// The writes of the statement being built, and its binds.
    private var writes: [String] = []
    private var binds = PostgresBindings()

    /// Adds a write that takes `bindCount` parameters (at most ``maximumBinds``): `build`
    /// appends them to the binds it is given and returns the write's SQL, naming each by its
    /// position in those binds (`"$\(binds.count)"` right after appending it).
    mutating func append(bindCount: Int, _ build: (inout PostgresBindings) -> String) {
        precondition(bindCount <= Self.maximumBinds, "one write takes more parameters than a statement may")
        if binds.count + bindCount > Self.maximumBinds { finishStatement() }
        let before = binds.count
        writes.append(build(&binds))
        assert(binds.count - before == bindCount, "a write appended another number of binds than it announced")
    }

    /// The statements: the writes, in as few statements as the bind limit allows.
    consuming func statements() -> [PostgresQuery] {
        finishStatement()
        return finished
    }

    private mutating func finishStatement() {
        guard let last = writes.last else { return }
        let chain = writes.dropLast().enumerated().map { "w\($0.offset) AS (\($0.element))" }
        let sql = chain.isEmpty ? last : "WITH " + chain.joined(separator: ", ") + " " + last
        finished.append(PostgresQuery(unsafeSQL: sql, binds: binds))
        writes.removeAll()
        binds = PostgresBindings()
    }
}
