import Dispatch
package import RealmStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A disk that fails on cue: the one `IOFaultInjector` of the tests, handed to a database through
/// `DatabaseOptions.faults` (or `SharedRealmFile.injectFaults` above the storage layer).
///
/// It keeps a journal of every call the storage layer makes through it (a ``Step``: a write or
/// sync of the data file or of the log, the data file's growth, the log's cut) and fails the
/// calls it is told to, by rule (``inject(_:into:after:matching:then:)``): the n-th call of some
/// kinds, failed or torn, once, until ``heal()`` (a disk that stays full), or as the last thing
/// the process does (``Persistence/dead``: every later call fails, so dropping a `Database`,
/// whose `deinit` flushes and checkpoints, writes nothing more — a crash, or a power cut). It can
/// also hold the next sync at a gate until the test releases it (``holdNextSync()``), to act
/// while a flush is in flight.
///
/// The storage layer calls it from whichever thread flushes, one call at a time per database;
/// the test reads and arms it from its own. All state is under one `Lock`; a held sync waits
/// outside it, so the test can still read the journal while the flush is stopped.
package final class FaultInjector: IOFaultInjector {
    /// The kinds of call the storage layer makes through an `IOFaultInjector`.
    package enum Operation: Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case write, logWrite, sync, logSync, extend, logTruncate

        package var description: String {
            switch self {
            case .write: "data file write"
            case .logWrite: "log write"
            case .sync: "data file sync"
            case .logSync: "log sync"
            case .extend: "data file growth"
            case .logTruncate: "log cut"
            }
        }
    }

    /// One call, as the injector saw it.
    package struct Step: Sendable, CustomStringConvertible {
        package let operation: Operation
        /// Where a write starts; the length a growth or a cut asks for; 0 for a sync.
        package let offset: UInt64
        /// A write's length in bytes; 0 for the others.
        package let length: Int
        /// Whether the call ran inside a task (inline, on a writer's thread) rather than on a
        /// thread of its own (a dispatch queue's).
        package let inTask: Bool
        /// What the injector made of it: nil if the call went ahead.
        package let fault: WriteFault?

        package var description: String {
            "\(operation) at \(offset)" + (length > 0 ? ", \(length) bytes" : "") + (fault.map { ", \($0)" } ?? "")
        }
    }

    /// What follows an injected fault.
    package enum Persistence: Sendable {
        /// Only that call fails; later ones go ahead.
        case once
        /// Every later call of the same kinds fails too (a torn write is torn once, then fails
        /// with its errno) until ``heal()``: a disk that stays full, or keeps failing its syncs.
        case untilHealed
        /// Every later call of any kind fails (EIO; growth ENOSPC), for good: the process died
        /// right after the fault, so nothing it does on its way out reaches the file.
        case dead
    }

    /// One armed fault: the `skip + 1`-th call among `operations` that `matching` accepts.
    private struct Rule {
        let operations: Set<Operation>
        let matching: (@Sendable (Step) -> Bool)?
        var skip: Int
        var fault: WriteFault
        let persistence: Persistence
    }

    private struct State {
        var journal: [Step] = []
        var mark = 0
        var rules: [Rule] = []
        var dead = false
        var holdNextSync = false
        var syncObserver: (@Sendable (Operation) -> Void)?
    }

    private let state = Lock(State())
    // The gate: a held sync signals `syncHeld`, then waits for `syncReleased`.
    private let syncHeld = DispatchSemaphore(value: 0)
    private let syncReleased = DispatchSemaphore(value: 0)

    package init() {}

    // MARK: Arming faults

    /// Call number `index` (0: the next) among `operations`, counting only those `matching`
    /// accepts, behaves as `fault` — for a call other than a write, it fails with the fault's
    /// errno — and `persistence` says what comes after it. Rules are independent; each counts
    /// from when it is armed.
    package func inject(_ fault: WriteFault, into operations: Set<Operation>, after index: Int = 0,
                        matching: (@Sendable (Step) -> Bool)? = nil, then persistence: Persistence = .once) {
        precondition(fault != .none, "inject a fault, not .none")
        state.withLock { $0.rules.append(Rule(operations: operations, matching: matching, skip: index, fault: fault, persistence: persistence)) }
    }

    /// Data file write number `index` (0: the next) behaves as `fault`; the others go ahead.
    package func failWrite(after index: Int = 0, with fault: WriteFault) {
        inject(fault, into: [.write], after: index)
    }

    /// Sync number `index` (0: the next) of either file fails with `errno`.
    package func failSync(after index: Int = 0, errno: Int32 = EIO) {
        inject(.fail(errno: errno), into: .anySync, after: index)
    }

    /// Write number `index` (0: the next) of either file behaves as `fault`, and every write after
    /// it fails until ``heal()``: a disk that fills and stays full.
    package func failWrites(after index: Int = 0, with fault: WriteFault) {
        inject(fault, into: .anyWrite, after: index, then: .untilHealed)
    }

    /// Every sync of either file fails with `errno` until ``heal()``.
    package func failSyncs(errno: Int32 = EIO) {
        inject(.fail(errno: errno), into: .anySync, then: .untilHealed)
    }

    /// Disarms every fault not yet injected and ends those lasting until healed (space was
    /// freed). A dead disk stays dead.
    package func heal() { state.withLock { $0.rules = [] } }

    /// From now on every call fails, as after ``Persistence/dead``.
    package func die() { state.withLock { $0.dead = true } }

    package var isDead: Bool { state.withLock { $0.dead } }

    /// Tells `observer` of every sync of either file that is about to go ahead (every write
    /// before it is complete), on the syncing thread, outside the injector's lock.
    package func observeSyncs(_ observer: @escaping @Sendable (Operation) -> Void) {
        state.withLock { $0.syncObserver = observer }
    }

    /// Whether `step` writes one of the two meta pages at the start of the data file.
    package static func writesMetaPage(_ step: Step) -> Bool {
        step.operation == .write && step.offset < UInt64(2 * PageLayout.pageSize)
    }

    // MARK: The gate

    /// The next sync of either file stops until ``releaseSync()``.
    package func holdNextSync() { state.withLock { $0.holdNextSync = true } }

    /// Returns once the held sync has stopped at the gate (the flush is in flight). Waits on a
    /// dispatch thread, so no thread of the cooperative pool blocks.
    package func waitUntilSyncIsHeld() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { self.syncHeld.wait(); continuation.resume() }
        }
    }

    /// Lets the held sync go on.
    package func releaseSync() { syncReleased.signal() }

    // MARK: The journal

    /// Every call so far, in order.
    package var steps: [Step] { state.withLock { $0.journal } }

    /// Marks the journal's end, for ``stepsSinceMark(_:)``.
    package func mark() { state.withLock { $0.mark = $0.journal.count } }

    /// The calls among `operations` since ``mark()`` (since the start if never marked).
    package func stepsSinceMark(_ operations: Set<Operation> = .every) -> [Step] {
        state.withLock { state in state.journal[state.mark...].filter { operations.contains($0.operation) } }
    }

    /// How many calls among `operations` went ahead (were not failed).
    package func count(_ operations: Set<Operation>) -> Int {
        state.withLock { $0.journal.reduce(0) { $0 + (operations.contains($1.operation) && $1.fault == nil ? 1 : 0) } }
    }

    /// Data file writes that went ahead.
    package var writeCount: Int { count([.write]) }
    /// Syncs of either file that went ahead.
    package var syncCount: Int { count(.anySync) }
    /// The bytes of the data file writes that went ahead.
    package var bytesWritten: Int {
        state.withLock { $0.journal.reduce(0) { $0 + ($1.operation == .write && $1.fault == nil ? $1.length : 0) } }
    }
    /// How many calls were failed or torn.
    package var faultCount: Int { state.withLock { $0.journal.count { $0.fault != nil } } }
    /// The last call that was failed or torn.
    package var lastFault: Step? { state.withLock { $0.journal.last { $0.fault != nil } } }

    // MARK: IOFaultInjector

    package func beforeWrite(offset: UInt64, length: Int) -> WriteFault { writeFault(.write, offset: offset, length: length) }
    package func beforeLogWrite(offset: UInt64, length: Int) -> WriteFault { writeFault(.logWrite, offset: offset, length: length) }
    package func beforeSync() -> Int32? { sync(.sync) }
    package func beforeLogSync() -> Int32? { sync(.logSync) }
    package func beforeLogTruncate(length: UInt64) -> Int32? { errno(of: record(.logTruncate, offset: length)) }
    package func beforeExtend(toLength length: UInt64) -> Int32? { errno(of: record(.extend, offset: length)) }

    private func writeFault(_ operation: Operation, offset: UInt64, length: Int) -> WriteFault {
        record(operation, offset: offset, length: length) ?? .none
    }

    private func sync(_ operation: Operation) -> Int32? {
        if state.withLock({ state in defer { state.holdNextSync = false }; return state.holdNextSync }) {
            syncHeld.signal()
            syncReleased.wait()
        }
        let fault = record(operation)
        if fault == nil, let observer = state.withLock({ $0.syncObserver }) { observer(operation) }
        return errno(of: fault)
    }

    private func errno(of fault: WriteFault?) -> Int32? {
        switch fault {
        case nil, .none?: nil
        case .fail(let code)?, .partial(_, let code)?: code
        }
    }

    /// Journals the call and returns its fault, nil if it goes ahead.
    private func record(_ operation: Operation, offset: UInt64 = 0, length: Int = 0) -> WriteFault? {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        return state.withLock { state in
            let call = Step(operation: operation, offset: offset, length: length, inTask: inTask, fault: nil)
            var fault: WriteFault?
            if state.dead {
                fault = .fail(errno: operation == .extend ? ENOSPC : EIO)
            } else {
                var spent: [Int] = []
                for index in state.rules.indices {
                    let rule = state.rules[index]
                    guard rule.operations.contains(operation), rule.matching?(call) ?? true else { continue }
                    if rule.skip > 0 { state.rules[index].skip -= 1; continue }
                    guard fault == nil else { continue }
                    fault = rule.fault
                    switch rule.persistence {
                    case .once:
                        spent.append(index)
                    case .untilHealed:
                        if case .partial(_, let code) = rule.fault { state.rules[index].fault = .fail(errno: code) }
                    case .dead:
                        spent.append(index)
                        state.dead = true
                    }
                }
                for index in spent.reversed() { state.rules.remove(at: index) }
            }
            state.journal.append(Step(operation: operation, offset: offset, length: length, inTask: inTask, fault: fault))
            return fault
        }
    }
}

extension Set<FaultInjector.Operation> {
    /// Writes of either file.
    package static var anyWrite: Self { [.write, .logWrite] }
    /// Syncs of either file.
    package static var anySync: Self { [.sync, .logSync] }
    /// Every kind of call.
    package static var every: Self { Set(FaultInjector.Operation.allCases) }
}
