/// The torture workloads. Each commit of each lane is a pure function of the run's seed, the lane
/// and the commit number (see ``Operation``).
enum Workload: String, CaseIterable, Sendable {
    /// Synchronous `write {}` transactions: items and blobs of 0 B – 64 KB inserted, updated and
    /// deleted at random keys, one commit in 32 a bulk load of hundreds of small items.
    case churn
    /// Eight actors committing with `asyncWrite` at once (group commit), each acknowledging a
    /// commit only after its `await` returned; every commit also increments one shared counter.
    case actors
    /// Lists and links rewritten: nodes linking to each other, children lists replaced, nodes
    /// deleted (links to them become nil, lists drop them).
    case links
    /// Sixteen actors opening the same file at once — a new file in one run of three — and then
    /// committing small changes: kills land in schema creation, open and recovery.
    case open
    /// The workload that once corrupted a file after 35–60 kills (issue 14): each commit appends
    /// 1–40 items with texts of 0–2,500 bytes at the right edge of the table, upserts 0–20 blobs
    /// of 0–6,000 bytes near it, and deletes every blob more than 30 ids behind: pages churn at
    /// both ends and large values are freed all the time.
    case sliding
    /// ``churn`` on a file with a replication slot: every commit keeps a change record and the
    /// pages of the versions the slot has not confirmed; every 16th commit confirms the slot
    /// through the version eight commits back, freeing older ones. After a kill the checker
    /// also walks a sample of the retained versions page by page.
    case replicated
    /// ``churn`` on a file whose replication slots have retention limits (``RetentionSlots``):
    /// one confirmed by a consumer that reads its commits, two left behind until a limit
    /// invalidates them mid-run (one by retained bytes, one by lag), and in one run of five a
    /// kill aimed at the commit that invalidates a slot, between that commit and its
    /// acknowledgement. After a kill the checker also checks the slots (``RetentionCheck``).
    case retention

    var lanes: Int {
        switch self {
        case .churn, .links, .sliding, .replicated, .retention: 1
        case .actors: 8
        case .open: 16
        }
    }

    var usesAsyncWrite: Bool { self == .actors || self == .open }

    /// Keys of lane `lane` start here, so lanes never touch each other's objects.
    static let laneStride = 100_000_000

    /// The operations of commit `commit` (from 1) of `lane` in the run seeded `seed`.
    func operations(seed: UInt64, lane: Int, commit: Int, keys: Int, maximumValue: Int) -> [Operation] {
        precondition(commit < 1 << 20, "commit numbers stay below 2^20")
        var random = SplitMix(mix(seed, UInt64(lane), UInt64(commit)))
        var operations: [Operation] = []
        switch self {
        case .churn, .actors, .open, .replicated, .retention:
            let laneKeys = switch self {
            case .churn, .replicated, .retention: keys
            case .actors: max(keys / 8, 16)
            default: 500
            }
            let maximum = self == .open ? min(maximumValue, 4_000) : maximumValue
            let base = lane * Self.laneStride
            func key() -> Int { base + random.below(laneKeys) }
            if (self == .churn || self == .replicated || self == .retention) && random.chance(1, in: 32) {
                for _ in 0..<(200 + random.below(400)) {
                    operations.append(.putItem(id: key(), text: ValueSpec(key: random.next(), length: random.below(300)),
                                               number: random.below(1_000_000)))
                }
            } else {
                for _ in 0..<(1 + random.below(self == .open ? 8 : 40)) {
                    let roll = random.below(100)
                    switch roll {
                    case ..<45:
                        operations.append(.putItem(id: key(), text: ValueSpec.random(&random, maximum: maximum),
                                                   number: random.below(1_000_000)))
                    case ..<55: operations.append(.setNumber(id: key(), number: random.below(1_000_000)))
                    case ..<70: operations.append(.deleteItem(id: key()))
                    case ..<90:
                        let data = random.chance(1, in: 10) ? nil : ValueSpec.random(&random, maximum: maximum)
                        operations.append(.putBlob(id: key(), data: data))
                    default: operations.append(.deleteBlob(id: key()))
                    }
                }
            }
            if self == .actors { operations.append(.increment) }
        case .sliding:
            // Ids grow with the run and the commit (runs are numbered in order), so every commit
            // appends; 64 ids per commit, 2^26 per run.
            let base = seedRun(seed) << 26 + commit << 6
            let count = 1 + random.below(40)
            for index in 0..<count {
                operations.append(.putItem(id: base + index, text: ValueSpec(key: random.next(), length: random.below(2_501)),
                                           number: commit))
            }
            let newest = base + count - 1
            for _ in 0..<random.below(21) {
                operations.append(.putBlob(id: newest - random.below(30), data: ValueSpec(key: random.next(), length: random.below(6_001))))
            }
            operations.append(.deleteBlobs(below: newest - 30))
        case .links:
            let nodes = 3_000
            for _ in 0..<(1 + random.below(20)) {
                let roll = random.below(100)
                switch roll {
                case ..<30:
                    operations.append(.putNode(id: random.below(nodes), label: ValueSpec(key: random.next(), length: random.below(2_000))))
                case ..<55:
                    operations.append(.link(from: random.below(nodes), to: random.chance(1, in: 10) ? nil : random.below(nodes)))
                case ..<80:
                    operations.append(.setChildren(id: random.below(nodes), children: (0..<random.below(30)).map { _ in random.below(nodes) }))
                default:
                    operations.append(.deleteNode(id: random.below(nodes)))
                }
            }
        }
        return operations
    }
}

extension Workload {
    /// The workloads the several-writers mode (`--writers W`) runs: those whose lanes keep to
    /// their own keys (``laneStride``), so that writer processes can each own lanes.
    static let sharedWorkloads: [Workload] = [.actors, .churn]

    /// The operations of commit `commit` of `lane` in the several-writers mode: ``operations(seed:lane:commit:keys:maximumValue:)``,
    /// then an increment of the shared counter (which `actors` makes already) and a ``Bank``
    /// transfer — both read-modify-writes of objects every writer process changes.
    func sharedOperations(seed: UInt64, lane: Int, commit: Int, keys: Int, maximumValue: Int) -> [Operation] {
        var operations = operations(seed: seed, lane: lane, commit: commit, keys: keys, maximumValue: maximumValue)
        if self != .actors { operations.append(.increment) }
        var random = SplitMix(mix(seed, UInt64(lane), UInt64(commit), 0xBA4C))
        let from = random.below(Bank.accounts)
        operations.append(.transfer(from: from, to: (from + 1 + random.below(Bank.accounts - 1)) % Bank.accounts,
                                    amount: 1 + random.below(Bank.initialBalance / 2)))
        return operations
    }
}

/// The run number carried in the low bits of a run's seed (see `Driver`), for workloads whose
/// keys grow from run to run.
func seedRun(_ seed: UInt64) -> Int { Int(seed & 0xFFFFF) }
