import Foundation
import Testing
@testable import RealmStorage
@testable import realm_crash_writer
import RealmTestSupport

/// A real writing process (`realm-crash-writer`) and this one, read-only beside it, following its
/// commits through the lock file; the writer is SIGKILLed at random moments. Whatever the writer
/// is doing, the follower must see only whole versions (each version it begins at holds exactly
/// the content recomputed from the workload), never go back, see every commit the writer
/// acknowledged (publishing precedes the acknowledgement), and keep an old snapshot's pages while
/// the writer commits on (its pin is in its slot, which the other process's writer reads).
@Suite(.timeLimit(.minutes(5))) struct FollowerCrashTests {
    @Test func aFollowerSeesWholeVersionsAndEveryAcknowledgedCommitOfAKilledWriter() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let executable = try CrashWriterExecutable.path()
        var random = SplitMix64(seed: 0xF011_0E4)
        var model: [UInt64: CrashRecoveryTests.Entry] = [:]
        var modelCounter: UInt64 = 0
        var versionsChecked = 0
        var previousSeed: UInt64 = 0
        let rounds = 12

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
            guard let start = child.readLine(), start.hasPrefix("start "), let resumed = UInt64(start.dropFirst(6)) else {
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
            // The writer is attached: this process follows it.
            var options = DatabaseOptions(readOnly: true)
            options.durability = .full
            let follower = try Database.open(path: path, options: options)
            #expect(follower.followsAnotherProcess, "round \(round)")

            /// Begins at the newest version, checks it whole against the model (brought forward
            /// with this round's seed), and returns its counter.
            func checkNewest(_ label: String) throws -> UInt64 {
                let read = try follower.beginRead()
                guard try read.treeIDs().contains(CrashWorkload.tree) else { return 0 }
                let bytes = try #require(try read.value(CrashWorkload.tree, key: CrashWorkload.counterKey))
                let counter = try #require(CrashWorkload.decodeCounter(bytes)).transaction
                try #require(counter >= modelCounter, "round \(round) \(label): went back from \(modelCounter) to \(counter)")
                advanceModel(to: counter, seed: seed)
                try CrashRecoveryTests.expectTree(read, equals: model, counter: counter, round: round)
                versionsChecked += 1
                return counter
            }

            let pinned = try follower.beginRead()  // held while the writer commits on
            let pinnedModel = (model, modelCounter)
            var acknowledged: UInt64 = 0
            let wanted = 2 + Int(random.next() % 8)
            for _ in 0..<wanted {
                guard let line = child.readLine() else { break }
                let parts = line.split(separator: " ")
                guard parts.count == 2, parts[0] == "committed", let counter = UInt64(parts[1]) else {
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

            // The snapshot taken at the start of the round is intact: the writer never reused
            // its pages while this process pinned it.
            if pinnedModel.1 > 0 {
                try CrashRecoveryTests.expectTree(pinned, equals: pinnedModel.0, counter: pinnedModel.1, round: round)
            }
            _ = consume pinned
            try follower.close()  // the next writer opens the file alone (one writing process)
        }
        #expect(versionsChecked > rounds * 2, "only \(versionsChecked) versions checked")
        print("FollowerCrashTests: \(rounds) kills, \(versionsChecked) versions checked whole, counter \(modelCounter)")
    }
}
