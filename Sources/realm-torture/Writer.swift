import Foundation
import RealmActors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child that the driver kills: commits forever, appending `<lane> <commit>` to the
/// acknowledgement file after each commit returned (so the line exists only for durable commits).
///
/// In the several-writers mode (`firstLane` given: ``WriterPool``) it is one of several writer
/// processes on the file, owning lanes `firstLane..<firstLane + workload.lanes`: every lane
/// commits with `asyncWrite` from its own actor, with ``Workload/sharedOperations(seed:lane:commit:keys:maximumValue:)``,
/// and notes in its first transaction where the lane resumes and its longest waits for a write
/// transaction (``LaneWriter``); ``SharedWriterKills``
/// may kill the process itself inside a flush or a warm recovery, and it notes each warm
/// recovery it begins (`recovered`).
struct Writer {
    let workload: Workload
    let configuration: Realm.Configuration
    let run: Int
    let seed: UInt64
    let keys: Int
    let maximumValue: Int
    let acknowledgements: Int32
    /// The several-writers mode's first lane of this process; nil when it writes alone.
    var firstLane: Int? = nil

    var lanes: Range<Int> {
        let first = firstLane ?? 0
        return first..<(first + workload.lanes)
    }

    func acknowledge(lane: Int, commit: Int) {
        note("\(lane) \(commit)")
    }

    /// Appends a line to the acknowledgement file (the driver reads lines other than `<lane>
    /// <commit>` as notes: `aim <commit>`).
    func note(_ text: String) { writeLine(text, to: acknowledgements) }

    /// The operations of one commit, with the lane's progress.
    func commit(_ number: Int, lane: Int, in realm: Realm) {
        let operations = firstLane == nil
            ? workload.operations(seed: seed, lane: lane, commit: number, keys: keys, maximumValue: maximumValue)
            : workload.sharedOperations(seed: seed, lane: lane, commit: number, keys: keys, maximumValue: maximumValue)
        for operation in operations { operation.apply(in: realm) }
        realm.create(TortureProgress.self, value: ["id": lane, "run": run, "commit": number], update: .modified)
    }

    /// Set by the driver of a multiprocess run (`--readers`): the writer reports, before its
    /// first commit, the lanes' progress of the file as its open recovered it (`start <lanes>`).
    /// Beside readers, the driver's check after a kill reads the version the dead writer
    /// published; this open may recover a commit the log held beyond it (durable, never
    /// acknowledged), which the driver then adds to its model.
    static let reportStartVariable = "REALM_TORTURE_REPORT_START"

    func reportStart() throws {
        let realm = try Realm(configuration: configuration)
        var lanes: [Int: LaneProgress] = [:]
        for lane in realm.objects(TortureProgress.self) { lanes[lane.id] = LaneProgress(run: lane.run, commit: lane.commit) }
        note("start \(LaneProgress.line(lanes))")
    }

    func run() async throws {
        if firstLane != nil {
            SharedWriterKills(seed: seed).install(for: self)
        } else if ProcessInfo.processInfo.environment[Self.reportStartVariable] == "1" {
            try reportStart()
        }
        if workload.usesAsyncWrite || firstLane != nil {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in lanes {
                    group.addTask { try await LaneWriter(writer: self, lane: lane).run() }
                }
                try await group.waitForAll()
            }
        } else if workload == .retention {
            try await runRetention()
        } else {
            let realm = try Realm(configuration: configuration)
            if workload == .replicated, try realm.replicationSlots.isEmpty {
                try realm.write { try realm.createReplicationSlot(named: "torture") }
            }
            var number = 0
            var versions: [UInt64] = []  // of this process's commits, newest last
            while true {
                number += 1
                let current = number
                try realm.write {
                    commit(current, lane: 0, in: realm)
                    if workload == .replicated, current % 16 == 0, versions.count >= 8 {
                        try realm.confirmReplicationSlot(named: "torture", through: versions[versions.count - 8])
                    }
                }
                if workload == .replicated { versions.append(realm.fileStatistics.version) }
                acknowledge(lane: 0, commit: number)
            }
        }
    }
}

/// Writes `text` and a newline to `descriptor` whole, or exits with status 3: a child's report
/// to the driver (a line of under 4 KiB is one `write`, atomic on a pipe or an `O_APPEND` file).
func writeLine(_ text: String, to descriptor: Int32) {
    var line = text + "\n"
    line.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 { if errno == EINTR { continue }; exit(3) }
            offset += written
        }
    }
}

/// One lane of an asynchronous workload: its own actor and realm handle.
actor LaneWriter {
    let writer: Writer
    let lane: Int

    init(writer: Writer, lane: Int) {
        self.writer = writer
        self.lane = lane
    }

    func run() async throws {
        let realm = try await Realm(configuration: writer.configuration, actor: self)
        var number = 0
        var longestWait = Duration.milliseconds(50)
        while true {
            number += 1
            let current = number
            let asked = ContinuousClock.now
            try await realm.asyncWrite {
                if writer.firstLane != nil {
                    if current == 1 { resume(in: realm) }
                    noteWait(since: asked, longest: &longestWait)
                }
                writer.commit(current, lane: lane, in: realm)
            }
            writer.acknowledge(lane: lane, commit: number)
        }
    }

    /// Notes `waited <milliseconds>` when this lane's write transaction began longer after it
    /// asked than any before (and over 50 ms): the time it queued behind the other lanes of its
    /// process and waited for write ownership — a writer process starved of ownership while the
    /// others write shows as a long wait.
    func noteWait(since asked: ContinuousClock.Instant, longest: inout Duration) {
        let waited = ContinuousClock.now - asked
        guard waited > longest else { return }
        longest = waited
        writer.note("waited \(waited.components.seconds * 1_000 + waited.components.attoseconds / 1_000_000_000_000_000)")
    }

    /// Notes where the lane resumes, `resume <lane> <run>:<commit>` (`-` for a lane never
    /// committed), as the first write transaction of this process sees it: after any warm
    /// recovery, the newest version, which holds the last commit of the lane's previous writer
    /// (dead before this one started, and the lane's only writer) — the driver advances its
    /// model of the lane there. Written before the commit, so before any version holding this
    /// run's progress exists.
    func resume(in realm: Realm) {
        let progress = realm.object(ofType: TortureProgress.self, forPrimaryKey: lane)
        writer.note("resume \(lane) \(progress.map { "\($0.run):\($0.commit)" } ?? "-")")
    }
}
