import Foundation
import Logging
import PostgresNIO
import RealmActors
import RealmPostgres

// What every mode shares: the command line, the realms' configurations, the PostgreSQL client
// (REALM_POSTGRES_HOST, _PORT, _USER, _DATABASE) and the logger.

let arguments = CommandLine.arguments
/// The mode's directory (the command line's second argument, which main checks is there).
let directory = URL(fileURLWithPath: arguments[2])
/// Whether `migrate` has run: the realm is at schema version 2 from then on.
let migratedMarker = directory.appendingPathComponent("migrated")
let isMigrated = FileManager.default.fileExists(atPath: migratedMarker.path)
let configuration: Realm.Configuration = {
    var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("replicated.realm"),
                                            objectTypes: [Owner.self, isMigrated ? ItemV2.self : Item.self, Event.self, Place.self])
    configuration.schemaVersion = isMigrated ? 2 : 0
    return configuration
}()
let snapshotConfiguration = Realm.Configuration(fileURL: directory.appendingPathComponent("snapshot.realm"), objectTypes: [Small.self])
let environment = ProcessInfo.processInfo.environment
/// Warnings and errors (the sink's retries), or REALM_REPLICATION_LOG_LEVEL's (`debug`, say, to
/// see the PostgreSQL client's connection pool too).
let logger: Logger = {
    var logger = Logger(label: "realm-replication-check")
    logger.logLevel = environment["REALM_REPLICATION_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    return logger
}()
let postgres = PostgresClient(configuration: .init(
    host: environment["REALM_POSTGRES_HOST"] ?? "127.0.0.1", port: Int(environment["REALM_POSTGRES_PORT"] ?? "") ?? 5432,
    username: environment["REALM_POSTGRES_USER"] ?? "postgres", password: nil,
    database: environment["REALM_POSTGRES_DATABASE"] ?? "postgres", tls: .disable), backgroundLogger: logger)

/// Seconds since `start`, as a number.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

/// The sink of `slot` until PostgreSQL holds `target` (or until cancelled, while `target` is nil).
///
/// The client outlives the sink, as a ServiceGroup orders them ([client, sink] shuts down in
/// reverse): it is cancelled only after the sink has returned. Cancelled together, a sink
/// cancelled mid-transaction can wait forever on a connection the stopped client never answers.
func replicate(_ configuration: Realm.Configuration = configuration, slot: String = "check", until target: UInt64?) async throws {
    let sink = PostgresReplicationSink(configuration: configuration, slot: slot, client: postgres, logger: logger, confirmEvery: 16)
    guard let target else { return try await replicate(sink, until: nil) }
    try await replicate(sink, until: { await sink.appliedVersion >= target })
}

/// Runs `sink` until `done` says so (or until cancelled, while `done` is nil): see
/// ``replicate(_:slot:until:)``. Throws what the sink's `run()` throws if it stops first.
func replicate(_ sink: PostgresReplicationSink, until done: (@Sendable () async throws -> Bool)?) async throws {
    let client = Task { await postgres.run() }
    defer { client.cancel() }
    guard let done else { return try await sink.run() }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await sink.run() }
        group.addTask { while try await !done() { try await Task.sleep(for: .milliseconds(20)) } }  // polling progress, not synchronizing
        try await group.next()  // done, or the sink's stop (thrown)
        group.cancelAll()
        while true {
            do {
                guard try await group.next() != nil else { break }
            } catch is CancellationError {}
        }
    }
}
