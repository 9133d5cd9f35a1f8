import Foundation
import RealmActors
import RealmRuntime
import RealmStorage

/// `replication`: the decoders of format 9's replication slots and change records
/// (``ReplicationSlot``, ``ChangeRecord``), and what reads them from a file. The `file` harness
/// does not reach them usefully: its seeds have no slots, and a mutation of a whole file rarely
/// lands in the few bytes of a slot's or record's value while keeping the leaf around it valid.
///
/// The input's first byte picks the mode (modulo 3), the rest is its payload:
/// - 0: the payload is a slot's stored value, decoded directly;
/// - 1: a change record's stored value, summarized and decoded directly;
/// - 2: the bytes of the slot and change-record values of a file with slots
///   (`Fuzz/Fixtures/replication-base.realm`), written over those values in place (in tree
///   order; a shorter payload leaves the rest as they were), the pages resealed (see
///   ``PageSealing``), and the file opened read-only: the integrity check, then, if it passes,
///   every slot's position, backlog and snapshot, the retained versions page by page, and up
///   to 16 commits after each valid slot's position as a consumer reads them.
///
/// What must hold: decoding throws or succeeds, and what decodes survives encoding (decoding
/// the encoded value gives the same slot, or a record that encodes to the same bytes); the
/// file is refused or read without a trap.
final class ReplicationTarget: FuzzTarget {
    /// What the payload is (the first byte of the input, modulo 3).
    enum Mode: UInt8 {
        case slot = 0
        case record = 1
        case file = 2
    }

    private let scratch = ScratchDirectory("replication")
    /// The fixture's bytes: an array (see ``LogRecoveryTarget``'s).
    private let base: [UInt8]
    /// Where the fixture's slot values, then its change-record values, lie in its bytes.
    private let regions: [Range<Int>]

    init() {
        let fixture = FuzzPaths.fixture("replication-base.realm")
        guard let base = FileManager.default.contents(atPath: fixture) else {
            fatalError("realm-fuzz replication: no file at \(fixture) (run from the package's root, or set REALM_FUZZ_FIXTURES)")
        }
        self.base = [UInt8](base)
        do {
            regions = try Self.valueRegions(of: fixture, bytes: self.base)
        } catch {
            fatalError("realm-fuzz replication: \(fixture) cannot be read: \(error)")
        }
    }

    func run(_ input: Data) -> String {
        guard let first = input.first else { return "empty" }
        let payload = [UInt8](input.dropFirst())
        switch Mode(rawValue: first % 3)! {
        case .slot: return Self.decodeSlot(payload)
        case .record: return Self.decodeRecord(payload)
        case .file: return openFile(payload)
        }
    }

    static func decodeSlot(_ bytes: [UInt8]) -> String {
        do {
            let slot = try bytes.withUnsafeBytes { try ReplicationSlot.decode(number: 1, $0) }
            let again = try slot.encoded().withUnsafeBytes { try ReplicationSlot.decode(number: 1, $0) }
            guard again == slot else { fatalError("a decoded slot does not survive encoding: \(slot) became \(again)") }
            return "slot \(slot.name) at \(slot.confirmed), \(slot.isInvalidated ? "invalidated" : "valid")"
        } catch {
            return "refused: \(error)"
        }
    }

    static func decodeRecord(_ bytes: [UInt8]) -> String {
        let transaction: TransactionID = 7
        do {
            let summary = try bytes.withUnsafeBytes { try ChangeRecord.summary(of: $0, transaction: transaction) }
            let record = try bytes.withUnsafeBytes { try ChangeRecord.decode($0, transaction: transaction) }
            guard summary.commitID == record.commitID, summary.commitTime == record.commitTime,
                  summary.recordedThrough == record.recordedThrough else {
                fatalError("a record's summary differs from the record")
            }
            let encoded = record.encoded()
            let again = try encoded.withUnsafeBytes { try ChangeRecord.decode($0, transaction: transaction) }
            guard again.encoded() == encoded else { fatalError("a decoded change record does not survive encoding") }
            return "record of commit \(record.commitID), \(record.retainedPages) retained pages"
        } catch {
            return "refused: \(error)"
        }
    }

    private func openFile(_ payload: [UInt8]) -> String {
        var bytes = base
        var consumed = 0
        for region in regions where consumed < payload.count {
            let count = min(region.count, payload.count - consumed)
            bytes.replaceSubrange(region.lowerBound..<(region.lowerBound + count), with: payload[consumed..<(consumed + count)])
            consumed += count
        }
        do {
            let realm = try RealmFileTarget.openChecked(bytes, in: scratch)
            guard let url = realm.configuration.fileURL, let file = SharedRealmFile.alreadyOpen(.file(url.standardizedFileURL.path)) else {
                return "not open"
            }
            let versions = try file.database.verifyRetainedVersions(limit: 64)
            var commits = 0
            let slots = try realm.replicationSlots
            for slot in slots {
                _ = try realm.replicationPositionStatus(slot.position)
                _ = try realm.replicationBacklog(after: slot.position.version)
                guard slot.invalidation == nil else { continue }
                _ = try realm.replicationSnapshot(forSlot: slot.name)
                commits += try CommitChangeSet.commits(of: file, after: slot.position.version, limit: 16).count
            }
            return "\(slots.count) slots, \(versions.count) retained versions checked, \(commits) commits read"
        } catch {
            return "refused: \(error)"
        }
    }

    /// Where the values of the slots tree and then of the change-records tree lie in `bytes`,
    /// the file at `path`: each value is found by its bytes (a slot's and a record's hold
    /// random ids, so each occurs once).
    static func valueRegions(of path: String, bytes: [UInt8]) throws -> [Range<Int>] {
        let database = try Database.open(path: path, options: DatabaseOptions(readOnly: true))
        defer { try? database.close() }
        let read = try database.beginRead()
        var values: [[UInt8]] = []
        for root in [read.meta.slots, read.meta.changeRecords] {
            try read.forEach(in: root) { _, value in
                values.append(Array(value))
                return true
            }
        }
        return try values.map { value in
            guard let range = bytes.firstRange(of: value) else {
                throw StorageError(.invalidDatabase, "a value of \(value.count) bytes is not stored whole in the file")
            }
            return range
        }
    }
}
