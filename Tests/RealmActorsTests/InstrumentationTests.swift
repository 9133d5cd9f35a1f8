import Foundation
import Testing
import RealmActors
@testable import RealmRuntime
import RealmTestSupport

final class InstrumentedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}

/// Collects the events an instrumentation reports, and lets a test wait for one.
final class EventLog: Sendable {
    private let events = Lock<[Realm.Event]>([])
    private let stream: AsyncStream<Realm.Event>
    private let continuation: AsyncStream<Realm.Event>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func instrumentation(heldVersionAlarm: Duration = .seconds(60), statisticsInterval: Duration = .seconds(1)) -> Realm.Instrumentation {
        Realm.Instrumentation(heldVersionAlarm: heldVersionAlarm, statisticsInterval: statisticsInterval) { event in
            self.events.withLock { $0.append(event) }
            self.continuation.yield(event)
        }
    }

    /// `configuration` reporting to this log.
    func instrumenting(_ configuration: Realm.Configuration) -> Realm.Configuration {
        var configuration = configuration
        configuration.instrumentation = instrumentation()
        return configuration
    }

    var all: [Realm.Event] { events.withLock { $0 } }

    /// The first event (reported so far or later) that `match` accepts.
    func first<T>(_ match: (Realm.Event) -> T?) async -> T? {
        for await event in stream {
            if let found = match(event) { return found }
        }
        return nil
    }

    var flushedCommits: Int { all.reduce(0) { if case .flushed(let commits, _, _) = $1 { $0 + commits } else { $0 } } }
    var committed: [UInt64] { all.compactMap { if case .committed(let version, _) = $0 { version } else { nil } } }
}

