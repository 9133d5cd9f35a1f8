import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Compaction killed at random moments (`realm-crash-writer compact` rewrites the file in place
/// again and again, and is SIGKILLed): after every kill the file holds exactly its content and
/// passes the integrity check — the old file or the compacted one, never a mix or neither.
@Suite struct CompactionCrashTests {
    @Test func aKilledCompactionLeavesTheOldFileOrTheNewOne() async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let path = directory.path()
            let executable = try CrashWriterExecutable.path()
            // About 4 MB of values, so that one compaction takes long enough to be killed inside.
            var expected: [UInt64: [UInt8]] = [:]
            do {
                let database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
                let write = try database.beginWrite()
                let tree = try write.createTree()
                for key in 0..<UInt64(4_000) {
                    let value = testValue(key: key, version: 1, length: key % 9 == 0 ? 3_000 : 900)
                    _ = try write.put(tree, key: key, value: value)
                    expected[key] = value
                }
                try write.commit()
                let thin = try database.beginWrite()  // free pages, so that compaction changes the file
                for key in stride(from: UInt64(0), to: 4_000, by: 3) {
                    _ = try thin.remove(tree, key: key)
                    expected[key] = nil
                }
                try thin.commit()
                try database.close()
            }
            var random = SplitMix64(seed: 0xC0_4AC7)
            var completed = 0  // compactions reported before a kill
            var interrupted = 0  // kills that left a partial copy behind
            let rounds = 60
            for round in 0..<rounds {
                let child = try ChildProcess(executable: executable, arguments: ["compact", path],
                                             standardError: directory.path("compactor-\(round).stderr"))
                // Let it finish 0–2 compactions, then kill at a random point of the next one.
                let wanted = Int(random.next() % 3)
                var lines = 0
                while lines < wanted, child.readLine() != nil { lines += 1 }
                usleep(UInt32(random.next() % 30_000))
                child.sendKill()
                #expect(child.wait() == .signaled(SIGKILL), "round \(round)")
                while child.readLine() != nil { lines += 1 }
                completed += lines
                if FileManager.default.fileExists(atPath: path + AuxiliaryFile.copying.suffix) { interrupted += 1 }

                let database = try Database.open(path: path, options: DatabaseOptions(readOnly: true))
                let read = try database.beginRead()
                var found: [UInt64: [UInt8]] = [:]
                try read.forEach(in: read.root(of: 1)) { key, value in found[key] = Array(value); return true }
                #expect(found == expected, "round \(round): \(found.count) keys, expected \(expected.count)")
                _ = try database.verify()
            }
            #expect(completed > 0 && interrupted > 0, "\(completed) compactions completed, \(interrupted) kills mid-copy")
            print("CompactionCrashTests: \(rounds) kills, \(completed) compactions completed, \(interrupted) kills mid-copy")
        }
    }
}
