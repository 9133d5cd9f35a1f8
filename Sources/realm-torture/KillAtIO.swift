import RealmRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An I/O fault injector that, once armed with a count *n*, SIGKILLs this process at the *n*th
/// write, sync or growth of the data file or its log: a kill at a chosen point of one commit's
/// flush, which a kill from outside cannot aim at.
///
/// It also sees warm recovery begin (PROCESSES.md §3.8): a writer that takes write ownership
/// after a dead owner cuts the log at the stored cursor (``beforeLogTruncate(length:)``), syncs
/// it, then writes the published meta over the other slot and syncs the file. `atWarmRecovery`
/// is told each time, and whether this process dies in it (the several-writers torture counts
/// both); with `killInWarmRecovery` *k* the process kills itself at its first one: at the cut
/// itself for *k* = 0, else at the *k*th I/O call after it (the log's sync, the meta's write,
/// the file's sync).
final class KillAtIO: IOFaultInjector {
    /// I/O calls left before the kill; 0 while disarmed.
    let remaining = Atomic<Int>(0)
    let killInWarmRecovery: Int?
    let atWarmRecovery: (@Sendable (_ killing: Bool) -> Void)?

    init(killInWarmRecovery: Int? = nil, atWarmRecovery: (@Sendable (_ killing: Bool) -> Void)? = nil) {
        self.killInWarmRecovery = killInWarmRecovery
        self.atWarmRecovery = atWarmRecovery
    }

    func arm(_ count: Int) { remaining.store(count, ordering: .sequentiallyConsistent) }

    private func tick() {
        guard remaining.load(ordering: .sequentiallyConsistent) > 0 else { return }
        if remaining.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0 { kill(getpid(), SIGKILL) }
    }

    func beforeWrite(offset: UInt64, length: Int) -> WriteFault { tick(); return .none }
    func beforeLogWrite(offset: UInt64, length: Int) -> WriteFault { tick(); return .none }
    func beforeSync() -> Int32? { tick(); return nil }
    func beforeLogSync() -> Int32? { tick(); return nil }
    func beforeExtend(toLength length: UInt64) -> Int32? { tick(); return nil }

    func beforeLogTruncate(length: UInt64) -> Int32? {
        atWarmRecovery?(killInWarmRecovery != nil)
        if let calls = killInWarmRecovery {
            if calls == 0 { kill(getpid(), SIGKILL) }
            arm(calls)
        }
        return nil
    }
}
