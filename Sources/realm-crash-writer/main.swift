// realm-crash-writer: the other half of the crash tests (Tests/RealmStorageTests/CrashRecoveryTests.swift).
//
//     realm-crash-writer <path> <seed> [encrypted]
//                                           write transactions forever; the test SIGKILLs it
//                                           (`encrypted`: the file has CrashWorkload.encryptionKey)
//     realm-crash-writer shared <path> <seed> <lane>
//                                           write transactions forever beside other writing
//                                           processes (`sharesWriting`), each touching only the
//                                           keys of its lane (`CrashWorkload.laneKey`) of tree 1,
//                                           which the file already has; the test SIGKILLs it
//     realm-crash-writer compact <path>     compact the file in place, again and again, printing
//                                           `compacted <n>` after each; the test SIGKILLs it
//     realm-crash-writer check <path>...    open each (damaged) file read-only, read everything,
//                                           verify; the decoder fuzz test runs this in a child
//                                           process so that a crash is a finding, not the end of
//                                           the test run
//
// Writer protocol (stdout, one line per event, written with write(2) so nothing sits in a buffer
// when the process is killed):
//
//     start <n>        the database is open and its counter (key 0 of tree 1) is n
//     committed <n>    transaction n is durable: printed only after `commit()` returned
//
// The content after transaction n is a pure function of the (seed, n) pairs of the transactions
// 1...n (`CrashWorkload`), which the test knows because it chose each run's seed and learns the
// counter after each kill, so it can recompute the whole tree and compare it byte for byte.
// This file has no Foundation dependency so that the process starts fast.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RealmStorage

/// SplitMix64; the same sequence as the tests' `SeededGenerator`.
struct CrashRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What transaction `n` of a run with `seed` does, shared by the writer and the checking test.
enum CrashWorkload {
    /// The one tree: the first tree created in a fresh file.
    static let tree: TreeID = 1
    /// Key 0 holds `(n, seed)` of the newest transaction.
    static let counterKey: UInt64 = 0
    static let keySpace: UInt64 = 3000
    /// Keys that may hold big (multi-page overflow) values, so the file stays small.
    static let bigKeys: UInt64 = 24
    /// The key of an `encrypted` run.
    static let encryptionKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 0x47 &+ 0x11) }

    /// One edit: put a value of `length` bytes, or remove (`length == nil`).
    struct Operation: Equatable {
        var key: UInt64
        var length: Int?
    }

    /// The edits of transaction `n`: usually a few keys; one in eight transactions is large
    /// (hundreds of keys, or several 20–150 KB values), so a kill often lands mid-commit.
    static func operations(seed: UInt64, transaction n: UInt64) -> [Operation] {
        var random = CrashRandom(seed: seed &* 0x2545_F491_4F6C_DD1D ^ n)
        var operations: [Operation] = []
        func key() -> UInt64 { 1 + random.next() % keySpace }
        switch random.next() % 16 {
        case 0:  // many keys
            for _ in 0..<(300 + random.next() % 900) {
                let key = key()
                operations.append(Operation(key: key, length: random.next() % 4 == 0 ? nil : Int(16 + random.next() % 300)))
            }
        case 1:  // big values
            for _ in 0..<(3 + random.next() % 8) {
                operations.append(Operation(key: 1 + random.next() % bigKeys, length: Int(20_000 + random.next() % 130_000)))
            }
        default:
            for _ in 0..<(1 + random.next() % 10) {
                let key = key()
                if random.next() % 4 == 0 {
                    operations.append(Operation(key: key, length: nil))
                } else {
                    let overflow = random.next() % 10 == 0
                    operations.append(Operation(key: key, length: Int(overflow ? 1025 + random.next() % 5000 : 16 + random.next() % 200)))
                }
            }
        }
        return operations
    }

    /// The value `put` by transaction `n` of run `seed` under `key`: 24 readable bytes
    /// (key, n, seed), then pseudo-random filler, so any mix-up shows.
    static func value(key: UInt64, transaction n: UInt64, seed: UInt64, length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(length, 24))
        var random = CrashRandom(seed: key &* 0x9E37_79B9 ^ n &* 0x85EB_CA6B ^ seed)
        bytes.withUnsafeMutableBytes { buffer in
            buffer.storeBytes(of: key.littleEndian, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: n.littleEndian, toByteOffset: 8, as: UInt64.self)
            buffer.storeBytes(of: seed.littleEndian, toByteOffset: 16, as: UInt64.self)
            var offset = 24
            while offset + 8 <= length {
                buffer.storeBytes(of: random.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < length {
                buffer[offset] = UInt8(truncatingIfNeeded: random.next())
                offset += 1
            }
        }
        return Array(bytes.prefix(length))
    }

    /// Writers sharing a file each write one lane: key `k` of the workload is `laneKey(k, lane)`,
    /// and a lane's counter is `laneKey(counterKey, lane)`.
    static func laneKey(_ key: UInt64, lane: UInt64) -> UInt64 { lane * 1_000_000 + key }

    static func counterValue(transaction n: UInt64, seed: UInt64) -> [UInt8] {
        withUnsafeBytes(of: (n.littleEndian, seed.littleEndian)) { Array($0) }
    }

    /// Decodes key 0: `(n, seed)`.
    static func decodeCounter(_ bytes: [UInt8]) -> (transaction: UInt64, seed: UInt64)? {
        guard bytes.count == 16 else { return nil }
        return bytes.withUnsafeBytes { (UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)),
                                        UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))) }
    }
}

