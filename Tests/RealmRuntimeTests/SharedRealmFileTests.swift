import Foundation
import Testing
@testable import RealmRuntime
import RealmTestSupport

/// The process's registry of open files (`SharedRealmFile.open`): one instance per file, and an
/// open under way holds up only opens of the same file.
@Suite struct SharedRealmFileTests {
    /// An open that takes long (here: its first sync held at a gate; in production a log to
    /// replay, or a lock file another process holds for a moment) once held the registry's lock
    /// throughout, so every other file of the process waited for it. Now another file opens while
    /// it is held, and a second open of the same file waits for it and shares its instance.
    @Test func anOpenUnderWayHoldsUpOnlyItsOwnFile() async throws {
        let directory = try TemporaryDirectory()
        let slow = directory.path("slow.realm"), other = directory.path("other.realm")
        let disk = FaultInjector()
        disk.holdNextSync()
        SharedRealmFile.injectFaults(disk, forPath: slow)
        defer { SharedRealmFile.injectFaults(nil, forPath: slow) }

        let slowOpen = BlockingCall { Result { try SharedRealmFile.open(.file(slow), readOnly: false) } }
        await disk.waitUntilSyncIsHeld()
        let sameOpen = BlockingCall { Result { try SharedRealmFile.open(.file(slow), readOnly: false) } }
        let otherOpen = BlockingCall { Result { try SharedRealmFile.open(.file(other), readOnly: false) } }
        // Raced against a deadline: before the fix the other open waited for the held one,
        // which waits for this test — a deadlock, not a failure.
        #expect(await otherOpen.returns(within: 60), "another file opened while an open of this one was held")
        disk.releaseSync()
        let first = try await slowOpen.value().get(), second = try await sameOpen.value().get()
        #expect(first === second, "two opens of one file share one instance")
        #expect(SharedRealmFile.alreadyOpen(.file(slow)) === first)
        _ = try await otherOpen.value().get()
    }
}
