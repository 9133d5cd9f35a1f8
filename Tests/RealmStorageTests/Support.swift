import Foundation
@testable import RealmStorage

/// A fresh directory per test, removed when released.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("RealmStorageTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String = "test.realm") -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Deterministic pseudo-random numbers (SplitMix64), so a failing seed can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A value whose bytes are derived from the key and a version, so any mix-up is visible.
func testValue(key: UInt64, version: UInt64, length: Int) -> [UInt8] {
    var generator = SeededGenerator(seed: key &* 31 &+ version)
    return (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
}

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
