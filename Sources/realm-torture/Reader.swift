import Foundation
import RealmActors

/// A reader child of the multiprocess mode (`--readers R`): a process that opens the workload's
/// file read-only through the public API, in an actor, beside the writer child, and follows it —
/// the driver SIGKILLs it at random moments too and starts another.
///
/// It refreshes to the newest version over and over and checks each new snapshot:
/// - the lanes' progress (``TortureProgress``) never goes back, nor does the file's version, over
///   every open of this process (a reader never sees a version older than one it saw);
/// - the snapshot is whole: the shared counter (of `actors`, and of every workload beside several
///   writers) minus the lanes' commits stays the same while no lane starts a new run, and grows
///   by at least the commits last seen of the lanes that did (each commit increments it once,
///   atomically with its lane's progress); the ``Bank``'s total is its accounts' initial
///   balances; and one snapshot in sixteen passes the public integrity check of its classes;
/// - a snapshot held while the writer goes on (one in eight, for 10–300 ms) reads the same
///   afterwards — its pages were not reused under it, so the writer respects this process's pins;
/// - a change stream on the progress objects delivers versions that never go back.
///
/// It reports to the driver over stdout, one line per event: `opened`, `snapshot <digest line>`
/// (the driver compares single-lane snapshots with its model: each must be exactly the model
/// after the commits its progress names), `held`, `stream`; and `violation <message>` before
/// exiting with status 4. Opens are retried while the file does not exist yet, and for a while
/// when the lock file is busy; after 10–100 snapshots, or 1.5 s without a new version (a reader
/// that opened alone after a crash replays the log privately and stays at that version), it
/// closes the realm and opens it again.
actor TortureReader {
    let workload: Workload
    let configuration: Realm.Configuration
    var random: SplitMix
    /// The newest progress of each lane seen by any open of this process.
    var newest: [Int: LaneProgress] = [:]
    var newestVersion: UInt64 = 0
    /// Where the counter was last seen: its base (the counter minus the lanes' commits) and the
    /// lanes' progress then.
    var counterBase: (base: Int, progress: [Int: LaneProgress])?
    /// Set by the driver of a several-writers run (`--writers W`): every commit increments the
    /// counter (``Workload/sharedOperations(seed:lane:commit:keys:maximumValue:)``).
    static let sharedVariable = "REALM_TORTURE_SHARED"
    static let shared = ProcessInfo.processInfo.environment[sharedVariable] == "1"
    /// The newest progress each lane had in an element of the current open's change stream,
    /// and that open's number (a cancelled stream of an earlier open may still deliver one).
    var streamed: [Int: LaneProgress] = [:]
    var opens = 0

    init(workload: Workload, path: String, seed: UInt64) {
        self.workload = workload
        configuration = Checker.configuration(path: path)
        random = SplitMix(seed)
    }

    /// Writes one line to stdout, the driver's pipe.
    nonisolated func report(_ text: String) { writeLine(text, to: 1) }

    /// Reports a broken invariant and exits: the driver fails the run with its seed.
    nonisolated func violation(_ message: String) -> Never {
        report("violation \(message)")
        exit(4)
    }

    func run() async -> Never {
        while true {
            let realm = await open()
            realm.autorefresh = false  // versions change only at this reader's refresh()
            report("opened")
            opens += 1
            streamed = [:]
            let stream = streamChanges(of: realm)
            await follow(realm)
            stream.cancel()
        }
    }

    /// Opens the file, waiting for it to exist; a busy lock file (a process dying, or attaching
    /// alone) is retried for 3 s before it counts as a violation, any other error at once.
    func open() async -> Realm {
        var busySince: ContinuousClock.Instant?
        while true {
            do {
                return try await Realm(configuration: configuration, actor: self)
            } catch let error as Realm.Error where error.code == .fileNotFound {
                busySince = nil
            } catch let error as Realm.Error where error.code == .incompatibleLockFile {
                let since = busySince ?? .now
                busySince = since
                if ContinuousClock.now - since > .seconds(3) { violation("opening failed for 3 s: \(error)") }
            } catch {
                violation("opening failed: \(error)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Refreshes and checks new snapshots until it is time to reopen.
    func follow(_ realm: Realm) async {
        var snapshots = 10 + random.below(91)
        var lastNew = ContinuousClock.now
        var first = true
        while snapshots > 0 && ContinuousClock.now - lastNew < .milliseconds(1_500) {
            guard realm.refresh() || first else {
                try? await Task.sleep(for: .milliseconds(1 + random.below(4)))
                continue
            }
            first = false
            lastNew = .now
            snapshots -= 1
            check(realm)
            if random.chance(1, in: 8) {
                // Hold the snapshot while the writer commits on, then read it again.
                let before = ContentDigest(reading: realm)
                try? await Task.sleep(for: .milliseconds(10 + random.below(291)))
                let after = ContentDigest(reading: realm)
                guard after == before else {
                    violation("a held snapshot changed under its reader:\n  before: \(before)\n  after:  \(after)")
                }
                report("held")
            }
        }
    }

    /// Checks the snapshot `realm` reads now and reports it.
    func check(_ realm: Realm) {
        let digest = ContentDigest(reading: realm)
        let version = realm.fileStatistics.version
        guard version >= newestVersion else { violation("the version went back from \(newestVersion) to \(version)") }
        newestVersion = version
        for (lane, seen) in newest {
            guard let now = digest.progress[lane], !now.isBefore(seen) else {
                violation("lane \(lane) went back from \(seen) to \(digest.progress[lane].map(\.description) ?? "none") (\(digest))")
            }
        }
        newest = digest.progress
        if workload == .actors || Self.shared {
            // Runs that ended since the last snapshot added their commits to the base: at least
            // as many as this reader saw of them.
            let base = digest.counter - digest.progress.values.reduce(0) { $0 + $1.commit }
            if let known = counterBase {
                // Lanes in a run the last snapshot did not show (a new lane too: runs of it may
                // have ended unseen).
                let moved = digest.progress.keys.filter { known.progress[$0]?.run != digest.progress[$0]!.run }
                let least = known.base + moved.reduce(0) { $0 + (known.progress[$1]?.commit ?? 0) }
                if moved.isEmpty && base != known.base || base < least {
                    violation("the counter is \(digest.counter) for the lanes' \(digest.progress.values.reduce(0) { $0 + $1.commit }) commits of their runs, but \(moved.isEmpty ? "exactly" : "at least") \(least) more were expected from the last snapshot: a snapshot that is not whole (\(digest))")
                }
            }
            counterBase = (base, digest.progress)
        }
        let bank = Bank.total(in: realm)
        if let failure = Bank.violation(accounts: bank.accounts, total: bank.total) { violation(failure) }
        if random.chance(1, in: 16) {
            do {
                // The classes the file has: a writer killed in schema creation left none.
                try realm.checkIntegrity(ofClasses: tortureTypes.map { "\($0)" }.filter { realm.schema[$0] != nil })
            } catch {
                violation("the integrity check of a snapshot failed: \(error)")
            }
        }
        report("snapshot \(digest.line)")
    }

    /// A change stream on the lanes' progress, consumed beside the refreshes: its elements'
    /// progress never goes back.
    func streamChanges(of realm: Realm) -> Task<Void, Never> {
        let changes = realm.objects(TortureProgress.self).changes
        let open = opens
        return Task {
            for await change in changes {
                switch change {
                case .initial(let results), .update(let results, _, _, _):
                    var progress: [Int: LaneProgress] = [:]
                    for lane in results { progress[lane.id] = LaneProgress(run: lane.run, commit: lane.commit) }
                    streamed(progress, open: open)
                case .error(let error):
                    violation("the change stream failed: \(error)")
                }
            }
        }
    }

    func streamed(_ progress: [Int: LaneProgress], open: Int) {
        guard open == opens else { return }
        for (lane, seen) in streamed {
            guard let now = progress[lane], !now.isBefore(seen) else {
                violation("the change stream's lane \(lane) went back from \(seen) to \(progress[lane].map(\.description) ?? "none")")
            }
        }
        streamed = progress
        report("stream")
    }
}
