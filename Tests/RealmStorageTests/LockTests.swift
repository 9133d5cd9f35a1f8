import Foundation
import Testing
@testable import RealmStorage

/// `Lock`, the package's lock (a `Mutex`, or a pthread mutex in a `-DREALM_PTHREAD_LOCKS` build):
/// critical sections exclude each other, and the lock is released however the body ends.
@Suite struct LockTests {
    /// A counter read and written back in two steps: without mutual exclusion two threads read
    /// the same value and one increment is lost, so the total comes out short.
    final class Counter: Sendable {
        let state = Lock((value: 0, entries: 0, maximumEntries: 0))

        func increment() {
            state.withLock { state in
                state.entries += 1
                state.maximumEntries = max(state.maximumEntries, state.entries)
                let read = state.value
                state.value = read + 1
                state.entries -= 1
            }
        }
    }

    @Test func criticalSectionsExcludeEachOther() {
        let counter = Counter()
        let threads = 4, increments = 20_000
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                for _ in 0..<increments { counter.increment() }
                group.leave()
            }.start()
        }
        group.wait()
        let (value, maximumEntries) = counter.state.withLock { ($0.value, $0.maximumEntries) }
        #expect(value == threads * increments)
        #expect(maximumEntries == 1)
    }

    struct Refusal: Error {}

    @Test(.timeLimit(.minutes(1))) func aThrowingBodyReleasesTheLockAndKeepsItsChanges() {
        let lock = Lock([Int]())
        #expect(throws: Refusal.self) {
            try lock.withLock { (values: inout [Int]) throws(Refusal) in
                values.append(1)
                throw Refusal()
            }
        }
        // Not released, this would block (a deadlock, or a trap with the pthread mutex's check).
        let values = lock.withLock { values in
            values.append(2)
            return values
        }
        #expect(values == [1, 2])
    }
}
