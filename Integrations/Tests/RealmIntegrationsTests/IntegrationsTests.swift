import Foundation
import Logging
import MetricsTestKit
import RealmActors
import RealmLogging
import RealmMetrics
import RealmServiceLifecycle
import ServiceLifecycle
import Synchronization
import Testing

final class Order: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var item = ""
}

/// A fresh directory per test, removed when the value is released.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("RealmIntegrationsTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A swift-log handler keeping every message, for tests.
final class CapturedLogs: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }
    private let entries = Mutex<[Entry]>([])
    var all: [Entry] { entries.withLock { $0 } }

    func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let entry = Entry(level: event.level, message: "\(event.message)",
                              metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
            logs.entries.withLock { $0.append(entry) }
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct IntegrationsTests {
    static func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent("orders.realm"), objectTypes: [Order.self])
    }

    @Test func eventsBecomeLogMessagesAtTheirLevels() throws {
        let directory = try TemporaryDirectory()
        let logs = CapturedLogs()
        var configuration = Self.configuration(directory)
        configuration.instrumentation = .logging(logs.logger(), slowCommit: .zero, heldVersionAlarm: .zero)
        let realm = try Realm(configuration: configuration)
        let frozen = realm.freeze()
        for id in 0..<3 { try realm.write { realm.add(Order(value: ["id": id, "item": "tea"])) } }
        let entries = logs.all
        #expect(entries.contains { $0.level == .debug && $0.message == "realm opened" && $0.metadata["realm.duration_ms"] != nil })
        // Every commit is slower than zero: a warning with its version and latency.
        let slow = entries.filter { $0.message == "slow realm commit" }
        #expect(slow.count == 4)  // the schema's commit, then three
        #expect(slow.allSatisfy { $0.level == .warning && $0.metadata["realm.latency_ms"] != nil })
        #expect(entries.contains { $0.level == .trace && $0.message == "realm sync" && $0.metadata["realm.commits"] == "1" })
        #expect(entries.contains { $0.level == .warning && $0.message.hasPrefix("a realm version is held") })
        #expect(entries.contains { $0.message == "realm file" && $0.metadata["realm.file_bytes"] != nil })
        withExtendedLifetime(frozen) {}
    }

    @Test func eventsBecomeMetrics() async throws {
        let directory = try TemporaryDirectory()
        let metrics = TestMetrics()
        var instrumented = Self.configuration(directory)
        instrumented.instrumentation = .metrics(dimensions: [("file", "orders")], factory: metrics)
        let configuration = instrumented
        _ = try await Realm.open(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let realm = try await Realm.open(configuration: configuration)
                    for index in 0..<10 {
                        try await realm.asyncWrite { realm.add(Order(value: ["id": writer * 100 + index])) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let dimensions = [("file", "orders")]
        #expect(try metrics.expectTimer("realm.commit.latency", dimensions).values.count == 41)
        let batches = try metrics.expectRecorder("realm.flush.commits", dimensions).values
        #expect(batches.reduce(0, +) == 41)  // every commit in exactly one sync
        #expect(try metrics.expectTimer("realm.flush.duration", dimensions).values.count == batches.count)
        let opens = try metrics.expectTimer("realm.open.duration", dimensions).values.count
        #expect(opens == 5, "\(opens) opens recorded")
        let fileBytes = try metrics.expectGauge("realm.file.bytes", dimensions).lastValue ?? 0
        let live = try metrics.expectGauge("realm.file.live_bytes", dimensions).lastValue ?? 0
        #expect(fileBytes > 0 && live > 0 && live <= fileBytes)
        #expect(metrics.counterTotal(label: "realm.flush.failures") == 0)
    }

    @Test func theServiceOpensTheRealmsAndDrainsWritesAtShutdown() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(directory)
        let logs = CapturedLogs()
        let service = RealmService(configurations: [configuration], logger: logs.logger())
        // A change stream tied to graceful shutdown, in a service of the group, ends with it.
        let observer = StreamService(configuration: configuration, realms: service)
        let group = ServiceGroup(services: [service, observer], logger: logs.logger("group"))
        let acknowledged = Mutex(0)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await service.waitUntilReady()
            #expect(FileManager.default.fileExists(atPath: configuration.fileURL!.path))
            let realm = try await Realm.open(configuration: configuration)
            for id in 0..<20 {
                try await realm.asyncWrite { realm.add(Order(value: ["id": id])) }
                acknowledged.withLock { $0 += 1 }
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(observer.updates.withLock { $0 } >= 1)
        #expect(observer.ended.withLock { $0 })
        #expect(logs.all.contains { $0.message == "realm service stopped: writes in flight are durable" })
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.objects(Order.self).count == acknowledged.withLock { $0 })
    }

    @Test func aRealmThatCannotOpenStopsTheGroup() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("not-a-realm.realm")
        try Data(repeating: 0x41, count: 20_000).write(to: path)
        let service = RealmService(configurations: [Realm.Configuration(fileURL: path)], logger: CapturedLogs().logger())
        let group = ServiceGroup(services: [service], logger: CapturedLogs().logger("group"))
        await #expect(throws: (any Error).self) { try await group.run() }
    }
}

/// Observes the orders until graceful shutdown, as a service of the group.
final class StreamService: Service, Sendable {
    let configuration: Realm.Configuration
    let realms: RealmService
    let updates = Mutex(0)
    let ended = Mutex(false)

    init(configuration: Realm.Configuration, realms: RealmService) {
        self.configuration = configuration
        self.realms = realms
    }

    func run() async throws {
        await realms.waitUntilReady()
        let realm = try await Realm.open(configuration: configuration)
        for await _ in realm.objects(Order.self).changes.cancelOnGracefulShutdown() {
            updates.withLock { $0 += 1 }
        }
        ended.withLock { $0 = true }
    }
}