/// The instrumentation hook: each event is reported when it happens, with the right numbers —
/// commits counted once per flush across concurrent writers, a snapshot held too long reported
/// once, the notifier's lag after a change stream's delivery, compaction and migration.
@Suite(.timeLimit(.minutes(2))) struct InstrumentationTests {
    static func configuration(_ directory: TemporaryDirectory, _ log: EventLog, heldVersionAlarm: Duration = .seconds(60)) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("instrumented.realm"),
                                                objectTypes: [InstrumentedItem.self])
        configuration.instrumentation = log.instrumentation(heldVersionAlarm: heldVersionAlarm)
        return configuration
    }

    @Test func opensCommitsAndFlushesAreReported() throws {
        let directory = try TemporaryDirectory()
        let log = EventLog()
        let realm = try Realm(configuration: Self.configuration(directory, log))
        #expect(log.all.contains { if case .opened = $0 { true } else { false } })
        for id in 0..<5 {
            try realm.write { realm.add(InstrumentedItem(value: ["id": id])) }
        }
        #expect(log.committed.count == 6)  // the schema's commit at open, then five
        #expect(log.committed == log.committed.sorted())
        #expect(log.flushedCommits == 6)
        let latencies = log.all.compactMap { if case .committed(_, let latency) = $0 { latency } else { nil } }
        #expect(latencies.allSatisfy { $0 > .zero })
        let statistics = log.all.compactMap { if case .fileStatistics(let statistics) = $0 { statistics } else { nil } }
        let first = try #require(statistics.first)  // the first flush always reports; later ones once a second
        #expect(first.fileBytes == first.liveBytes + first.freeBytes + first.pinnedBytes)
        #expect(first.version > 0)
    }

    @Test func groupCommitsCountEveryCommitOnce() async throws {
        let directory = try TemporaryDirectory()
        let log = EventLog()
        let configuration = Self.configuration(directory, log)
        _ = try await Realm.open(configuration: configuration)
        let writers = 8, commitsEach = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let realm = try await Realm.open(configuration: configuration)
                    for index in 0..<commitsEach {
                        try await realm.asyncWrite { realm.add(InstrumentedItem(value: ["id": writer * 1_000 + index])) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(log.all.filter { if case .opened = $0 { true } else { false } }.count == 1 + writers)  // one per handle
        #expect(log.flushedCommits == 1 + writers * commitsEach)
        #expect(log.committed.count == 1 + writers * commitsEach)
        #expect(Set(log.committed).count == log.committed.count)
    }

    @Test func aSnapshotHeldTooLongIsReportedOnce() throws {
        let directory = try TemporaryDirectory()
        let log = EventLog()
        let realm = try Realm(configuration: Self.configuration(directory, log, heldVersionAlarm: .zero))
        try realm.write { realm.add(InstrumentedItem(value: ["id": 1])) }
        let frozen = realm.freeze()  // pins the version
        let pinned = try #require(log.committed.last)
        for id in 2..<5 {
            try realm.write { realm.add(InstrumentedItem(value: ["id": id])) }
        }
        // With no grace at all, a writer's own handle (which reads the version before its commit
        // until the commit is durable) counts too; each version is reported at most once, and the
        // frozen one, which stays pinned, is reported with the bytes it holds.
        let held = log.all.compactMap { if case .versionHeld(let version, _, let bytes) = $0 { (version, bytes) } else { nil } }
        #expect(Set(held.map(\.0)).count == held.count)
        let frozenReport = try #require(held.first { $0.0 == pinned })
        #expect(frozenReport.1 > 0)
        withExtendedLifetime(frozen) {}
    }

    @Test func noVersionIsReportedHeldWithinTheAlarm() throws {
        let directory = try TemporaryDirectory()
        let log = EventLog()
        let realm = try Realm(configuration: Self.configuration(directory, log))
        let frozen = realm.freeze()
        for id in 0..<5 { try realm.write { realm.add(InstrumentedItem(value: ["id": id])) } }
        #expect(!log.all.contains { if case .versionHeld = $0 { true } else { false } })
        withExtendedLifetime(frozen) {}
    }

    @Test func theNotifiersLagIsReportedForAnObservedCommit() async throws {
        let directory = try TemporaryDirectory()
        let log = EventLog()
        let realm = try await Realm.open(configuration: Self.configuration(directory, log))
        let changes = realm.objects(InstrumentedItem.self).changes
        var iterator = changes.makeAsyncIterator()
        _ = await iterator.next()  // the initial results
        try await realm.asyncWrite { realm.add(InstrumentedItem(value: ["id": 1])) }
        _ = await iterator.next()  // the update
        let committed = try #require(log.committed.last)
        let lag = await log.first { event -> Duration? in
            if case .changesComputed(let version, let lag) = event, version >= committed { return lag }
            return nil
        }
        #expect(lag.map { $0 >= .zero } == true)
    }

    /// Another process's commit (the pair of `FollowerTests`: two paths to one file, two
    /// attachments) reaches a read-only process's change stream; its notifier's lag is reported
    /// there too, measured from the adoption.
    @Test func theNotifiersLagIsReportedForAnotherProcesssCommit() async throws {
        let pair = try FollowerTests.pair()
        let writerLog = EventLog()
        let writer = try Realm(configuration: writerLog.instrumenting(pair.writer))
        try writer.write { writer.create(FLItem.self, value: ["id": 0, "value": 0]) }
        let log = EventLog()
        let follower = try await Realm.open(configuration: log.instrumenting(pair.follower))
        var changes = follower.objects(FLItem.self).changes.makeAsyncIterator()
        _ = await changes.next()  // the initial results
        let began = ContinuousClock.now
        try writer.write { writer.create(FLItem.self, value: ["id": 1, "value": 1]) }
        let committed = try #require(writerLog.committed.last)
        _ = await changes.next()  // the update
        let lag = await log.first { event -> Duration? in
            if case .changesComputed(let version, let lag) = event, version >= committed { return lag }
            return nil
        }
        // Adopted after the commit began, so the lag is less than the time since then.
        #expect(lag.map { $0 >= .zero && $0 <= ContinuousClock.now - began } == true)
    }

    /// In a process that writes too, the lag of another process's commit is measured from its
    /// adoption, not from this process's own last commit (which the notifier's lag of a foreign
    /// version counted from before).
    @Test func anotherProcesssCommitsLagIsNotCountedFromThisProcesssLastCommit() async throws {
        let pair = try FollowerTests.pair()
        let otherLog = EventLog()
        let other = try Realm(configuration: otherLog.instrumenting(pair.writer))
        let log = EventLog()
        var configuration = log.instrumenting(pair.follower)
        configuration.readOnly = false
        let realm = try await Realm.open(configuration: configuration)
        var changes = realm.objects(FLItem.self).changes.makeAsyncIterator()
        _ = await changes.next()  // the initial results
        try await realm.asyncWrite { realm.create(FLItem.self, value: ["id": 0, "value": 0]) }
        _ = await changes.next()  // this process's commit
        // Time passes between this process's commit and the other's: a lag counted from the
        // former holds it. (A gap in time, not a synchronization.)
        try await Task.sleep(for: .milliseconds(200))
        let began = ContinuousClock.now
        try other.write { other.create(FLItem.self, value: ["id": 1, "value": 1]) }
        let foreign = try #require(otherLog.committed.last)
        _ = await changes.next()  // the other process's commit
        let lag = await log.first { event -> Duration? in
            if case .changesComputed(let version, let lag) = event, version >= foreign { return lag }
            return nil
        }
        #expect(lag.map { $0 >= .zero && $0 <= ContinuousClock.now - began } == true)
    }

    @Test func compactionAndMigrationAreReported() throws {
        let directory = try TemporaryDirectory()
        let setup = EventLog()
        do {
            let realm = try Realm(configuration: Self.configuration(directory, setup))
            try realm.write { for id in 0..<2_000 { realm.add(InstrumentedItem(value: ["id": id, "value": id])) } }
            try realm.write { realm.delete(realm.objects(InstrumentedItem.self).filter("id >= 100")) }
        }
        let log = EventLog()
        var configuration = Self.configuration(directory, log)
        configuration.shouldCompactOnLaunch = { _, _ in true }
        configuration.schemaVersion = 1
        configuration.migrationBlock = { _, _ in }
        let realm = try Realm(configuration: configuration)
        let compacted = log.all.compactMap { if case .compacted(let before, let after, _) = $0 { (before, after) } else { nil } }
        #expect(compacted.count == 1)
        #expect((compacted.first?.1 ?? .max) < (compacted.first?.0 ?? 0))
        #expect(log.all.contains { if case .migrationStarted(0, 1) = $0 { true } else { false } })
        #expect(log.all.contains { if case .migrationFinished = $0 { true } else { false } })
        #expect(realm.objects(InstrumentedItem.self).count == 100)
    }

    @Test func aFailedSyncIsReportedWithItsError() throws {
        let directory = try TemporaryDirectory()
        let log = EventLog()
        let disk = FaultInjector()
        let configuration = Self.configuration(directory, log)
        SharedRealmFile.injectFaults(disk, forPath: configuration.fileURL!.standardizedFileURL.path)
        defer { SharedRealmFile.injectFaults(nil, forPath: configuration.fileURL!.standardizedFileURL.path) }
        let realm = try Realm(configuration: configuration)
        disk.failSyncs(errno: EIO)
        #expect(throws: Realm.Error.self) { try realm.write { realm.add(InstrumentedItem(value: ["id": 1])) } }
        let failures = log.all.compactMap { if case .flushed(_, _, let error?) = $0 { error } else { nil } }
        #expect(failures.count == 1)
        #expect(log.committed.count == 1)  // the schema's commit only
    }
}