/// Writes a line to a file descriptor at once (no stdio buffer that a SIGKILL would lose).
func emit(_ line: String, to descriptor: Int32 = 1) {
    var text = line + "\n"
    text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                exit(3)
            }
            offset += written
        }
    }
}

/// The writer: resumes the counter found in the file and commits forever.
func runWriter(path: String, seed: UInt64, encryptionKey: [UInt8]?) throws -> Never {
    let database = try Database.open(path: path, options: DatabaseOptions(durability: .full, encryptionKey: encryptionKey))
    var counter: UInt64 = 0
    do {
        let read = try database.beginRead()
        if try read.treeIDs().contains(CrashWorkload.tree) {
            guard let bytes = try read.value(CrashWorkload.tree, key: CrashWorkload.counterKey),
                  let decoded = CrashWorkload.decodeCounter(bytes)
            else { throw StorageError(.invalidDatabase, "tree \(CrashWorkload.tree) has no counter") }
            counter = decoded.transaction
        }
    }
    emit("start \(counter)")
    while true {
        counter += 1
        let write = try database.beginWrite()
        if counter == 1 {
            let tree = try write.createTree()
            guard tree == CrashWorkload.tree else { throw StorageError(.fail, "expected tree \(CrashWorkload.tree), got \(tree)") }
        }
        for operation in CrashWorkload.operations(seed: seed, transaction: counter) {
            if let length = operation.length {
                try write.put(CrashWorkload.tree, key: operation.key,
                              value: CrashWorkload.value(key: operation.key, transaction: counter, seed: seed, length: length))
            } else {
                try write.remove(CrashWorkload.tree, key: operation.key)
            }
        }
        try write.put(CrashWorkload.tree, key: CrashWorkload.counterKey,
                      value: CrashWorkload.counterValue(transaction: counter, seed: seed))
        try write.commit()
        emit("committed \(counter)")
    }
}

/// A writer beside other writing processes: resumes its lane's counter and commits forever, each
/// transaction the workload's edits moved into its lane. Tree 1 exists (the test made it).
func runSharedWriter(path: String, seed: UInt64, lane: UInt64) throws -> Never {
    var options = DatabaseOptions(durability: .full)
    options.sharesWriting = true
    let database = try Database.open(path: path, options: options)
    let counterKey = CrashWorkload.laneKey(CrashWorkload.counterKey, lane: lane)
    var counter: UInt64 = 0
    do {
        let read = try database.beginRead()
        if let bytes = try read.value(CrashWorkload.tree, key: counterKey) {
            guard let decoded = CrashWorkload.decodeCounter(bytes) else { throw StorageError(.invalidDatabase, "lane \(lane)'s counter is damaged") }
            counter = decoded.transaction
        }
    }
    emit("start \(counter)")
    while true {
        counter += 1
        let write = try database.beginWrite()
        for operation in CrashWorkload.operations(seed: seed, transaction: counter) {
            let key = CrashWorkload.laneKey(operation.key, lane: lane)
            if let length = operation.length {
                try write.put(CrashWorkload.tree, key: key,
                              value: CrashWorkload.value(key: key, transaction: counter, seed: seed, length: length))
            } else {
                try write.remove(CrashWorkload.tree, key: key)
            }
        }
        try write.put(CrashWorkload.tree, key: counterKey, value: CrashWorkload.counterValue(transaction: counter, seed: seed))
        try write.commit()
        emit("committed \(counter)")
    }
}

