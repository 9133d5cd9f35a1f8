import Foundation
import Testing
@testable import RealmRuntime
import RealmTestSupport

/// The ``Notifier`` actor with real commits through the file's ``ChangeFeed``: registering and
/// removing observers, versions delivered in order, versions made before a consumer asks
/// coalesced into one element, silenced commits, observers made at an older version, and the
/// order of the notifier and autorefreshing handles. Every wait is for a delivery (`next`) or
/// for a registration, which first brings the notifier to the newest durable version — never a
/// sleep.
///
/// A regression here can show as a consumer that is never woken: the suite's time limit turns
/// that into a failure.
@Suite(.timeLimit(.minutes(1))) struct NotifierTests {
    static let classes = [ObjectSchemaInfo(className: "Item", properties: [PropertyInfo(name: "value", kind: .int)])]

    /// What the notifier did with one tracker, readable from the test while the tracker lives on
    /// the notifier.
    final class TrackerLog: Sendable {
        struct Advance: Sendable {
            let version: TransactionID
            let silent: Bool
            /// The trees the version's log touched; nil when it had no log.
            let touched: Set<TreeID>?
            /// What `advance` answered: an element may be pending.
            let pending: Bool
        }

        private let advances = Lock<[Advance]>([])
        /// An element each time the consumer asked for an element and there was none: it is
        /// about to wait.
        let foundNothing: AsyncStream<Void>
        private let foundNothingContinuation: AsyncStream<Void>.Continuation

        init() { (foundNothing, foundNothingContinuation) = AsyncStream.makeStream() }

        var all: [Advance] { advances.withLock { $0 } }
        var versions: [TransactionID] { all.map(\.version) }
        func append(_ advance: Advance) { advances.withLock { $0.append(advance) } }
        func didFindNothing() { foundNothingContinuation.yield() }
    }

    /// A real tracker, with what the notifier asks of it recorded in `log`.
    final class RecordingTracker: ChangeTracker {
        let tracker: any ChangeTracker
        let log: TrackerLog

        init(_ tracker: any ChangeTracker, log: TrackerLog) {
            self.tracker = tracker
            self.log = log
        }

        func initialElement() -> ChangeElement? { tracker.initialElement() }

        func advance(_ version: VersionContext, silent: Bool) -> Bool {
            let pending = tracker.advance(version, silent: silent)
            log.append(.init(version: version.snapshot.transaction, silent: silent,
                             touched: version.changes.map { Set($0.trees.keys) }, pending: pending))
            return pending
        }

        func takeElement() -> (element: ChangeElement, isLast: Bool)? {
            guard let taken = tracker.takeElement() else {
                log.didFindNothing()
                return nil
            }
            return taken
        }

        func errorElement(_ error: RuntimeError) -> ChangeElement? { tracker.errorElement(error) }
    }

    /// A stream of realm versions, recorded.
    static func registerRealm(_ notifier: Notifier, log: TrackerLog = TrackerLog()) async -> UInt64 {
        await notifier.register { RecordingTracker(RealmChangeTracker(snapshot: $0), log: log) }
    }

    /// A stream of every Item's keys, recorded.
    static func registerItems(_ notifier: Notifier, log: TrackerLog = TrackerLog()) async -> UInt64 {
        await notifier.register { snapshot in
            RecordingTracker(CollectionChangeTracker(query: ObservedQuery(query: ObjectQuery(className: "Item")),
                                                     filter: .everything(depth: ChangeFilter.defaultLinkDepth), snapshot: snapshot),
                             log: log)
        }
    }

    /// Brings the notifier to the newest durable version: a registration catches up first.
    static func catchUp(_ notifier: Notifier) async {
        await notifier.unregister(await registerRealm(notifier))
    }

    static func insert(_ realm: TestRealmFile, silencing: Set<UInt64> = []) async throws -> (commit: TestRealmFile.Commit, key: UInt64) {
        let (commit, key) = try await realm.write(silencing: silencing) { try $0.insert("Item") }
        return (commit, key)
    }

    /// The keys and diff of the next collection element of `id` (nil, with an issue, if it is not one).
    static func nextKeys(_ notifier: Notifier, _ id: UInt64, _ comment: Comment) async -> (keys: [UInt64], diff: CollectionDiff)? {
        guard case .collection(_, _, let keys, let diff?)? = await notifier.next(id) else {
            Issue.record("no collection change: \(comment)")
            return nil
        }
        return (keys, diff)
    }

    /// The version of the next realm element of `id` (nil, with an issue, if it is not one).
    static func nextVersion(_ notifier: Notifier, _ id: UInt64, _ comment: Comment) async -> TransactionID? {
        guard case .realm(let version)? = await notifier.next(id) else {
            Issue.record("no realm element: \(comment)")
            return nil
        }
        return version.transaction
    }

    @Test func eachVersionIsDeliveredInOrder() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        #expect(try Notifier.shared(for: realm.file) === notifier, "one notifier per file")
        let items = await Self.registerItems(notifier)
        let versions = await Self.registerRealm(notifier)
        #expect(realm.file.changeFeed.numberOfObservers == 2)
        guard case .collection(_, _, let keys, nil)? = await notifier.next(items) else {
            Issue.record("the collection's initial element first")
            return
        }
        #expect(keys.isEmpty)
        for round in 0..<5 {
            let (commit, key) = try await Self.insert(realm)
            #expect(await Self.nextVersion(notifier, versions, "round \(round)") == commit.transaction, "round \(round)")
            let change = await Self.nextKeys(notifier, items, "round \(round)")
            #expect(change?.keys.last == key && change?.diff.insertions == [round], "round \(round)")
        }
    }

    @Test func versionsMadeBeforeTheConsumerAsksAreOneElement() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let itemsLog = TrackerLog()
        let versions = await Self.registerRealm(notifier)
        let items = await Self.registerItems(notifier, log: itemsLog)
        _ = await notifier.next(items)  // the initial element
        let first = try await Self.insert(realm)
        let second = try await Self.insert(realm)
        try await realm.write { try $0.delete(first.key, from: "Item") }
        let third = try await Self.insert(realm)
        await Self.catchUp(notifier)
        #expect(itemsLog.versions.last == third.commit.transaction, "every version taken in")

        #expect(await Self.nextVersion(notifier, versions, "coalesced") == third.commit.transaction, "the newest version, once")
        let change = await Self.nextKeys(notifier, items, "coalesced")
        #expect(change?.keys == [second.key, third.key] && change?.diff.insertions == [0, 1] && change?.diff.deletions == [],
                "one change from the keys delivered; the object that came and went is not in it")
        // Nothing is left over: the next element is the next commit's.
        let next = try await Self.insert(realm).commit
        #expect(await Self.nextVersion(notifier, versions, "after") == next.transaction)
    }

    /// A silenced commit moves its observer's baseline without an element, and only its. Commits
    /// made durable by one flush are one version: silent for an observer only if every one of
    /// them silenced it.
    @Test func aVersionIsSilentForAnObserverOnlyIfEveryCommitInItSilencedIt() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let log = TrackerLog()
        let observed = await Self.registerItems(notifier, log: log)
        let witness = await Self.registerItems(notifier)
        _ = await notifier.next(observed)
        _ = await notifier.next(witness)
        var keys: [UInt64] = []
        /// One version of a commit per set of silenced observers, and the witness's keys after it.
        func version(silencing: [Set<UInt64>]) async throws -> (transaction: TransactionID, witnessKeys: [UInt64]?) {
            var made: [TestRealmFile.Commit] = []
            for silenced in silencing {
                let (commit, key) = try await realm.commit(silencing: silenced) { try $0.insert("Item") }
                made.append(commit)
                keys.append(key)
            }
            try await realm.file.writes.waitUntilDurable(made.last!.transaction)
            return (made.last!.transaction, await Self.nextKeys(notifier, witness, "the witness is told")?.keys)
        }

        let quiet = try await version(silencing: [[observed]])
        #expect(quiet.witnessKeys == keys, "the other observer is told")
        try #require(log.all.last.map { [$0.version == quiet.transaction, $0.silent, $0.pending] } == [true, true, false],
                     "advanced silently")

        let mixed = try await version(silencing: [[observed], [witness]])
        try #require(log.all.last.map { [$0.version == mixed.transaction, $0.silent] } == [true, false],
                     "both commits in one version; one did not silence the observer")
        let change = await Self.nextKeys(notifier, observed, "mixed")
        #expect(change?.keys == keys && change?.diff.insertions == [1, 2], "both commits reported, not the quiet one before")

        let allQuiet = try await version(silencing: [[observed], [observed, witness]])
        try #require(log.all.last.map { [$0.version == allQuiet.transaction, $0.silent] } == [true, true],
                     "every commit silenced the observer")
        let loud = try await Self.insert(realm)
        keys.append(loud.key)
        let later = await Self.nextKeys(notifier, observed, "after the quiet version")
        #expect(later?.keys == keys && later?.diff.insertions == [5], "only the later insertion is reported")
    }

    @Test func anObserverRemovedGetsNothingMore() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let (removedLog, keptLog) = (TrackerLog(), TrackerLog())
        let removed = await Self.registerRealm(notifier, log: removedLog)
        let kept = await Self.registerRealm(notifier, log: keptLog)
        // An element pending when the observer is removed is dropped.
        let pending = try await Self.insert(realm).commit
        await Self.catchUp(notifier)
        #expect(removedLog.versions == [pending.transaction])
        _ = await notifier.next(kept)  // taken by the kept observer only
        await notifier.unregister(removed)
        #expect(realm.file.changeFeed.numberOfObservers == 1)
        #expect(await notifier.next(removed) == nil)
        // Later versions reach the kept observer only.
        let later = try await Self.insert(realm).commit
        #expect(await Self.nextVersion(notifier, kept, "kept") == later.transaction)
        #expect(removedLog.versions == [pending.transaction], "the removed tracker is not advanced")
        #expect(keptLog.versions == [pending.transaction, later.transaction])
        await notifier.unregister(kept)
        #expect(realm.file.changeFeed.numberOfObservers == 0)
    }

    /// `notifier.next(id)` in a task of its own, and a stream that yields what it returned. The
    /// stream ends if the test is cancelled (by its time limit): a consumer never woken then
    /// fails the test instead of hanging it.
    static func consumer(_ notifier: Notifier, _ id: UInt64) -> (task: Task<Void, Never>, returned: AsyncStream<ChangeElement?>) {
        let (returned, continuation) = AsyncStream.makeStream(of: ChangeElement?.self)
        let task = Task {
            continuation.yield(await notifier.next(id))
            continuation.finish()
        }
        return (task, returned)
    }

    /// Whether the consumer's `next` returned nil: its stream ended.
    static func ended(_ returned: AsyncStream<ChangeElement?>) async -> Bool {
        var iterator = returned.makeAsyncIterator()
        guard let element = await iterator.next() else { return false }  // the test was cancelled
        return element == nil
    }

    @Test func aWaitingConsumerIsWokenWhenItsObserverIsRemoved() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let log = TrackerLog()
        let id = await Self.registerRealm(notifier, log: log)
        let consumer = Self.consumer(notifier, id)
        var foundNothing = log.foundNothing.makeAsyncIterator()
        await foundNothing.next()  // the consumer found no element: it waits, or is about to
        await notifier.unregister(id)
        #expect(await Self.ended(consumer.returned))
        #expect(realm.file.changeFeed.numberOfObservers == 0)
    }

    @Test(arguments: [false, true])
    func aCancelledConsumerEndsItsObserver(waiting: Bool) async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let log = TrackerLog()
        let id = await Self.registerRealm(notifier, log: log)
        let consumer = Self.consumer(notifier, id)
        if waiting {
            var foundNothing = log.foundNothing.makeAsyncIterator()
            await foundNothing.next()
        }
        consumer.task.cancel()
        #expect(await Self.ended(consumer.returned))
        #expect(realm.file.changeFeed.numberOfObservers == 0)
        _ = try await Self.insert(realm)
        #expect(await notifier.next(id) == nil, "ended for good")
    }

    /// A stream made from a live handle's older version is brought up to date with the logs the
    /// notifier kept — or, when it no longer keeps them all, by comparing values (no log).
    @Test func anObserverFromAnOlderVersionGetsTheKeptLogs() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let table = realm.table("Item")
        let baseline = try realm.newest()
        let versions = await Self.registerRealm(notifier)
        for _ in 0..<3 {
            _ = try await Self.insert(realm)
            _ = await notifier.next(versions)  // processed one at a time
        }
        let log = TrackerLog()
        let id = await notifier.register(baseline: baseline) { RecordingTracker(RealmChangeTracker(snapshot: baseline), log: log) }
        let advance = try #require(log.all.first)
        #expect(log.all.count == 1 && advance.touched == [table.tree] && advance.pending, "the three commits' logs, merged")
        #expect(await Self.nextVersion(notifier, id, "from the baseline") == realm.file.database.latestTransaction)

        // More versions than the notifier keeps logs of: no log.
        for _ in 0..<70 {
            _ = try await Self.insert(realm)
            _ = await notifier.next(versions)
        }
        let lateLog = TrackerLog()
        _ = await notifier.register(baseline: baseline) { RecordingTracker(RealmChangeTracker(snapshot: baseline), log: lateLog) }
        #expect(lateLog.all.count == 1 && lateLog.all.first?.touched == nil)
        // An observer made at the notifier's version is not advanced at all.
        let currentLog = TrackerLog()
        let current = try realm.newest()
        _ = await notifier.register(baseline: current) { RecordingTracker(RealmChangeTracker(snapshot: current), log: currentLog) }
        #expect(currentLog.all.isEmpty)
    }

    /// Told of each new version once the notifier has processed it, with whether the tracker
    /// had it by then.
    final class Handle: VersionObserver {
        let log: TrackerLog
        let told: AsyncStream<(version: TransactionID, trackerHadIt: Bool)>.Continuation

        init(_ log: TrackerLog, _ told: AsyncStream<(version: TransactionID, trackerHadIt: Bool)>.Continuation) {
            self.log = log
            self.told = told
        }

        func versionDidBecomeDurable(_ version: TransactionID) {
            told.yield((version, log.versions.contains(version)))
        }
    }

    /// Autorefreshing handles advance to a version only after the notifier's trackers have it,
    /// so what an observer is told and what its handle reads agree.
    @Test func versionObserversAreToldAfterTheTrackersAdvanced() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let notifier = try Notifier.shared(for: realm.file)
        let log = TrackerLog()
        let id = await Self.registerRealm(notifier, log: log)
        let (told, continuation) = AsyncStream.makeStream(of: (version: TransactionID, trackerHadIt: Bool).self)
        let token = realm.file.versionObservers.add(Handle(log, continuation))
        defer { realm.file.versionObservers.remove(token) }
        var iterator = told.makeAsyncIterator()
        for round in 0..<5 {
            let commit = try await Self.insert(realm).commit
            let handle = await iterator.next()
            #expect(handle?.version == commit.transaction && handle?.trackerHadIt == true, "round \(round)")
            _ = await notifier.next(id)
        }
    }
}
