// swift-tools-version: 6.1
//
// RealmActors' bridges to the server ecosystem, in their own package so that the library itself
// keeps depending on nothing but the toolchain (as Benchmarks/ does):
//
//   RealmLogging           Realm.Instrumentation events as swift-log messages
//   RealmMetrics           Realm.Instrumentation events as swift-metrics timers, recorders, gauges, counters
//   RealmServiceLifecycle  a swift-service-lifecycle Service that owns a process's realms
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
    ],
    dependencies: [
        .package(name: "RealmActors", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
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
        .testTarget(name: "RealmIntegrationsTests", dependencies: [
            "RealmLogging", "RealmMetrics", "RealmServiceLifecycle",
            .product(name: "RealmActors", package: "RealmActors"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: strictSettings),
    ]
)
