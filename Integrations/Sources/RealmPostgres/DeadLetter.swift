import Foundation
import Logging
import NIOCore
import PostgresNIO
import RealmActors

/// A row PostgreSQL refused (a ``RowRejection``) after `deadLetterAfter` attempts, set aside in
/// `realm_replication_dead_letters` so that the stream goes on (see ``PoisonIsolation``):
///
/// ```sql
/// CREATE TABLE realm_replication_dead_letters (
///     id         bigserial PRIMARY KEY,      -- the order they were written in
///     slot       text NOT NULL,              -- the realm's slot name
///     slot_id    bigint NOT NULL,            -- the slot's id, as in realm_replication_progress
///     class      text NOT NULL,              -- the class, which is the table
///     object_key text,                       -- the object's key as text: its primary key, or
///                                            -- its _realm_key (null for a null primary key)
///     operation  text NOT NULL,              -- 'write' (insert or update) or 'delete'
///     version    bigint NOT NULL,            -- the commit that wrote it: its version …
///     commit_id  bigint NOT NULL,            -- … and its id
///     row_data   jsonb,                      -- the row the sink tried to write (null for a delete)
///     sqlstate   text NOT NULL,              -- PostgreSQL's refusal
///     message    text NOT NULL,
///     failed_at  timestamptz NOT NULL DEFAULT now()
/// )
/// ```
///
/// `row_data` is the whole row as the object was at that commit — every column of its table,
/// not only those the commit wrote — as a JSON object of column names: a `jsonb` column's value
/// as JSON, every other as a string of the column type's input text (an integer's digits, a
/// date's `2024-05-01 12:00:00.000001+00`, bytes as `\x` and hex, `NaN`), so that
/// `jsonb_populate_record(NULL::"Class", row_data)` reads it back into a row of the table.
///
/// A dead letter is written in the transaction of its commit, with the commit's other rows and
/// the progress row, so it is written exactly once: a commit PostgreSQL has applied is skipped
/// on a restart, dead letters and all. A resynchronization deletes the slot's dead letters (the
/// snapshot's rows replace them).
struct DeadLetter: Sendable {
    let className: String
    /// The object's key as `object_key` holds it.
    let key: String?
    /// Whether the row was a deletion (else a write).
    let deletion: Bool
    /// The row as JSON (nil for a deletion).
    let row: String?
    /// The commit that wrote it.
    let position: Realm.ReplicationPosition
    let rejection: RowRejection

    static let table = "realm_replication_dead_letters"

    static let creation: [PostgresQuery] = [
        PostgresQuery(unsafeSQL: """
            CREATE TABLE IF NOT EXISTS \(table) (id bigserial PRIMARY KEY, slot text NOT NULL, slot_id bigint NOT NULL, \
            class text NOT NULL, object_key text, operation text NOT NULL, version bigint NOT NULL, commit_id bigint NOT NULL, \
            row_data jsonb, sqlstate text NOT NULL, message text NOT NULL, failed_at timestamptz NOT NULL DEFAULT now())
            """),
        PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(table)_object ON \(table) (slot, class, object_key)"),
    ]

    /// The dead letter of `row`, object `key` of `mapping`'s class, which PostgreSQL refused in
    /// the commit at `position`.
    init(_ row: ReplicationBatch.Row, key: Realm.ObjectKey, of mapping: TableMapping, at position: Realm.ReplicationPosition,
         rejection: RowRejection) {
        className = mapping.className
        self.key = Self.text(of: key)
        self.position = position
        self.rejection = rejection
        switch row {
        case .delete:
            deletion = true
            self.row = nil
        case .write(_, let object):
            deletion = false
            self.row = Self.json(of: object, key: key, mapping: mapping)
        }
    }

    /// Inserts the dead letter, in the transaction of its commit.
    func insert(slot: String, slotID: UInt64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO realm_replication_dead_letters (slot, slot_id, class, object_key, operation, version, commit_id, row_data, sqlstate, message) \
            VALUES (\(slot), \(Int64(bitPattern: slotID)), \(className), \(key), \(deletion ? "delete" : "write"), \
            \(Int64(bitPattern: position.version)), \(Int64(bitPattern: position.commitID)), \(row)::jsonb, \
            \(rejection.sqlState), \(rejection.message))
            """, logger: logger)
    }

    /// Deletes the slot's dead letters: a snapshot's rows replace them.
    static func clear(slot: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM realm_replication_dead_letters WHERE slot = \(slot)", logger: logger)
    }

    /// A key as `object_key` text: what its column holds, as text (the object key as the
    /// signed `bigint` `_realm_key` holds).
    static func text(of key: Realm.ObjectKey) -> String? {
        switch key {
        case .int(let value): String(value)
        case .string(let value): ColumnBinding.storable(value)
        case .objectId(let value): value.stringValue
        case .uuid(let value): value.uuidString.lowercased()
        case .objectKey(let value): String(Int64(bitPattern: value))
        case .null: nil
        }
    }

    /// The object's row as a JSON object of column names (see the type's comment).
    static func json(of object: Frozen<DynamicObject>, key: Realm.ObjectKey, mapping: TableMapping) -> String {
        var text = "{"
        func append(_ column: TableMapping.Column, _ binding: ColumnBinding) {
            if text.count > 1 { text += "," }
            JSONText.quote(column.name, into: &text)
            text += ":"
            switch binding {
            case .null: text += "null"
            case .text(let json) where column.type == "jsonb": text += json
            case .text(let value): JSONText.quote(value, into: &text)
            case .bytes(let value): JSONText.quote("\\x" + value.map { String($0, radix: 16).leftPadded(to: 2) }.joined(), into: &text)
            default:
                // Integers, booleans, floats, dates and UUIDs: COPY's text is their input text,
                // with nothing to escape.
                var buffer = ByteBuffer()
                binding.appendCopyText(to: &buffer)
                JSONText.quote(String(buffer: buffer), into: &text)
            }
        }
        append(mapping.key, ColumnBinding(key))
        object.read { object in
            for column in mapping.columns.dropFirst() {
                guard let property = column.property else { continue }
                append(column, ColumnBinding(object[property.name], property: property))
            }
        }
        return text + "}"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
