import Foundation
import Testing
@testable import RealmStorage
@testable import realm_crash_writer
import RealmTestSupport

/// Two writing processes on one file (`sharesWriting`): this one and a real `realm-crash-writer`
/// child, each writing its own lane of keys in turns decided by the write lock, while the child is
/// SIGKILLed at random moments — mid-commit, between its log's sync and its publish, while this
/// process waits for the lock — and a new child joins. Whoever takes writing after a kill finds
/// the dead owner's slot in the owner word and takes back what it left (warm recovery). Every
/// version this process reads must be whole (each lane's content recomputed from its workload),
/// hold every commit either process acknowledged, and never go back; this process's own commits
/// must all be there; and the file must pass the integrity check when reopened at the end.
@Suite(.timeLimit(.minutes(5))) struct SharedWriterCrashTests {
    typealias Entry = CrashRecoveryTests.Entry

    /// One lane's model: the content recomputed from the workload of its transactions.
    struct Lane {
        let lane: UInt64
        var entries: [UInt64: Entry] = [:]
        var counter: UInt64 = 0

        /// Brings the model forward to `counter`, the transactions past it written with `seed`.
        mutating func advance(to counter: UInt64, seed: UInt64) {
            guard counter > self.counter else { return }
            for transaction in (self.counter + 1)...counter {
                for operation in CrashWorkload.operations(seed: seed, transaction: transaction) {
                    entries[operation.key] = operation.length.map { Entry(transaction: transaction, seed: seed, length: $0) }
                }
            }
            self.counter = counter
        }
    }

    /// The lane counter in `read`, or 0 before its first commit.
    static func counter(_ read: ReadTransaction, lane: UInt64) throws -> UInt64 {
        guard let bytes = try read.value(CrashWorkload.tree, key: CrashWorkload.laneKey(CrashWorkload.counterKey, lane: lane)) else { return 0 }
        return try #require(CrashWorkload.decodeCounter(bytes)).transaction
    }

    /// Whether every key of `read`'s tree is what the lanes' models say, and no key is missing.
    static func expectWhole(_ read: ReadTransaction, _ lanes: [Lane], _ label: String) throws {
        var mismatches: [String] = []
        var seen = 0
        try read.forEach(in: read.root(of: CrashWorkload.tree)) { key, bytes in
            seen += 1
            let laneNumber = key / 1_000_000, workloadKey = key % 1_000_000
            guard let lane = lanes.first(where: { $0.lane == laneNumber }) else {
                mismatches.append("key \(key) is in no lane")
                return false
            }
            if workloadKey == CrashWorkload.counterKey {
                if CrashWorkload.decodeCounter(Array(bytes))?.transaction != lane.counter { mismatches.append("lane \(laneNumber)'s counter") }
            } else if let entry = lane.entries[workloadKey] {
                let expected = CrashWorkload.value(key: key, transaction: entry.transaction, seed: entry.seed, length: entry.length)
                if !bytes.elementsEqual(expected) { mismatches.append("key \(key): not transaction \(entry.transaction)'s value") }
            } else {
                mismatches.append("key \(key) should not exist")
            }
            return mismatches.count < 5
        }
        let expected = lanes.reduce(0) { $0 + $1.entries.count + ($1.counter > 0 ? 1 : 0) }
        #expect(mismatches.isEmpty, "\(label): \(mismatches)")
        #expect(seen == expected, "\(label): \(seen) keys, expected \(expected)")
    }

    @Test func killedWritersLoseNoAcknowledgedCommitOfEitherProcess() async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let path = directory.path()
            let executable = try CrashWriterExecutable.path()
            var random = SplitMix64(seed: 0x5_4A7E)
            var options = DatabaseOptions()
            options.sharesWriting = true
            let mine = try Database.open(path: path, options: options)
            do {
                let setup = try mine.beginWrite()
                try #require(try setup.createTree() == CrashWorkload.tree)
                try setup.commit()
            }
            let mySeed: UInt64 = 7
            var own = Lane(lane: 0), other = Lane(lane: 1)
            var seed: UInt64 = 0
            var versionsChecked = 0

            /// This process's next commit, in lane 0.
            func commitMine() throws {
                let transaction = own.counter + 1
                let write = try mine.beginWrite()
                for operation in CrashWorkload.operations(seed: mySeed, transaction: transaction) {
                    let key = CrashWorkload.laneKey(operation.key, lane: 0)
                    if let length = operation.length {
                        try write.put(CrashWorkload.tree, key: key, value: CrashWorkload.value(key: key, transaction: transaction, seed: mySeed, length: length))
                    } else {
                        try write.remove(CrashWorkload.tree, key: key)
                    }
                }
                try write.put(CrashWorkload.tree, key: CrashWorkload.laneKey(CrashWorkload.counterKey, lane: 0),
                              value: CrashWorkload.counterValue(transaction: transaction, seed: mySeed))
                try write.commit()
                own.advance(to: transaction, seed: mySeed)
            }

            /// Reads the newest version, checks it whole, and returns the child's lane counter in it.
            func checkNewest(_ label: String, acknowledged: UInt64) throws {
                let read = try mine.beginRead()
                #expect(try Self.counter(read, lane: 0) == own.counter, "\(label): this process's commits")
                let theirs = try Self.counter(read, lane: 1)
                try #require(theirs >= other.counter, "\(label): the other lane went back from \(other.counter) to \(theirs)")
                #expect(theirs >= acknowledged, "\(label): acknowledged \(acknowledged), read \(theirs)")
                other.advance(to: theirs, seed: seed)
                try Self.expectWhole(read, [own, other], label)
                versionsChecked += 1
            }

            let rounds = 10
            for round in 0..<rounds {
                seed = 1 + random.next() % 1_000_000
                let child = try ChildProcess(executable: executable, arguments: ["shared", path, "\(seed)", "1"],
                                             standardError: directory.path("writer-\(round).stderr"))
                guard case .start(let resumed)? = child.readWriterLine() else {
                    Issue.record("round \(round): the writer did not start: \(String(decoding: FileManager.default.contents(atPath: directory.path("writer-\(round).stderr")) ?? Data(), as: UTF8.self))")
                    child.sendKill()
                    _ = child.wait()
                    continue
                }
                // What the killed child published is in the model; what it left unpublished was taken
                // back by the next owner, or is by this child's first write: it resumes exactly there.
                #expect(resumed == other.counter, "round \(round): resumed at \(resumed) after \(other.counter)")

                var acknowledged: UInt64 = 0
                for _ in 0..<(2 + Int(random.next() % 8)) {
                    guard let line = child.readWriterLine() else { break }
                    guard case .committed(let counter) = line else {
                        Issue.record("round \(round): unexpected writer output \(line)")
                        break
                    }
                    acknowledged = counter
                    if random.next() % 2 == 0 { try commitMine() }
                    try checkNewest("round \(round) while writing", acknowledged: acknowledged)
                }
                if random.next() % 2 == 0 { usleep(UInt32(random.next() % 3_000)) }  // spreads the kill point only
                child.sendKill()
                _ = child.wait()
                while let line = child.readLine() {
                    if let counter = UInt64(line.split(separator: " ").last ?? "") { acknowledged = max(acknowledged, counter) }
                }
                try checkNewest("round \(round) after the kill", acknowledged: acknowledged)
                // This process writes after the kill half the time (it then recovers from the dead
                // owner); else the next child does.
                if random.next() % 2 == 0 {
                    try commitMine()
                    try checkNewest("round \(round) after writing past the kill", acknowledged: acknowledged)
                }
            }
            try mine.close()
            let reopened = try Database.open(path: path)
            do {
                let read = try reopened.beginRead()
                #expect(try Self.counter(read, lane: 0) == own.counter)
                #expect(try Self.counter(read, lane: 1) == other.counter)
                try Self.expectWhole(read, [own, other], "reopened")
            }
            _ = try reopened.verify()
            try reopened.close()
            #expect(versionsChecked > rounds * 2, "only \(versionsChecked) versions checked")
            print("SharedWriterCrashTests: \(rounds) kills, \(versionsChecked) versions checked whole, counters \(own.counter) and \(other.counter)")
        }
    }
}