/// Opens a possibly damaged file read-only and exercises every reader: lookups, scans, counts,
/// the last key, and the full integrity check. Errors are expected; only a crash is a finding.
/// Returns a one-word outcome per stage.
func checkFile(path: String) -> String {
    var outcome: [String] = []
    let database: Database
    do {
        database = try Database.open(path: path, options: DatabaseOptions(readOnly: true))
        outcome.append("open=ok")
    } catch let error as StorageError {
        return "open=\(error.code)"
    } catch {
        return "open=unexpected"
    }
    do {
        let read = try database.beginRead()
        var entries = 0
        for tree in try read.treeIDs() {
            do {
                let root = try read.root(of: tree)
                _ = try read.count(of: tree)
                _ = try read.lastKey(in: root)
                var keys: [UInt64] = []
                try read.forEach(in: root) { key, value in
                    entries += 1
                    if keys.count < 64 { keys.append(key) }
                    _ = value.reduce(0 as UInt8, &+)  // touch every byte
                    return true
                }
                for key in keys + [0, 1, 2_999, UInt64.max] { _ = try read.value(tree, key: key) }
                try read.forEach(in: root, from: keys.last ?? 0) { _, _ in true }
            } catch {
                outcome.append("tree\(tree)=error")
            }
        }
        outcome.append("entries=\(entries)")
    } catch let error as StorageError {
        outcome.append("read=\(error.code)")
    } catch {
        outcome.append("read=unexpected")
    }
    // Lookups by tree id, as a caller who knows its ids makes them, even if listing failed.
    if let read = try? database.beginRead() {
        for tree in [1, 2, 3, 4, 1_000, UInt64.max] as [TreeID] {
            if let root = try? read.root(of: tree) { _ = try? read.withValue(in: root, forKey: UInt64.max) { $0.count } }
        }
    }
    do {
        let report = try database.verify()
        outcome.append("verify=ok(\(report.entries))")
    } catch let error as StorageError {
        outcome.append("verify=\(error.code)")
    } catch {
        outcome.append("verify=unexpected")
    }
    return outcome.joined(separator: " ")
}

/// Compaction on launch, repeated: what `shouldCompactOnLaunch` does to a file (open, copy the
/// newest version compactly, rename the copy over the file, close), forever.
func runCompactor(path: String) throws -> Never {
    var rounds = 0
    while true {
        let database = try Database.open(path: path)
        do {
            let read = try database.beginRead()
            try Database.writeCompactCopy(of: read, tables: [:], to: path, replacing: true)
            withExtendedLifetime(read) {}
        }
        try database.close()
        rounds += 1
        emit("compacted \(rounds)")
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3 && arguments[1] == "compact" {
    do {
        try runCompactor(path: arguments[2])
    } catch {
        emit("realm-crash-writer: \(error)", to: 2)
        exit(1)
    }
}
if arguments.count == 5 && arguments[1] == "shared", let seed = UInt64(arguments[3]), let lane = UInt64(arguments[4]) {
    do {
        try runSharedWriter(path: arguments[2], seed: seed, lane: lane)
    } catch {
        emit("realm-crash-writer: \(error)", to: 2)
        exit(1)
    }
}
if arguments.count >= 2 && arguments[1] == "check" {
    // `begin <i>` before each file, so the parent knows which file a crash happened on.
    for (index, path) in arguments.dropFirst(2).enumerated() {
        emit("begin \(index)")
        emit("done \(index) \(checkFile(path: path))")
    }
    exit(0)
}
guard arguments.count == 3 || (arguments.count == 4 && arguments[3] == "encrypted"), let seed = UInt64(arguments[2]) else {
    emit("usage: realm-crash-writer <path> <seed> [encrypted] | realm-crash-writer shared <path> <seed> <lane> | realm-crash-writer compact <path> | realm-crash-writer check <path>...", to: 2)
    exit(2)
}
do {
    try runWriter(path: arguments[1], seed: seed, encryptionKey: arguments.count == 4 ? CrashWorkload.encryptionKey : nil)
} catch {
    emit("realm-crash-writer: \(error)", to: 2)
    exit(1)
}
