import Foundation
import Testing
@testable import RealmStorage
@testable import realm_crash_writer
import RealmTestSupport

/// A real writing process (`realm-crash-writer`) and this one, read-only beside it, following its
/// commits through the lock file; the writer is SIGKILLed at random moments and a new one joins
/// the follower, which stays attached throughout (a service restarting under a reading tool).
/// Whatever the writers do, the follower must see only whole versions (each version it begins at
/// holds exactly the content recomputed from the workload), never go back, see every commit a
/// writer acknowledged (publishing precedes the acknowledgement), and keep the pages of a snapshot
/// it took in the first run through every later writer (its pin is in its slot, which each writer
/// reads — the joining ones when they load the free list, too).
@Suite(.timeLimit(.minutes(5))) struct FollowerCrashTests {
    @Test func aFollowerSeesWholeVersionsAndEveryAcknowledgedCommitOfAKilledWriter() async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let path = directory.path()
            let executable = try CrashWriterExecutable.path()
            var random = SplitMix64(seed: 0xF011_0E4)
            var model: [UInt64: CrashRecoveryTests.Entry] = [:]
            var modelCounter: UInt64 = 0
            var versionsChecked = 0
            var previousSeed: UInt64 = 0
            let rounds = 12
            var follower: Database?
            var firstSnapshot: (read: ReadTransaction, model: [UInt64: CrashRecoveryTests.Entry], counter: UInt64)?

            /// Brings the model forward to `counter`, the transactions past it written with `seed`.
            func advanceModel(to counter: UInt64, seed: UInt64) {
                guard counter > modelCounter else { return }
                for transaction in (modelCounter + 1)...counter {
                    for operation in CrashWorkload.operations(seed: seed, transaction: transaction) {
                        model[operation.key] = operation.length.map { CrashRecoveryTests.Entry(transaction: transaction, seed: seed, length: $0) }
                    }
                }
                modelCounter = counter
            }

            for round in 0..<rounds {
                let seed = 1 + random.next() % 1_000_000
                let child = try ChildProcess(executable: executable, arguments: [path, "\(seed)"],
                                             standardError: directory.path("writer-\(round).stderr"))
                guard case .start(let resumed)? = child.readWriterLine() else {
                    Issue.record("round \(round): the writer did not start")
                    child.sendKill()
                    _ = child.wait()
                    continue
                }
                // A commit the killed writer made durable but died before publishing (and so before
                // acknowledging): the new writer's recovery found it; it is the previous run's.
                #expect(resumed == modelCounter || resumed == modelCounter + 1, "round \(round): resumed at \(resumed) after \(modelCounter)")
                advanceModel(to: resumed, seed: previousSeed)
                previousSeed = seed
                // The writer is attached: this process follows it (from the first run on).
                if follower == nil { follower = try Database.open(path: path, options: DatabaseOptions(readOnly: true)) }
                let following = try #require(follower)
                #expect(following.followsAnotherProcess, "round \(round)")

                /// Begins at the newest version, checks it whole against the model (brought forward
                /// with this round's seed), and returns its counter; the first with data is kept.
                func checkNewest(_ label: String) throws -> UInt64 {
                    let read = try following.beginRead()
                    guard try read.treeIDs().contains(CrashWorkload.tree) else { return 0 }
                    defer { if firstSnapshot == nil { firstSnapshot = (read, model, modelCounter) } }
                    let bytes = try #require(try read.value(CrashWorkload.tree, key: CrashWorkload.counterKey))
                    let counter = try #require(CrashWorkload.decodeCounter(bytes)).transaction
                    try #require(counter >= modelCounter, "round \(round) \(label): went back from \(modelCounter) to \(counter)")
                    advanceModel(to: counter, seed: seed)
                    try CrashRecoveryTests.expectTree(read, equals: model, counter: counter, round: round)
                    versionsChecked += 1
                    return counter
                }

                var acknowledged: UInt64 = 0
                let wanted = 2 + Int(random.next() % 8)
                for _ in 0..<wanted {
                    guard let line = child.readWriterLine() else { break }
                    guard case .committed(let counter) = line else {
                        Issue.record("round \(round): unexpected writer output \(line)")
                        break
                    }
                    acknowledged = counter
                    let seen = try checkNewest("while writing")
                    #expect(seen >= acknowledged, "round \(round): acknowledged \(acknowledged), the follower saw \(seen)")
                }
                if random.next() % 2 == 0 { usleep(UInt32(random.next() % 3_000)) }  // spreads the kill point only
                child.sendKill()
                _ = child.wait()
                while let line = child.readLine() {
                    if let counter = UInt64(line.split(separator: " ").last ?? "") { acknowledged = max(acknowledged, counter) }
                }
                let last = try checkNewest("after the kill")
                #expect(last >= acknowledged, "round \(round): acknowledged \(acknowledged), the follower ends at \(last)")

                // The snapshot taken in the first run with data is intact: no writer reused its pages.
                if let firstSnapshot {
                    try CrashRecoveryTests.expectTree(firstSnapshot.read, equals: firstSnapshot.model, counter: firstSnapshot.counter, round: round)
                }
            }
            firstSnapshot = nil
            try follower?.close()
            #expect(versionsChecked > rounds * 2, "only \(versionsChecked) versions checked")
            print("FollowerCrashTests: \(rounds) kills, \(versionsChecked) versions checked whole, counter \(modelCounter)")
        }
    }
}
