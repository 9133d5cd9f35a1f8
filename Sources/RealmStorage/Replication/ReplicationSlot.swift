/// A named, persisted reader position, as PostgreSQL's replication slots: the newest version its
/// consumer has confirmed. While a slot exists, every commit keeps a ``ChangeRecord``, and the
/// pages of the versions after the slot's position are not reused, so a consumer that was down
/// resumes exactly where it stopped: it reads each later commit's record and the version it made.
///
/// Stored in the slots tree (``MetaPage/slots``), a value tree keyed by slot number, as:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | confirmed: the newest transaction whose changes the consumer has applied |
/// | 8 | 8 | the transaction that created the slot |
/// | 16 | n | the name, UTF-8 |
package struct ReplicationSlot: Sendable, Equatable {
    /// The slot's number: its key in the slots tree.
    package var number: UInt64
    /// The slot's name: 1 to 63 letters, digits and underscores, unique in the file.
    package var name: String
    /// The newest version whose changes the consumer has applied; the commits after it are what
    /// it reads next.
    package var confirmed: TransactionID
    /// The transaction that created the slot.
    package var createdBy: TransactionID

    /// The names slots may have: as PostgreSQL's, 1 to 63 ASCII letters, digits and underscores.
    package static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...63).contains(bytes.count) && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
    }

    func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeMutableBytes { buffer in
            buffer.storeBytes(of: confirmed.littleEndian, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: createdBy.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        return bytes + Array(name.utf8)
    }

    /// Decodes a stored slot; throws for bytes no slot encodes to (damage).
    static func decode(number: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> ReplicationSlot {
        guard bytes.count > 16, bytes.count <= 16 + 63 else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: replication slot \(number) is malformed")
        }
        let name = String(decoding: bytes[16...], as: UTF8.self)
        guard isValidName(name) else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: replication slot \(number) has a malformed name")
        }
        return ReplicationSlot(number: number, name: name,
                               confirmed: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                               createdBy: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }
}
