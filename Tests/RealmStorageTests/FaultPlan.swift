import Foundation
@testable import RealmStorage

/// Fault injection for tests: counts syncs, and can fail or tear the n-th write or sync.
final class FaultPlan: IOFaultInjector, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var writes = 0
    private var syncs = 0
    private var failWriteAt: Int?
    private var writeFault: WriteFault = .none
    private var failSyncAt: Int?

    var syncCount: Int { lock.withLock { syncs } }
    var writeCount: Int { lock.withLock { writes } }

    /// Makes write number `index` (0-based, counted from now) behave as `fault`.
    func failWrite(after index: Int, with fault: WriteFault) {
        lock.withLock { failWriteAt = writes + index; writeFault = fault }
    }

    func failSync(after index: Int) { lock.withLock { failSyncAt = syncs + index } }

    func beforeWrite(offset: UInt64, length: Int) -> WriteFault {
        lock.withLock {
            defer { writes += 1 }
            return writes == failWriteAt ? writeFault : .none
        }
    }

    func beforeSync() -> Int32? {
        lock.withLock {
            defer { syncs += 1 }
            return syncs == failSyncAt ? EIO : nil
        }
    }
}
