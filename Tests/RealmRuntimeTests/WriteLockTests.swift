import Dispatch
import Foundation
import Testing
import RealmRuntime

/// A list appended to from several tasks.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Lock<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// Waits (yielding, never sleeping) until `condition` holds; the lock's own counters say when
/// a waiter has registered, so no timing is guessed.
func eventually(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite struct WriteLockTests {
    @Test func asyncWaitersAreServedInArrivalOrder() async throws {
        let lock = WriteLock()
        try await lock.lock()
        let order = Recorder<Int>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 {
                group.addTask {
                    try await lock.lock()
                    order.append(index)
                    lock.unlock()
                }
                await eventually { lock.waiterCount == index + 1 }  // registered before the next
            }
            lock.unlock()
            try await group.waitForAll()
        }
        #expect(order.all == [0, 1, 2, 3, 4])
        #expect(!lock.isLocked)
    }

    @Test func cancellingAWaiterRemovesItWithoutTheLock() async throws {
        let lock = WriteLock()
        try await lock.lock()
        let waiter = Task { try await lock.lock() }
        await eventually { lock.waiterCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(lock.waiterCount == 0 && lock.isLocked, "still held by its owner, nobody waits")
        lock.unlock()
        #expect(!lock.isLocked)
        // A task cancelled before it asks never gets the lock either.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await lock.lock()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(!lock.isLocked)
    }

    @Test func blockingAndAsyncWaitersShareOneQueue() async throws {
        let lock = WriteLock()
        try await lock.lock()
        let order = Recorder<String>()
        let blockedDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            lock.lockBlocking()
            order.append("thread")
            lock.unlock()
            blockedDone.signal()
        }
        await eventually { lock.waiterCount == 1 }
        let asyncWaiter = Task {
            try await lock.lock()
            order.append("task")
            lock.unlock()
        }
        await eventually { lock.waiterCount == 2 }
        lock.unlock()
        try await asyncWaiter.value
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { blockedDone.wait(); continuation.resume() }
        }
        #expect(order.all == ["thread", "task"])
    }
}
