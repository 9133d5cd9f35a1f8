// swift-tools-version: 6.1
//
// RealmActors benchmarks: a package of its own so that the library itself keeps depending on
// nothing but the toolchain. Two ways in:
//
//   realm-bench  the side-by-side suite (W1–W16 of PERFORMANCE.md and issue 39): RealmActors vs SQLite
//                through GRDB, one child process per workload and side. See README.md.
//   migration-bench  a 1M-object migration vs a plain update (Scripts/migration-bench.sh).
//   results-bench  partial reads (first, prefix) of live filtered results on 1M objects.
//   object-bench   the object model's costs (accessor, property read, insert) in ns per object.
//   commit-bench   a small durable commit's costs (CPU, thread handoffs, I/O) in µs per commit.
//   Micro        package-benchmark micro-benchmarks (malloc counts per operation):
//                `swift package --package-path Benchmarks benchmark`.
//
// Swift packages come from the machine's local copies (git maps github.com to them), so every
// version below must be one that exists there.
//
// package-benchmark on Linux + Swift 6.3: its manifest adds a dependency on
// ordo-one/swift-runtime-interposer (absent here) whenever its "RuntimeInterposer" trait is
// enabled, which it is by default. Naming the traits explicitly, `traits: ["MallocInterposer"]`,
// replaces the default set, so "RuntimeInterposer" is off and SwiftPM prunes that dependency
// (it is only used under that trait). The malloc counters still work: they come from
// ordo-one/malloc-interposer, which is available. What is lost is ARC (retain/release) counting,
// which no benchmark here uses. Do not add "RuntimeInterposer" or use the default traits.
import PackageDescription

/// Same strictness as the root package: Swift 6 language mode (complete concurrency checking).
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "RealmActorsBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "realm-bench", targets: ["RealmBench"]),
        .executable(name: "migration-bench", targets: ["MigrationBench"]),
        .executable(name: "results-bench", targets: ["ResultsBench"]),
        .executable(name: "object-bench", targets: ["ObjectBench"]),
        .executable(name: "commit-bench", targets: ["CommitBench"]),
    ],
    dependencies: [
        .package(name: "RealmActors", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark.git",
            from: "1.38.1",
            traits: ["MallocInterposer"]
        ),
    ],
    targets: [
        // The data model shared by every benchmark: Person (and W13's Note), their deterministic
        // generators and the SQLite schema. Both sides of every workload must see the same rows.
        .target(
            name: "BenchModel",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        // The models as RealmActors classes (PersonObject, NoteObject), for every benchmark
        // that opens a realm.
        .target(
            name: "RealmBenchModel",
            dependencies: ["BenchModel", .product(name: "RealmActors", package: "RealmActors")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "RealmBench",
            dependencies: [
                "BenchModel",
                "RealmBenchModel",
                .product(name: "RealmActors", package: "RealmActors"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // A 1M-object migration against the same rewrite as a plain write transaction, time and
        // peak RSS, one process each: `bash Scripts/migration-bench.sh` (RealmActors only).
        .executableTarget(
            name: "MigrationBench",
            dependencies: [.product(name: "RealmActors", package: "RealmActors")],
            swiftSettings: strictSettings
        ),
        // Partial reads of live filtered results (first, prefix) against computing every match:
        // `swift run -c release --package-path Benchmarks results-bench` (RealmActors only).
        .executableTarget(
            name: "ResultsBench",
            dependencies: [.product(name: "RealmActors", package: "RealmActors")],
            swiftSettings: strictSettings
        ),
        // The object model's costs per object (W1/W5 rows, many rounds):
        // `swift run -c release --package-path Benchmarks object-bench` (RealmActors only).
        .executableTarget(
            name: "ObjectBench",
            dependencies: ["BenchModel", "RealmBenchModel", "MeasurementRounds", .product(name: "RealmActors", package: "RealmActors")],
            swiftSettings: strictSettings
        ),
        // The command line and report of the many-rounds benchmarks (object-bench, commit-bench).
        .target(name: "MeasurementRounds", swiftSettings: strictSettings),
        // A small durable commit's costs, split into CPU, handoffs and I/O (W7, many rounds):
        // `swift run -c release --package-path Benchmarks commit-bench` (RealmActors only).
        .executableTarget(
            name: "CommitBench",
            dependencies: ["BenchModel", "RealmBenchModel", "MeasurementRounds", .product(name: "RealmActors", package: "RealmActors")],
            swiftSettings: strictSettings
        ),
        // package-benchmark's convention: one executable target per suite, its sources in
        // Benchmarks/<Name>/, built with the BenchmarkPlugin that generates the entry point.
        .executableTarget(
            name: "Micro",
            dependencies: [
                "BenchModel",
                "RealmBenchModel",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "RealmActors", package: "RealmActors"),
            ],
            path: "Benchmarks/Micro",
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
