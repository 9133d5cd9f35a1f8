// swift-tools-version: 6.1
//
// RealmActors' bridges to the server ecosystem, in their own package so that the library itself
// keeps depending on nothing but the toolchain (as Benchmarks/ does):
//
//   RealmLogging           Realm.Instrumentation events as swift-log messages
//   RealmMetrics           Realm.Instrumentation events as swift-metrics timers, recorders, gauges, counters
//   RealmServiceLifecycle  a swift-service-lifecycle Service that owns a process's realms
//   RealmHummingbird       Hummingbird 2 support: Realm.Error as HTTP errors, change streams as
//                          server-sent events that end when the client disconnects
//   RealmPostgres          a replication sink: a realm's commits applied to PostgreSQL (postgres-nio)
//   order-service          an example service (Examples/OrderService) on all of them
//
// `swift test --package-path Integrations` (CI runs it).
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "RealmActorsIntegrations",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "RealmLogging", targets: ["RealmLogging"]),
        .library(name: "RealmMetrics", targets: ["RealmMetrics"]),
        .library(name: "RealmServiceLifecycle", targets: ["RealmServiceLifecycle"]),
        .library(name: "RealmHummingbird", targets: ["RealmHummingbird"]),
        .library(name: "RealmPostgres", targets: ["RealmPostgres"]),
        .executable(name: "realm-replication-check", targets: ["realm-replication-check"]),
        .executable(name: "order-service", targets: ["order-service"]),
    ],
    dependencies: [
        .package(name: "RealmActors", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(name: "RealmLogging", dependencies: [
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strictSettings),
        .target(name: "RealmMetrics", dependencies: [
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Metrics", package: "swift-metrics"),
        ], swiftSettings: strictSettings),
        .target(name: "RealmServiceLifecycle", dependencies: [
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: strictSettings),
        .target(name: "RealmHummingbird", dependencies: [
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: strictSettings),

        .target(name: "RealmPostgres", dependencies: [
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: strictSettings),
        // The replication check Scripts/test-replication.sh runs (writers, SIGKILL, catch-up, compare).
        .executableTarget(name: "realm-replication-check", dependencies: [
            "RealmPostgres",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strictSettings),
        // Against a PostgreSQL server that Scripts/test-replication.sh starts (REALM_POSTGRES_*
        // in the environment); without one the suite is skipped.
        .testTarget(name: "RealmPostgresTests", dependencies: [
            "RealmPostgres",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: strictSettings),

        // The example service (Examples/OrderService): its app as a library the tests drive on
        // loopback, and the executable.
        .target(name: "OrderServiceApp", dependencies: [
            "RealmHummingbird", "RealmServiceLifecycle",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Examples/OrderService/Sources/OrderServiceApp", swiftSettings: strictSettings),
        .executableTarget(name: "order-service", dependencies: [
            "OrderServiceApp",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Examples/OrderService/Sources/order-service", swiftSettings: strictSettings),
        .testTarget(name: "OrderServiceTests", dependencies: [
            "OrderServiceApp", "RealmHummingbird",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Examples/OrderService/Tests/OrderServiceTests", swiftSettings: strictSettings),

        .testTarget(name: "RealmIntegrationsTests", dependencies: [
            "RealmLogging", "RealmMetrics", "RealmServiceLifecycle",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: strictSettings),
    ]
)
