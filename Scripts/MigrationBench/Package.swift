// swift-tools-version: 6.1
//
// The migration benchmark (`bash Scripts/migration-bench.sh`): a package of its own, like
// `Benchmarks/`, so the library keeps depending on nothing but the toolchain.
import PackageDescription

let package = Package(
    name: "MigrationBench",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "RealmActors", path: "../..")],
    targets: [
        .executableTarget(
            name: "migration-bench",
            dependencies: [.product(name: "RealmActors", package: "RealmActors")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
