import Foundation
import RealmActors
import RealmRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The replication slots of the `retention` workload, with their retention limits, and what
/// one run of its writer does with them (a pure function of the run's seed, which the driver
/// computes too).
///
/// - `consumer` (at most 8 MiB retained): confirmed by a simulated consumer that reads its
///   commits with ``Realm/commits(after:)-(Realm.ReplicationPosition)`` every eight commits and
///   confirms all but the last four (so a checker always finds a backlog to read). In one run
///   of four it does not confirm, so a long run invalidates it too, and every slot of the file
///   may end up invalidated (the case in which the file can be compacted).
/// - `abandoned` (at most 256 KiB retained) and `stale` (at most 300 ms of lag): never
///   confirmed, so a limit invalidates them a few commits into a run.
///
/// At the start of a run, an invalidated `consumer` is dropped and created again (its consumer
/// starts over, as a real one would from a snapshot); an invalidated `abandoned` or `stale`
/// one time in two, so that an invalidated slot also lives on across kills.
enum RetentionSlots {
    static let consumer = "consumer"
    static let abandoned = "abandoned"
    static let stale = "stale"
    static let staleLagMilliseconds = 300

    static let limits: [(name: String, limits: Realm.ReplicationRetentionLimits)] = [
        (consumer, Realm.ReplicationRetentionLimits(maximumRetainedBytes: 8 << 20)),
        (abandoned, Realm.ReplicationRetentionLimits(maximumRetainedBytes: 256 << 10)),
        (stale, Realm.ReplicationRetentionLimits(maximumLag: .milliseconds(staleLagMilliseconds))),
    ]

    /// What run `seed` does.
    struct Run {
        /// Whether the consumer confirms what it reads.
        var consumerConfirms: Bool
        /// Whether the run aims its kill at the commit that invalidates `stale` (see
        /// ``Writer/runRetention()``).
        var aimed: Bool
        /// In an aimed run, the I/O call of the invalidating commit's flush the kill comes at.
        var killAtIO: Int
        /// Whether an invalidated `abandoned` or `stale` slot is created again.
        var recreates: Bool

        init(seed: UInt64) {
            var random = SplitMix(mix(seed, 0x5E7E_4710))
            consumerConfirms = !random.chance(1, in: 4)
            aimed = random.chance(1, in: 5)
            killAtIO = 1 + random.below(6)
            recreates = random.chance(1, in: 2)
        }
    }

    /// The commit an aimed run's kill is aimed at: its second (the first one gives `stale` a
    /// commit to fall behind on).
    static let aimedCommit = 2
}

extension Realm {
    /// The slot named `name`, which the torture writer created.
    func replicationSlot(named name: String) throws -> ReplicationSlot {
        guard let slot = try replicationSlots.first(where: { $0.name == name }) else {
            throw Driver.Failure("no replication slot named \(name)")
        }
        return slot
    }
}

extension Writer {
    /// The `retention` workload's writer: sets up the slots (``RetentionSlots``), then commits
    /// forever, the consumer reading and confirming every eighth commit.
    ///
    /// An aimed run makes one commit, sleeps past `stale`'s lag limit — so its second commit is
    /// the one that invalidates `stale` — notes `aim 2` in the acknowledgement file, and lets
    /// ``KillAtIO`` kill the process at a chosen I/O call of that commit's flush (before its log
    /// record is written, while it is written, or after: the commit lost, torn, or durable but
    /// not acknowledged). If the flush makes fewer calls, the process kills itself as the
    /// commit returns, before acknowledging it.
    func runRetention() async throws {
        let run = RetentionSlots.Run(seed: seed)
        let faults = KillAtIO()
        if run.aimed, let url = configuration.fileURL {
            SharedRealmFile.injectFaults(faults, forPath: url.standardizedFileURL.path)
        }
        let realm = try Realm(configuration: configuration)
        try realm.write { try prepareSlots(in: realm, run: run) }
        var position = try realm.replicationSlot(named: RetentionSlots.consumer).position
        var consuming = true
        var number = 0
        while true {
            number += 1
            if run.aimed && number == RetentionSlots.aimedCommit {
                // A third past `stale`'s lag since the first commit: this commit invalidates it.
                usleep(UInt32(RetentionSlots.staleLagMilliseconds * 4_000 / 3))
                note("aim \(number)")
                faults.arm(run.killAtIO)
            }
            let current = number
            try realm.write { commit(current, lane: 0, in: realm) }
            if run.aimed && number == RetentionSlots.aimedCommit { kill(getpid(), SIGKILL) }
            acknowledge(lane: 0, commit: number)
            if consuming && number % 8 == 0 {
                consuming = try await consume(realm, from: &position, confirming: run.consumerConfirms)
            }
        }
    }

    /// Creates the slots the file lacks, and again those invalidated that the run renews.
    private func prepareSlots(in realm: Realm, run: RetentionSlots.Run) throws {
        let existing = Dictionary(try realm.replicationSlots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, limits) in RetentionSlots.limits {
            let renew: Bool
            if let slot = existing[name] {
                let invalidated = slot.invalidation != nil
                renew = switch name {
                case RetentionSlots.consumer: invalidated
                case RetentionSlots.stale where run.aimed: true  // a valid `stale` to invalidate
                default: invalidated && run.recreates
                }
                if renew { try realm.dropReplicationSlot(named: name) }
            } else {
                renew = true
            }
            if renew { try realm.createReplicationSlot(named: name, limits: limits) }
        }
    }

    /// The simulated consumer: reads the commits after its position (each one whose version and
    /// commit id it then holds), and confirms all but the newest four. Returns false once its
    /// slot is invalidated (it then reads nothing more in this run).
    private func consume(_ realm: Realm, from position: inout Realm.ReplicationPosition, confirming: Bool) async throws -> Bool {
        guard try realm.replicationSlot(named: RetentionSlots.consumer).invalidation == nil else { return false }
        let backlog = try realm.replicationBacklog(after: position.version).commits
        guard backlog > 4 else { return true }
        var commits = realm.commits(after: position).makeAsyncIterator()
        var read: [Realm.ReplicationPosition] = []
        while read.count < backlog {
            read += try await commits.nextBatch(maximumCount: backlog - read.count).map(\.position)
        }
        guard confirming else { return true }
        let through = read[read.count - 5]
        try realm.write { try realm.confirmReplicationSlot(named: RetentionSlots.consumer, through: through.version) }
        position = through
        return true
    }
}
