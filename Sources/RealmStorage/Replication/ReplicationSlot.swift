/// A named, persisted reader position, as PostgreSQL's replication slots: the newest version its
/// consumer has confirmed. While a slot exists, every commit keeps a ``ChangeRecord``, and the
/// pages of the versions after the slot's position are not reused, so a consumer that was down
/// resumes exactly where it stopped: it reads each later commit's record and the version it made.
///
/// **Identity.** Version numbers alone do not name a point of a file's history: a file restored
/// from a copy and reopened makes new commits under numbers its original also used. So a slot
/// has a random ``id`` (a slot dropped and created again under the same name is another slot), and
/// a position is a version *and* the random ``ChangeRecord/commitID`` of the commit that made it
/// (``confirmedCommit``): a consumer that keeps both can ask whether its position is still a
/// point of this file's history (``PageSource/replicationPositionMatches(_:commit:in:records:)``).
///
/// **Bounded retention.** A slot may limit what it keeps: pages (``maximumRetainedPages``) and the
/// age of its oldest unconfirmed commit (``maximumLag``). The first commit that finds a limit
/// passed *invalidates* the slot: its position moves to that commit (it retains nothing from then
/// on) and ``invalidatedAt`` records when, so its consumer is refused with the reason rather than
/// handed a gap. An operator who wants the consumer to start again from a snapshot invalidates the
/// slot by hand (``Invalidation/resynchronizationRequested``, `realm-inspect resync-slot`): the
/// same state, which a consumer that knows the reason answers by creating the slot again and
/// loading a snapshot instead of stopping.
///
/// Stored in the slots tree (``MetaPage/slots``), a value tree keyed by slot number, as
/// (little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | confirmed: the newest transaction whose changes the consumer has applied |
/// | 8 | 8 | the transaction that created the slot |
/// | 16 | 8 | id: random, nonzero |
/// | 24 | 8 | confirmed commit: the commit id of the confirmed version |
/// | 32 | 8 | the meta's recorded-pages counter at the slot's position |
/// | 40 | 8 | maximum retained pages (0: no limit) |
/// | 48 | 8 | maximum lag in nanoseconds (0: no limit) |
/// | 56 | 8 | invalidated at: nanoseconds since 1970 (0: valid) |
/// | 64 | 1 | why it was invalidated (0: it is not, 1: retained pages, 2: lag, 3: resynchronization requested) |
/// | 65 | 7 | zero |
/// | 72 | n | the name, UTF-8 |
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
    /// Random and nonzero: tells this slot from one dropped and created again under its name.
    package var id: UInt64
    /// The commit id of version ``confirmed``: that commit's record's, or, for a version no
    /// record names (the slot's first position, when it has none), one drawn for it.
    package var confirmedCommit: UInt64
    /// The meta's ``MetaPage/recordedPages`` at the slot's position: the pages the records after
    /// its position retain are the counter's growth since.
    package var recordedAtPosition: UInt64
    /// The most pages the records after the slot's position may retain; 0 for no limit.
    package var maximumRetainedPages: UInt64 = 0
    /// The most time, in nanoseconds, the oldest commit after the slot's position may have been
    /// made before the newest; 0 for no limit.
    package var maximumLag: UInt64 = 0
    /// When a limit (or an operator's request) invalidated the slot (nanoseconds since 1970), 0
    /// while it is valid.
    package var invalidatedAt: Int64 = 0
    /// Which limit invalidated it.
    package var invalidation: Invalidation = .none

    /// Why a slot was invalidated.
    package enum Invalidation: UInt8, Sendable {
        case none = 0
        /// Its records retained more than ``ReplicationSlot/maximumRetainedPages``.
        case retainedPages = 1
        /// Its oldest unconfirmed commit was older than ``ReplicationSlot/maximumLag``.
        case lag = 2
        /// An operator asked its consumer to start again from a snapshot
        /// (``WriteTransaction/requestResynchronization(ofSlotNamed:)``).
        case resynchronizationRequested = 3
    }

    /// Whether a limit (or an operator's request) has invalidated the slot.
    package var isInvalidated: Bool { invalidation != .none }

    /// The names slots may have: as PostgreSQL's, 1 to 63 ASCII letters, digits and underscores.
    package static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return (1...63).contains(bytes.count) && bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }
    }

    static let headerSize = 72

    package func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.headerSize)
        bytes.withUnsafeMutableBytes { buffer in
            func store<T: FixedWidthInteger>(_ value: T, _ offset: Int) { buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
            store(confirmed, 0)
            store(createdBy, 8)
            store(id, 16)
            store(confirmedCommit, 24)
            store(recordedAtPosition, 32)
            store(maximumRetainedPages, 40)
            store(maximumLag, 48)
            store(invalidatedAt, 56)
            store(invalidation.rawValue, 64)
        }
        return bytes + Array(name.utf8)
    }

    /// Decodes a stored slot; throws for bytes no slot encodes to (damage).
    package static func decode(number: UInt64, _ bytes: UnsafeRawBufferPointer) throws -> ReplicationSlot {
        func damaged(_ what: String) -> StorageError {
            StorageError(.invalidDatabase, "Realm file is damaged: replication slot \(number) \(what)")
        }
        guard bytes.count > headerSize, bytes.count <= headerSize + 63 else { throw damaged("is malformed") }
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T { T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        let name = String(decoding: bytes[headerSize...], as: UTF8.self)
        guard isValidName(name) else { throw damaged("has a malformed name") }
        guard let invalidation = Invalidation(rawValue: load(64, as: UInt8.self)), load(16, as: UInt64.self) != 0,
              (invalidation == .none) == (load(56, as: Int64.self) == 0)
        else { throw damaged("is malformed") }
        return ReplicationSlot(number: number, name: name, confirmed: load(0, as: UInt64.self), createdBy: load(8, as: UInt64.self),
                               id: load(16, as: UInt64.self), confirmedCommit: load(24, as: UInt64.self),
                               recordedAtPosition: load(32, as: UInt64.self), maximumRetainedPages: load(40, as: UInt64.self),
                               maximumLag: load(48, as: UInt64.self), invalidatedAt: load(56, as: Int64.self), invalidation: invalidation)
    }
}
