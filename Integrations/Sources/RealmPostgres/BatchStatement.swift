import Logging
import NIOCore
import PostgresNIO
import RealmActors

/// One step of a batch's PostgreSQL transaction (``ReplicationBatch/statements(known:dropsRemovedColumns:)``):
/// a statement, or a class's table filled from a realm with `COPY` — what a class reloaded
/// whole needs (a migration that changed its primary key, say: ``SchemaChangeStatements``),
/// streamed in bounded memory as the initial snapshot is, rather than held as upserts.
enum BatchStatement: Sendable {
    case query(PostgresQuery)
    /// Every object of the mapping's class in the realm, copied into its (empty) table.
    case load(TableMapping, FrozenRealm)

    /// Runs the step in the transaction `connection` is in; returns the rows a load copied.
    @discardableResult
    func run(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        switch self {
        case .query(let query):
            try await connection.query(query, logger: logger)
            return 0
        case .load(let mapping, let realm):
            // A frozen handle of the version, made and read in this task only.
            return try await mapping.copy(realm.realm().dynamicObjects(mapping.className), on: connection, logger: logger)
        }
    }
}

extension TableMapping {
    /// The size of the COPY data sent at a time.
    static let copyChunkBytes = 1 << 20

    /// Copies `objects` (of this mapping's class) into the table with `COPY … FROM STDIN` — a row
    /// per object, each value encoded as the batches' parameters are (``ColumnBinding``, written
    /// as COPY text); returns the rows copied.
    ///
    /// Memory is bounded: objects are read one at a time and sent in chunks of about
    /// ``copyChunkBytes``, which PostgreSQL applies as they arrive.
    func copy(_ objects: Results<DynamicObject>, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        guard !objects.isEmpty else { return 0 }
        let properties = columns.dropFirst().compactMap(\.property)
        var rows = 0
        try await connection.copyFrom(table: className, columns: columns.map(\.name), logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(Self.copyChunkBytes + Self.copyChunkBytes / 4)
            for object in objects {
                guard let key = Realm.ObjectKey(object) else { continue }
                ColumnBinding(key).appendCopyText(to: &buffer)
                for property in properties {
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    ColumnBinding(object[property.name], property: property).appendCopyText(to: &buffer)
                }
                buffer.writeInteger(UInt8(ascii: "\n"))
                rows += 1
                if buffer.readableBytes >= Self.copyChunkBytes {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        return rows
    }
}
