import Foundation
import Testing
@testable import RealmStorage
@testable import realm_crash_writer
import RealmTestSupport

/// A real process writes transactions in a loop (`realm-crash-writer`, durability `.full`) and is
/// killed with SIGKILL at random moments, many times, on the same file. After every kill the file
/// must open at the last commit the writer reported (or the one in flight, never later), hold
/// exactly the content recomputed from the workload, and pass `verify()`.
@Suite struct CrashRecoveryTests {
    /// What the model knows about a key: which transaction of which run wrote it, and how long.
    struct Entry {
        var transaction: UInt64
        var seed: UInt64
        var length: Int
    }

    /// Plain and encrypted files (with a key, a torn page fails its tag instead of its checksum).
    @Test(arguments: [false, true])
    func killedWriterLosesNoReportedCommit(encrypted: Bool) async throws {
        try await BlockingCall.offThePool {
            let key = encrypted ? CrashWorkload.encryptionKey : nil
            let directory = try TemporaryDirectory()
            let path = directory.path()
            let executable = try CrashWriterExecutable.path()
            var random = SplitMix64(seed: encrypted ? 0xE4C_D1ED : 0xC0DE_D1ED)
            var model: [UInt64: Entry] = [:]
            var durable: UInt64 = 0  // the counter verified after the previous kill
            var unreportedButDurable = 0  // kills between a commit's sync and its report
            var tornBatches = 0  // kills while a batch was being written (its pages are in the file)
            var loggedKills = 0  // kills that left records in the write-ahead log for recovery to replay
            var previousTornTransaction: TransactionID = 0
            let rounds = 40

            for round in 0..<rounds {
                let seed = 1 + random.next() % 1_000_000
                let errorLog = directory.path("writer-\(round).stderr")
                let child = try ChildProcess(executable: executable, arguments: [path, "\(seed)"] + (encrypted ? ["encrypted"] : []),
                                             standardError: errorLog)
                var reported = durable
                var lines: [String] = []
                func record(_ line: String) {
                    lines.append(line)
                    switch ChildProcess.WriterLine(line) {
                    case .start(let counter):
                        #expect(counter == durable, "round \(round): the writer resumed at \(counter), the file was checked at \(durable)")
                    case .committed(let counter):
                        #expect(counter == reported + 1, "round \(round): reported \(counter) after \(reported)")
                        reported = counter
                    case .other:
                        Issue.record("round \(round): unexpected writer output \(line)")
                    }
                }
                // Kill at once (1 in 10: possibly before the file even exists), after the writer opened
                // the file, or after it reported 1–6 commits; then sometimes wait a random fraction of
                // a commit (not synchronization: only to spread the kill point over the commit).
                let plan = random.next() % 10
                if plan != 0 {
                    let wanted = plan == 1 ? 1 : 2 + Int(random.next() % 6)
                    while lines.count < wanted, let line = child.readLine() { record(line) }
                    if random.next() % 2 == 0 { usleep(UInt32(random.next() % 4_000)) }
                }
                child.sendKill()
                let status = child.wait()
                while let line = child.readLine() { record(line) }  // what it printed before dying
                let errors = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
                #expect(status == .signaled(SIGKILL), "round \(round): writer ended with \(status): \(errors)")

                // Reopen read-only, so that this check writes nothing and the next writer recovers
                // the file exactly as the kill left it.
                guard FileManager.default.fileExists(atPath: path) else {
                    #expect(durable == 0 && reported == 0, "round \(round): the file disappeared")
                    continue
                }
                // A kill after the log took records leaves commits only the log holds: the read-only
                // open replays them in memory, and the next writer's open onto the file.
                let database = try Database.open(path: path, options: DatabaseOptions(readOnly: true, encryptionKey: key))
                if database.recordsReplayed > 0 { loggedKills += 1 }
                let read = try database.beginRead()
                var counter: UInt64 = 0
                var counterSeed: UInt64 = 0
                if try read.treeIDs().contains(CrashWorkload.tree) {
                    let bytes = try #require(try read.value(CrashWorkload.tree, key: CrashWorkload.counterKey))
                    let decoded = try #require(CrashWorkload.decodeCounter(bytes))
                    (counter, counterSeed) = (decoded.transaction, decoded.seed)
                }
                #expect(counter == reported || counter == reported + 1,
                        "round \(round): the file holds transaction \(counter), the writer reported \(reported)")
                try #require(counter >= durable, "round \(round): transaction \(counter) is older than the checked \(durable)")
                if counter > durable { #expect(counterSeed == seed) }
                if counter == reported + 1 { unreportedButDurable += 1 }

                // Replay this run's transactions into the model and compare the whole tree.
                if counter > durable {
                    for transaction in (durable + 1)...counter {
                        for operation in CrashWorkload.operations(seed: seed, transaction: transaction) {
                            if let length = operation.length {
                                model[operation.key] = Entry(transaction: transaction, seed: seed, length: length)
                            } else {
                                model[operation.key] = nil
                            }
                        }
                    }
                }
                if counter > 0 {
                    try Self.expectTree(read, equals: model, counter: counter, round: round)
                }
                _ = try database.verify()

                // Evidence that this kill interrupted a batch: pages written by a transaction newer
                // than the version the file opened at (the meta page, written last, did not make it).
                let newest = Self.newestPageTransaction(path: path, key: key)
                if newest > read.transaction && newest != previousTornTransaction && counter > 0 {
                    tornBatches += 1
                    previousTornTransaction = newest
                }
                durable = counter

                // Now and then close cleanly in between (a checkpoint: the next open verifies nothing).
                if round % 10 == 9 {
                    _ = consume read
                    _ = consume database
                    try Database.open(path: path, options: DatabaseOptions(encryptionKey: key)).close()
                }
            }
            // The kills must have landed in commits, or this test proved little.
            #expect(durable > UInt64(rounds), "only \(durable) transactions in \(rounds) runs")
            #expect(unreportedButDurable + tornBatches >= 2,
                    "kills mid-commit: \(unreportedButDurable) after the sync, \(tornBatches) while writing the batch")
            #expect(loggedKills >= 2, "only \(loggedKills) kills left records in the log for recovery to replay")
            print("CrashRecoveryTests\(encrypted ? " (encrypted)" : ""): \(rounds) kills, \(durable) transactions, \(unreportedButDurable) kills between sync and report, \(tornBatches) kills while writing a batch, \(loggedKills) kills with records in the log")
        }
    }

    /// Every key of the tree against the model, and key 0 against the counter.
    static func expectTree(_ read: ReadTransaction, equals model: [UInt64: Entry], counter: UInt64, round: Int) throws {
        var seen = 0
        var mismatches: [String] = []
        try read.forEach(in: read.root(of: CrashWorkload.tree)) { key, bytes in
            seen += 1
            if key == CrashWorkload.counterKey {
                if CrashWorkload.decodeCounter(Array(bytes))?.transaction != counter { mismatches.append("counter") }
            } else if let entry = model[key] {
                let expected = CrashWorkload.value(key: key, transaction: entry.transaction, seed: entry.seed, length: entry.length)
                if !bytes.elementsEqual(expected) {
                    mismatches.append("key \(key): \(bytes.count) bytes, expected \(entry.length) from transaction \(entry.transaction)")
                }
            } else {
                mismatches.append("key \(key) should not exist")
            }
            return mismatches.count < 5
        }
        #expect(mismatches.isEmpty, "round \(round): \(mismatches)")
        #expect(seen == model.count + 1, "round \(round): \(seen) keys, expected \(model.count + 1)")
        #expect(try read.count(of: CrashWorkload.tree) == UInt64(model.count + 1))
    }

    /// The highest transaction id in any data page header of the file (of an encrypted file,
    /// whose page kinds are encrypted, decrypting each header with `key`).
    static func newestPageTransaction(path: String, key: [UInt8]?) -> TransactionID {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return data.withUnsafeBytes { buffer in
            var cipher: PageCipher?
            if let key {
                for slot in 0..<2 {
                    if case .header(let header) = EncryptionHeader.read(metaPage: buffer.baseAddress! + slot * PageLayout.pageSize) {
                        cipher = PageCipher(userKey: key, salt: header.salt)
                    }
                }
                guard cipher != nil else { return 0 }
            }
            var newest: TransactionID = 0
            var offset = 2 * PageLayout.pageSize
            let header = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.headerSize, alignment: 8)
            defer { header.deallocate() }
            while offset + PageLayout.pageSize <= buffer.count {
                let page = buffer.baseAddress! + offset
                var kind = page.pageKind
                if let cipher {
                    cipher.peekHeader(page, page: PageNumber(offset / PageLayout.pageSize), into: header)
                    kind = UnsafeRawPointer(header).pageKind
                }
                if kind != nil && kind != .meta { newest = max(newest, page.pageTransaction) }
                offset += PageLayout.pageSize
            }
            return newest
        }
    }
}

/// The `realm-crash-writer` binary (see ``TestExecutable``).
enum CrashWriterExecutable {
    static let name = "realm-crash-writer"

    static func path() throws -> String { try TestExecutable.path(named: name, override: "REALM_CRASH_WRITER") }
}

extension ChildProcess {
    /// A line of `realm-crash-writer`'s protocol: `start <n>`, `committed <n>`, or anything else.
    enum WriterLine: Equatable {
        case start(UInt64)
        case committed(UInt64)
        case other(String)

        init(_ line: String) {
            let parts = line.split(separator: " ")
            if parts.count == 2, let counter = UInt64(parts[1]) {
                if parts[0] == "start" { self = .start(counter); return }
                if parts[0] == "committed" { self = .committed(counter); return }
            }
            self = .other(line)
        }
    }

    /// The next line of output as the writer protocol's, or nil at the end of the output.
    func readWriterLine() -> WriterLine? { readLine().map(WriterLine.init) }

}
