import Foundation
import RealmActors

/// What the checker child checks of a file's replication slots after a kill (any workload's
/// file that has slots), and what the driver checks of them from one kill to the next.
///
/// In the child (``check(path:full:)``), through the public API:
/// - each valid slot's position is retained (``Realm/replicationPositionStatus(_:)``), and its
///   consumer can read every commit after it: ``Realm/commits(after:)-(Realm.ReplicationPosition)``
///   delivers exactly the slot's backlog, with increasing versions each built on the one before
///   (or on the same content restamped by an open), each position retained, and the lanes'
///   progress counting up one by one (nothing missing between two commits) up to what the file
///   holds now;
/// - an invalidated slot retains nothing (`retainedBytes` 0) and its consumer is refused
///   (``Realm/Error/Code/replicationSlotInvalidated``);
/// - the file retains exactly what its slowest valid slot does (invalidated slots are out of
///   the horizon; nothing at all once every slot is invalidated);
/// - ``Realm/checkIntegrity()`` passes, after every kill when a slot has limits;
/// - with `full`, when every slot is invalidated, a copy of the file compacts on open
///   (`shouldCompactOnLaunch`) into a file no larger, with the same objects, the same
///   invalidated slots, nothing retained, and a passing integrity check.
///
/// It prints one `slot <name> <id> <state> <invalidated at, ns> <version> <commit id>
/// <retained bytes> <commits read>` line per slot (state `valid` or the invalidation's reason),
/// and `compacted <bytes before> <bytes after>` after a compaction.
///
/// In the driver (``SlotReport/check(previous:now:)``): a slot (same id) that was invalidated
/// stays invalidated, with the same reason, date and position; a valid one never moves back.
enum RetentionCheck {
    /// The checks and the lines to print; throws the first failure.
    static func check(path: String, full: Bool) async throws -> [String] {
        let realm = try Realm(configuration: Checker.configuration(path: path))
        let slots = try realm.replicationSlots
        guard !slots.isEmpty else { return [] }
        // Every kill, not only every `--verify-every` (whose full check runs it already), on a
        // file whose slots have limits: the pages invalidations released are free, or used.
        if !full, slots.contains(where: { $0.limits != Realm.ReplicationRetentionLimits() }) { _ = try realm.checkIntegrity() }
        var lines: [String] = []
        var slowest = 0  // the most a valid slot retains
        for slot in slots {
            var read = 0
            if let invalidation = slot.invalidation {
                guard slot.retainedBytes == 0 else {
                    throw Driver.Failure("slot \(slot.name) was \(invalidation) but retains \(slot.retainedBytes) bytes")
                }
                var commits = realm.commits(since: slot.name).makeAsyncIterator()
                do {
                    _ = try await commits.nextBatch(maximumCount: 1)
                    throw Driver.Failure("slot \(slot.name) was \(invalidation) but its consumer was given commits")
                } catch let error as Realm.Error where error.code == .replicationSlotInvalidated {}
            } else {
                slowest = max(slowest, slot.retainedBytes)
                read = try await readBacklog(of: slot, in: realm)
            }
            let state = slot.invalidation.map { "\($0.reason)" } ?? "valid"
            let date = slot.invalidation.map { Int64(($0.date.timeIntervalSince1970 * 1e9).rounded()) } ?? 0
            lines.append("slot \(slot.name) \(slot.id) \(state) \(date) \(slot.position.version) \(slot.position.commitID) \(slot.retainedBytes) \(read)")
        }
        let retained = realm.fileStatistics.retainedBytes
        guard retained == UInt64(slowest) else {
            throw Driver.Failure("the file retains \(retained) bytes, its slowest valid slot \(slowest) (slots: \(slots.map { "\($0.name) \($0.retainedBytes)\($0.invalidation == nil ? "" : " invalidated")" }))")
        }
        if full, slots.allSatisfy({ $0.invalidation != nil }), let line = try compactCopy(of: path) { lines.append(line) }
        return lines
    }

    /// Reads the commits after a valid slot's position, checking that none is missing; returns
    /// how many were read.
    private static func readBacklog(of slot: Realm.ReplicationSlot, in realm: Realm) async throws -> Int {
        func fail(_ message: String) -> Driver.Failure { Driver.Failure("slot \(slot.name) at \(slot.position): \(message)") }
        guard try realm.replicationPositionStatus(slot.position) == .retained else { throw fail("its position is not retained") }
        var commits = realm.commits(after: slot.position).makeAsyncIterator()
        var previous = slot.position.version
        var progress: LaneProgress?
        var read = 0
        while read < slot.backlog.commits {
            for commit in try await commits.nextBatch(maximumCount: min(64, slot.backlog.commits - read)) {
                guard commit.version > previous, commit.previousVersion >= previous, commit.previousVersion < commit.version else {
                    throw fail("commit \(commit.version) built on \(commit.previousVersion) follows \(previous)")
                }
                guard try realm.replicationPositionStatus(commit.position) == .retained else {
                    throw fail("commit \(commit.position) was delivered but its position is not retained")
                }
                let lane = commit.realm.object(ofType: TortureProgress.self, forPrimaryKey: 0)?.read { LaneProgress(run: $0.run, commit: $0.commit) }
                if let before = progress, let lane,
                   !(lane.run == before.run && lane.commit == before.commit + 1) && !(lane.run > before.run && lane.commit == 1) {
                    throw fail("commit \(commit.version) holds progress \(lane) after \(before): commits are missing between them")
                }
                progress = lane ?? progress
                previous = commit.version
                read += 1
            }
        }
        let now = realm.object(ofType: TortureProgress.self, forPrimaryKey: 0).map { LaneProgress(run: $0.run, commit: $0.commit) }
        if read > 0, progress != now {
            throw fail("the last of \(read) commits holds progress \(progress.map(\.description) ?? "none"), the file \(now.map(\.description) ?? "none")")
        }
        return read
    }

