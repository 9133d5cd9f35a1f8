import Foundation
import Testing
import RealmRuntime

/// The write pipeline's ordering rules, on an in-memory file: what a failed commit leaves
/// behind, when a changed schema becomes visible to the next writer and to readers, and what a
/// cancelled writer holds.
@Suite struct WritePipelineTests {
    static func file(maximumActiveVersions: Int? = nil) throws -> SharedRealmFile {
        try SharedRealmFile.open(.inMemory("WritePipelineTests-\(UUID().uuidString)"), readOnly: false,
                                 maximumActiveVersions: maximumActiveVersions)
    }

    static func changes(of write: WritePipeline.OpenWrite) -> CommitChanges {
        CommitChanges(rows: write.transaction.changeLog, silencedObservers: [])
    }

    /// A catalog with one more table, created in `write`.
    static func schema(adding className: String, in write: WritePipeline.OpenWrite) throws -> SchemaCatalog {
        var stored = write.schema.stored
        stored.tables.append(try write.transaction.createTable(
            ObjectSchemaInfo(className: className, properties: [PropertyInfo(name: "name", kind: .string)])))
        return SchemaCatalog(stored)
    }

    @Test func aChangedSchemaReachesTheNextWriterAtOnceAndReadersOnceItIsDurable() async throws {
        let file = try Self.file()
        let first = try await file.writes.begin()
        let schema = try Self.schema(adding: "Dog", in: first)
        let transaction = try file.writes.commit(first, schema: schema, changes: Self.changes(of: first))
        #expect(!file.writes.lock.isLocked, "the lock passes on at prepare, before the sync")

        // Prepared, not yet durable: the next writer builds on it, readers do not see it.
        #expect(try file.beginRead().schema.tables["Dog"] == nil)
        let second = try await file.writes.begin()
        #expect(second.schema.tables["Dog"] != nil)
        file.writes.abort(second)
        #expect(!file.writes.lock.isLocked)

        try await file.writes.waitUntilDurable(transaction)
        let read = try file.beginRead()
        #expect(read.reader.transaction == transaction && read.schema.tables["Dog"] != nil)
    }

    /// Stands in for the notifier, so commits' logs wait in the feed until taken.
    final class Processor: VersionObserver {
        func versionDidBecomeDurable(_ version: TransactionID) {}
    }

    @Test func aCommitThatCannotBePreparedLeavesNothingAndReleasesTheLock() async throws {
        // One active version allowed, and a reader pins the current one: preparing must fail.
        let file = try Self.file(maximumActiveVersions: 1)
        let processor = try file.changeFeed.processor { Processor() }
        do {
            let pinned = try file.beginRead()
            let write = try await file.writes.begin()
            let schema = try Self.schema(adding: "Dog", in: write)
            _ = withExtendedLifetime(pinned) {
                #expect(throws: RuntimeError.self) {
                    try file.writes.commit(write, schema: schema, changes: Self.changes(of: write))
                }
            }
        }
        #expect(!file.writes.lock.isLocked)

        // Nothing of it exists: the next writer starts from the old schema and can commit.
        let next = try file.writes.beginBlocking()
        #expect(next.schema.tables["Dog"] == nil)
        let transaction = try file.writes.commit(next, schema: nil, changes: Self.changes(of: next))
        try file.writes.waitUntilDurableBlocking(transaction)
        #expect(try file.beginRead().reader.transaction == transaction)
        // Only the commit that happened reaches the notifier (the failed one's log was dropped).
        #expect(file.changeFeed.takeChanges(through: transaction).count == 1)
        _ = processor
    }

    @Test func aWriterCancelledWhileWaitingHoldsNothing() async throws {
        let file = try Self.file()
        let holder = try await file.writes.begin()
        let waiter = Task {
            let write = try await file.writes.begin()
            file.writes.abort(write)
        }
        while file.writes.lock.waiterCount == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(file.writes.lock.waiterCount == 0)
        file.writes.abort(holder)
        #expect(!file.writes.lock.isLocked)
    }
}
