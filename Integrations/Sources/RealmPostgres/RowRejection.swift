import PostgresNIO

/// PostgreSQL refusing the values of a row — an error of the data, which waiting will not mend —
/// as opposed to every other failure (the server down or restarting, a connection lost, a
/// timeout, a serialization failure or deadlock, a lock, a permission), which the sink retries
/// as it always has.
///
/// A data error is one whose SQLSTATE is in a class that the row's values cause:
///
/// | SQLSTATE | class | e.g. |
/// |---|---|---|
/// | `22…` | data exception | a value out of range, an invalid text representation, a string too long for a `varchar(n)` an operator set |
/// | `23…` | integrity constraint violation | a `CHECK`, `NOT NULL`, `UNIQUE` or foreign key an operator added |
/// | `27…` | triggered data change violation | |
/// | `44…` | `WITH CHECK OPTION` violation | |
/// | `54000` | program limit exceeded | a key too large for its index |
/// | `P0…` | PL/pgSQL error | a trigger's `RAISE EXCEPTION` (`P0001`) or `ASSERT` (`P0004`) |
///
/// After `deadLetterAfter` attempts of a batch fail with one, the sink isolates the rows that
/// cause it and writes them to the dead-letter table (``PoisonIsolation``, ``DeadLetter``).
struct RowRejection: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE.
    let sqlState: String
    /// PostgreSQL's message, with its detail when it gave one.
    let message: String

    static let dataClasses: Set<Substring> = ["22", "23", "27", "44", "P0"]

    /// The data error `error` is, or nil if it is not one: a server error
    /// (`PSQLError`) with a data SQLSTATE, or a transaction that failed with one.
    init?(_ error: any Error) {
        if let error = error as? PostgresTransactionError {
            guard let cause = error.closureError ?? error.commitError ?? error.beginError else { return nil }
            self.init(cause)
            return
        }
        if let error = error as? RowRejection {
            self = error
            return
        }
        guard let error = error as? PSQLError, error.code == .server, let info = error.serverInfo,
              let sqlState = info[.sqlState], Self.dataClasses.contains(sqlState.prefix(2)) || sqlState == "54000" else { return nil }
        self.init(sqlState: sqlState, message: [info[.message], info[.detail]].compactMap { $0 }.joined(separator: ": "))
    }

    init(sqlState: String, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    var description: String { "\(sqlState): \(message)" }
}