    /// Compacts a copy of the data file on open, if every slot of the copy is invalidated;
    /// returns the `compacted` line, or nil. The copy is of the data file alone: a log is never
    /// replayed onto another file (a copy has another inode), so the copy holds the file's own
    /// durable version, whose slots may still be valid when the invalidation is in the log.
    private static func compactCopy(of path: String) throws -> String? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("realm-torture-compact-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("copy.realm").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        func summary(_ slots: [Realm.ReplicationSlot]) -> [String] {
            slots.map { "\($0.name) \($0.id) \($0.invalidation.map(\.description) ?? "valid")" }
        }
        // In a function of its own so that the read-only handle is gone before the writable open.
        func state() throws -> (slots: [Realm.ReplicationSlot], digest: ContentDigest) {
            let realm = try Realm(configuration: Checker.configuration(path: copy))
            return (try realm.replicationSlots, ContentDigest(reading: realm))
        }
        let (slots, digest) = try state()
        guard !slots.isEmpty, slots.allSatisfy({ $0.invalidation != nil }) else { return nil }
        // A compaction renames its copy over the file: another inode.
        func stat() throws -> (inode: Int, bytes: UInt64) {
            let attributes = try FileManager.default.attributesOfItem(atPath: copy)
            return ((attributes[.systemFileNumber] as? NSNumber)?.intValue ?? 0, (attributes[.size] as? NSNumber)?.uint64Value ?? 0)
        }
        let (inode, before) = try stat()
        var configuration = Checker.configuration(path: copy)
        configuration.readOnly = false
        configuration.shouldCompactOnLaunch = { _, _ in true }
        let compacted = try Realm(configuration: configuration)
        let (newInode, after) = try stat()
        guard newInode != inode else {
            throw Driver.Failure("every slot is invalidated (\(summary(slots))) but the file was not compacted")
        }
        guard after <= before else { throw Driver.Failure("compaction grew the file from \(before) to \(after) bytes") }
        guard try summary(compacted.replicationSlots) == summary(slots) else {
            throw Driver.Failure("compaction changed the slots from \(summary(slots)) to \(try summary(compacted.replicationSlots))")
        }
        guard compacted.fileStatistics.retainedBytes == 0 else {
            throw Driver.Failure("the compacted file retains \(compacted.fileStatistics.retainedBytes) bytes")
        }
        guard ContentDigest(reading: compacted) == digest else { throw Driver.Failure("compaction changed the content") }
        _ = try compacted.checkIntegrity()
        return "compacted \(before) \(after)"
    }
}

/// One slot as the checker reported it (a `slot` line).
struct SlotReport: Equatable {
    var name: String
    var id: UInt64
    var state: String
    var invalidatedAt: Int64
    var version: UInt64
    var commitID: UInt64
    var retainedBytes: Int
    var read: Int

    var isValid: Bool { state == "valid" }

    init?(line: Substring) {
        let fields = line.split(separator: " ")
        guard fields.count == 9, fields[0] == "slot", let id = UInt64(fields[2]), let invalidatedAt = Int64(fields[4]),
              let version = UInt64(fields[5]), let commitID = UInt64(fields[6]), let retained = Int(fields[7]),
              let read = Int(fields[8]) else { return nil }
        (name, self.id, state, self.invalidatedAt, self.version, self.commitID, retainedBytes, self.read)
            = (String(fields[1]), id, String(fields[3]), invalidatedAt, version, commitID, retained, read)
    }

    /// What must hold from one check of a slot to the next; nil if it does, else the failure.
    static func check(previous: SlotReport, now: SlotReport) -> String? {
        guard previous.id == now.id else { return nil }  // dropped and created again
        if !previous.isValid {
            var expected = now
            expected.read = previous.read
            return expected == previous ? nil : "slot \(now.name) was \(previous.state) at \(previous.invalidatedAt) (position \(previous.version)) and is now \(now.state) at \(now.invalidatedAt) (position \(now.version))"
        }
        return now.version >= previous.version ? nil : "slot \(now.name) moved back from \(previous.version) to \(now.version)"
    }
}
