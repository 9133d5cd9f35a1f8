/// The driver's model of a file that several writer processes write (`--writers W`): one
/// ``Model`` per lane — lanes keep to their own keys, so the file's content is the lanes'
/// together (``ContentDigest/add(_:)``) — each at the lane's newest progress the driver knows
/// of, and advanced by replaying commits, which are pure functions of their run's seed.
///
/// A lane's runs follow one another: a writer starts on a lane only after the previous one
/// died, and notes in its first transaction the progress it resumes after (`resume`); the
/// driver reads that note before any version with the new run's commits can reach a check. So
/// the model of a lane moves only forward, through the commits of a run it knows, and a file
/// (or a resume) showing a lane behind its model, or in a run that did not resume from it, lost
/// a commit someone saw.
struct SharedLanes {
    struct Lane {
        var model = Model()
        var progress: LaneProgress?
        /// Where each run of the lane resumed.
        var resumed: [Int: LaneProgress?] = [:]
        /// The newest acknowledged commit.
        var acknowledged: LaneProgress?
    }

    var lanes: [Int: Lane] = [:]
    /// Every run's seed, by run.
    var seeds: [Int: UInt64] = [:]
    /// Commits replayed onto the models, and resumes taken.
    var commits = 0, resumes = 0

    /// Takes what a writer noted.
    mutating func take(_ event: WriterPool.Event, workload: Workload, keys: Int, maximumValue: Int) throws {
        switch event {
        case .resumed(let lane, let run, let from):
            if let from, let acknowledged = lanes[lane]?.acknowledged, from.isBefore(acknowledged) {
                throw Driver.Failure("lane \(lane): run \(run) resumes after \(from), but \(acknowledged) was acknowledged — an acknowledged commit was lost")
            }
            try advance(lane, to: from, workload: workload, keys: keys, maximumValue: maximumValue, finder: "run \(run)'s first transaction")
            lanes[lane, default: Lane()].resumed[run] = .some(from)
            resumes += 1
        case .acknowledged(let lane, let run, let commit):
            let progress = LaneProgress(run: run, commit: commit)
            if lanes[lane]?.acknowledged.map({ $0.isBefore(progress) }) ?? true { lanes[lane, default: Lane()].acknowledged = progress }
        case .recovered, .waited:
            break
        }
    }

    /// The newest acknowledged commit of each lane (taken before a check starts: the file must
    /// hold them all).
    var acknowledged: [Int: LaneProgress] { lanes.compactMapValues(\.acknowledged) }

    /// Advances lane `lane`'s model to `target`, replaying the commits between; throws if the
    /// target is behind the model, or in a run that did not resume from where the model is.
    mutating func advance(_ lane: Int, to target: LaneProgress?, workload: Workload, keys: Int, maximumValue: Int, finder: String) throws {
        var state = lanes[lane] ?? Lane()
        guard target != state.progress else { return }
        let described = state.progress.map(\.description) ?? "none"
        guard let target, let seed = seeds[target.run] else {
            throw Driver.Failure("lane \(lane): \(finder) found progress \(target.map(\.description) ?? "none"), but the driver's model is at \(described) — a commit was lost, or came from nowhere")
        }
        let first: Int
        if let progress = state.progress, progress.run == target.run {
            guard progress.commit < target.commit else {
                throw Driver.Failure("lane \(lane): \(finder) found progress \(target), behind \(progress) seen before — a version others could see was lost")
            }
            first = progress.commit + 1
        } else if let resumed = state.resumed[target.run], resumed == state.progress {
            first = 1
        } else {
            throw Driver.Failure("lane \(lane): \(finder) found progress \(target), but the model is at \(described), which run \(target.run) \(state.resumed[target.run].map { "resumed from \($0.map(\.description) ?? "none")" } ?? "never noted resuming from")")
        }
        for commit in first...target.commit {
            for operation in workload.sharedOperations(seed: seed, lane: lane, commit: commit, keys: keys, maximumValue: maximumValue) {
                state.model.apply(operation)
            }
        }
        commits += target.commit - first + 1
        state.progress = target
        state.model.progress = [lane: target]
        lanes[lane] = state
    }

    /// The digest of the whole file as the models have it.
    var digest: ContentDigest {
        var digest = ContentDigest()
        for lane in lanes.values { digest.add(lane.model.digest) }
        return digest
    }
}
