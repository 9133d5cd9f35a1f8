// swift-tools-version: 6.1
//
// RealmActors: a Swift embedded object database for async Swift services (Swift throughout, but
// for the few C functions that reach the CPU's AES and SHA-256 instructions).
//
// The library is four targets, one per layer of the architecture (SPEC §1). Each layer imports
// only the one directly below it, so the build itself rejects an upward dependency:
//
//     RealmActors (API) → RealmRuntime (actors) → RealmObjectStore → RealmStorage
//
// Layers share their internals with `package` access; only `RealmActors` has public API.
// Below RealmStorage sit three small C targets for what Swift cannot express: CRealmCrypto, AES and
// SHA-256 on the CPU's instructions, for encrypted files; CRealmPrefetch, the scans' prefetch;
// CRealmSync, byte-range locks and atomic words of the lock file processes share.
// The package depends on nothing but the Swift toolchain (Foundation, Dispatch, Glibc/Darwin).
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "RealmActors",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "RealmActors", targets: ["RealmActors"]),
        .executable(name: "realm-demo", targets: ["realm-demo"]),
        .executable(name: "realm-inspect", targets: ["realm-inspect"]),
        .executable(name: "realm-fuzz", targets: ["realm-fuzz"]),
    ],
    targets: [
        // Layer 1: pages, copy-on-write B+trees, MVCC versions, durable commit, row change logs.
        .target(name: "RealmStorage", dependencies: ["CRealmCrypto", "CRealmPrefetch", "CRealmSync"], exclude: ["FORMAT.md", "PROCESSES.md"], swiftSettings: strictSettings),
        // AES and SHA-256 on the CPU's instructions, in C because C can enable a target feature
        // per function; no compiler flags (see `Sources/RealmStorage/Crypto/HardwareAES.swift`).
        .target(name: "CRealmCrypto"),
        // `__builtin_prefetch` as a `static inline` function in a header (header only): Swift has
        // no prefetch, and binding LLVM's intrinsic by name crashes the compiler under TSan.
        .target(name: "CRealmPrefetch"),
        // `fcntl` byte-range locks (variadic in C; Linux's open-file-description lock commands are
        // `_GNU_SOURCE` macros) and atomic loads and stores of shared memory, as `static inline`
        // functions in a header (header only): see `Sources/RealmStorage/Concurrency/LockFile.swift`.
        .target(name: "CRealmSync"),
        // Layer 2: schema, tables, objects, typed values, queries (parse, bind, evaluate, sort).
        .target(name: "RealmObjectStore", dependencies: ["RealmStorage"], swiftSettings: strictSettings),
        // Layer 3: per-file shared state: the write pipeline (lock, commit order, group commit),
        // the notifier actor and its change trackers, pinned versions for frozen values.
        .target(name: "RealmRuntime", dependencies: ["RealmObjectStore"], swiftSettings: strictSettings),
        // Layer 4: the public Realm API.
        .target(name: "RealmActors", dependencies: ["RealmRuntime"], swiftSettings: strictSettings),

        .executableTarget(name: "realm-demo", dependencies: ["RealmActors"], swiftSettings: strictSettings),
        // Looks into a realm file from the shell: info, schema, count, query, dump, load, check,
        // compact, copy, versions. The public API only, as a user's tool would be. Its commands
        // are a library (every file of the folder but `main.swift`) so that the fuzz harnesses
        // can run the dump reader in process; the executable is `main.swift` alone.
        .target(name: "RealmInspector", dependencies: ["RealmActors"], path: "Sources/realm-inspect",
                exclude: ["main.swift"], swiftSettings: strictSettings),
        .executableTarget(name: "realm-inspect", dependencies: ["RealmInspector"], path: "Sources/realm-inspect",
                          exclude: ["Arguments", "Commands", "Dump", "Output", "Inspector.swift"], sources: ["main.swift"],
                          swiftSettings: strictSettings),
        // Engine-level microbenchmarks, beside the package's other benchmarks but built here so
        // they can use the storage layer's package-level API: `swift run -c release realm-engine-bench`.
        .executableTarget(name: "realm-engine-bench", dependencies: ["RealmStorage"],
                          path: "Benchmarks/Engine", swiftSettings: strictSettings),
        // Writes transactions in a loop and reports each durable commit; the crash tests kill it.
        .executableTarget(name: "realm-crash-writer", dependencies: ["RealmStorage"], swiftSettings: strictSettings),
        // Opens (and migrates) a realm with one of a few versions of a model; the tests of
        // migrations beside other processes run it as the other process.
        .executableTarget(name: "realm-schema-process", dependencies: ["RealmActors"], swiftSettings: strictSettings),

        // libFuzzer harnesses for the code that decodes untrusted bytes (`Scripts/fuzz.sh TARGET
        // SECONDS`). A plain build replays the input files named on its command line; built by
        // the script with `-sanitize=fuzzer,address -DREALM_LIBFUZZER`, it runs libFuzzer's
        // driver, declared by the header-only CLibFuzzer.
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .executableTarget(name: "realm-fuzz", dependencies: ["RealmActors", "RealmObjectStore", "RealmRuntime", "RealmStorage", "RealmInspector", "CLibFuzzer"],
                          path: "Fuzz/Harnesses", swiftSettings: strictSettings),

        // Crash-safety torture: writes through the public API while a driver SIGKILLs it.
        .executableTarget(name: "realm-torture", dependencies: ["RealmActors", "RealmRuntime", "RealmStorage"], swiftSettings: strictSettings),

        // What every test target shares (the seeded generator, temporary directories, a small
        // file system, the fault injector), one copy instead of one per target. On the storage
        // layer only, for the fault injector's protocol: every test target can use it.
        .target(name: "RealmTestSupport", dependencies: ["RealmStorage"], path: "Tests/RealmTestSupport", swiftSettings: strictSettings),
        .testTarget(name: "RealmStorageTests", dependencies: ["RealmStorage", "RealmTestSupport", "realm-crash-writer"], swiftSettings: strictSettings),
        .testTarget(name: "RealmObjectStoreTests", dependencies: ["RealmObjectStore", "RealmTestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "RealmRuntimeTests", dependencies: ["RealmRuntime", "RealmTestSupport"], swiftSettings: strictSettings),
        // RealmRuntime (which re-exports the lower layers) only for the I/O fault hook, SharedRealmFile.faultInjectors.
        .testTarget(name: "RealmActorsTests", dependencies: ["RealmActors", "RealmRuntime", "RealmTestSupport", "realm-schema-process"], swiftSettings: strictSettings),
        // Runs the built realm-inspect on files written through the public API.
        .testTarget(name: "RealmInspectTests", dependencies: ["RealmActors", "RealmTestSupport", "realm-inspect"], swiftSettings: strictSettings),
        // Realm Swift's documented usage, compiled and never run: each file is code as Realm's
        // documentation writes it with only the import changed (and the design differences the
        // DocC article "Migrating from Realm Swift" lists), so an API change that breaks code
        // written from Realm's documentation fails the build. Swift 6 mode without the upcoming
        // features of `strictSettings`: the code is a user's, written as Realm's docs write it.
        .testTarget(name: "RealmSwiftAPITests", dependencies: ["RealmActors"], swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
