import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// An open for work that replaces the file (`DatabaseOptions.keepsOthersOut`: compaction on
/// launch) has the file to itself from open to close: it is refused while another process has
/// the file open, and a process opening meanwhile waits, then finds itself the first on the new
/// file. Before, a reader attaching during a compaction followed the file being replaced, and the
/// next writer was refused ("replaced") until that reader closed.
///
/// Two `Database` instances on one path stand for two processes, as in `LockFileTests`.
@Suite struct KeepingOthersOutTests {
    static func keepingOthersOut() -> DatabaseOptions {
        var options = DatabaseOptions(durability: .none)
        options.keepsOthersOut = true
        return options
    }

    @Test func anOpenKeepingOthersOutIsRefusedBesideAnotherProcess() throws {
        let directory = try TemporaryDirectory()
        let path = try LockFileTests.makeFile(directory)
        let reader = try LockFileTests.reader(path)
        let refused = try #require(throws: StorageError.self) { try Database.open(path: path, options: Self.keepingOthersOut()) }
        #expect(refused.code == .alreadyOpen, "\(refused)")
        try reader.close()
        let alone = try Database.open(path: path, options: Self.keepingOthersOut())
        try alone.close()
    }

    @Test func aProcessOpeningMeanwhileWaitsAndOpensTheNewFile() async throws {
        let directory = try TemporaryDirectory()
        let path = try LockFileTests.makeFile(directory)
        let compacting = try Database.open(path: path, options: Self.keepingOthersOut())
        let opening = BlockingCall { () -> Result<Database, StorageError> in
            do {
                return .success(try LockFileTests.reader(path))
            } catch {
                return .failure(error as? StorageError ?? StorageError(.fail, "\(error)"))
            }
        }
        // Waits for the control lock the compacting process keeps (without it, it opens at once
        // beside it, on the file about to be replaced).
        #expect(await !opening.returns(within: 0.5), "a process opened the file while another kept others out")
        // The file is replaced, as compaction replaces it, then closed.
        do {
            let read = try compacting.beginRead()
            try Database.writeCompactCopy(of: read, tables: [:], to: path, replacing: true)
        }
        try compacting.close()
        let reader = try await opening.value().get()
        #expect(reader.lockFile?.isFirst == true, "it attached after the compacting process left")
        _ = try reader.beginRead()
        try reader.close()
        // A writer now opens the new file (before, it was refused as replaced while such a
        // reader stayed attached to the old one).
        let writer = try LockFileTests.writer(path)
        try writer.close()
    }
}
