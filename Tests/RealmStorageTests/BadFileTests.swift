import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Files that are not valid databases, and paths that cannot be opened: each gives a thrown
/// `StorageError` with the right code and a clear message, never a crash, and leaves the file's
/// bytes as they were. Then a decoder fuzz test: damaged pages must never crash a reader.
@Suite struct BadFileTests {
    // MARK: Helpers

    /// A small valid database: a multi-level tree, overflow values, an empty tree, a small tree,
    /// some freed pages, closed (the checkpoint: the next open verifies nothing). `beforeClose`
    /// gets the file's bytes as a crash right after the last commit would leave them.
    @discardableResult
    static func makeDatabase(at path: String, beforeClose: (Data) -> Void = { _ in }) throws -> [TreeID: [UInt64: [UInt8]]] {
        var model: [TreeID: [UInt64: [UInt8]]] = [:]
        let database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
        let write = try database.beginWrite()
        let trees = try (0..<4).map { _ in try write.createTree() }
        for tree in trees { model[tree] = [:] }
        for key in 0..<UInt64(800) { model[trees[0]]![key] = testValue(key: key, version: 1, length: 20 + Int(key % 60)) }
        for key in 0..<UInt64(12) { model[trees[1]]![key * 1_000] = testValue(key: key, version: 2, length: 1_100 + Int(key) * 700) }
        for key in 0..<UInt64(5) { model[trees[3]]![key] = [UInt8(key)] }
        // In key order: dictionary order differs per process, and the file must not.
        for (tree, entries) in model.sorted(by: { $0.key < $1.key }) {
            for (key, value) in entries.sorted(by: { $0.key < $1.key }) { try write.put(tree, key: key, value: value) }
        }
        try write.commit()
        // A second commit, so that the free list is not empty.
        let update = try database.beginWrite()
        for key in stride(from: UInt64(0), to: 800, by: 50) {
            let value = testValue(key: key, version: 3, length: 30)
            try update.put(trees[0], key: key, value: value)
            model[trees[0]]![key] = value
        }
        try update.commit()
        beforeClose(bytes(path) ?? Data())
        try database.close()
        return model
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Opens `path`, expecting an error with `code` whose message contains `message`, and checks
    /// that the file's bytes did not change.
    static func expectOpenFails(_ path: String, options: DatabaseOptions = DatabaseOptions(), code: StorageError.Code,
                                message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = bytes(path)
        do {
            _ = try Database.open(path: path, options: options)
            Issue.record("opened \(path), expected \(code)", sourceLocation: sourceLocation)
        } catch let error as StorageError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(message), "message: \(error.message)", sourceLocation: sourceLocation)
            #expect(error.path != nil, "the error names the file", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        }
        #expect(bytes(path) == before, "the file's bytes changed", sourceLocation: sourceLocation)
    }

    // MARK: Bad files

    @Test func anEmptyFileIsRejected() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        Self.expectOpenFails(path, code: .invalidDatabase, message: "empty (0 bytes)")
        Self.expectOpenFails(path, options: DatabaseOptions(readOnly: true), code: .invalidDatabase, message: "empty")
    }

    @Test func aTruncatedFileIsRejected() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        let whole = try #require(Self.bytes(path))
        #expect(whole.count >= 20 * PageLayout.pageSize)

        try whole.prefix(PageLayout.pageSize).write(to: URL(fileURLWithPath: path))  // one page
        Self.expectOpenFails(path, code: .invalidDatabase, message: "truncated (4096 bytes)")

        try whole.prefix(100).write(to: URL(fileURLWithPath: path))
        Self.expectOpenFails(path, code: .invalidDatabase, message: "truncated (100 bytes)")

        // Cut in the middle of the data (and of a page): both metas need more pages than remain.
        try whole.prefix(whole.count / 2 + 1_000).write(to: URL(fileURLWithPath: path))
        Self.expectOpenFails(path, code: .invalidDatabase, message: "corrupt or truncated")
        Self.expectOpenFails(path, options: DatabaseOptions(readOnly: true), code: .invalidDatabase, message: "pages but the file has")
    }

    @Test func foreignFilesAreRejected() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var generator = SplitMix64(seed: 1)
        let random = Data((0..<(5 * PageLayout.pageSize)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try random.write(to: URL(fileURLWithPath: path))
        Self.expectOpenFails(path, code: .invalidDatabase, message: "Not a realm file")

        let text = String(repeating: "This is a text file, not a database.\n", count: 400)  // 15 KB
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        Self.expectOpenFails(path, code: .invalidDatabase, message: "Not a realm file")

        try "hello\n".write(toFile: path, atomically: false, encoding: .utf8)
        Self.expectOpenFails(path, code: .invalidDatabase, message: "or is not a realm file")
    }

    /// A newer format is refused with "upgrade"; the development formats 1 to 7 are refused as
    /// such, not misread (their index keys, table leaves, free lists or inline limits differ; 5 and
    /// 7 store free runs without the versions that see them, which several processes need) and
    /// not converted.
    @Test(arguments: [MetaPage.formatVersion + 1, 1, 2, 3, 4, 5, 6, 7])
    func aFileOfAnotherFormatIsRejected(version: UInt32) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        var data = try #require(Self.bytes(path))
        data.withUnsafeMutableBytes { buffer in
            for slot in 0..<2 {
                let page = buffer.baseAddress! + slot * PageLayout.pageSize
                page.setU32(32, version)
                PageChecksum.seal(page, length: PageLayout.pageSize)
            }
        }
        try data.write(to: URL(fileURLWithPath: path))
        if version > MetaPage.formatVersion {
            Self.expectOpenFails(path, code: .invalidDatabase, message: "format version \(version), newer than this library supports")
            Self.expectOpenFails(path, options: DatabaseOptions(readOnly: true), code: .invalidDatabase, message: "upgrade")
        } else {
            Self.expectOpenFails(path, code: .invalidDatabase, message: "written by an older development version of RealmActors (format \(version)); this version reads formats 8 and 9 — ")
            Self.expectOpenFails(path, options: DatabaseOptions(readOnly: true), code: .invalidDatabase, message: "(format \(version))")
        }
    }

    /// A newer library's meta in the newest slot refuses the file even though the other slot
    /// holds a version this library reads: falling back to that older version would lose the
    /// newer commits and then overwrite their pages.
    @Test func aNewerFormatInOneSlotRefusesTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        var data = try #require(Self.bytes(path))
        data.withUnsafeMutableBytes { buffer in
            func transaction(_ slot: Int) -> UInt64 { UnsafeRawPointer(buffer.baseAddress! + slot * PageLayout.pageSize).u64(40) }
            let page = buffer.baseAddress! + (transaction(0) > transaction(1) ? 0 : 1) * PageLayout.pageSize
            page.setU32(32, MetaPage.formatVersion + 1)
            PageChecksum.seal(page, length: PageLayout.pageSize)
        }
        try data.write(to: URL(fileURLWithPath: path))
        Self.expectOpenFails(path, code: .invalidDatabase, message: "newer than this library supports")
    }

    @Test func corruptMetaPages() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let model = try Self.makeDatabase(at: path)
        let valid = try #require(Self.bytes(path))
        func damaged(slots: [Int]) -> Data {
            var data = valid
            for slot in slots { data[slot * PageLayout.pageSize + 50] ^= 0x40 }  // inside the durable base field
            return data
        }
        // Both damaged: nothing to fall back to.
        try damaged(slots: [0, 1]).write(to: URL(fileURLWithPath: path))
        Self.expectOpenFails(path, code: .invalidDatabase, message: "both header pages fail their checksum")

        // One damaged: the other one opens, with every committed entry (after a clean close both
        // metas describe the same content).
        for slot in 0..<2 {
            try damaged(slots: [slot]).write(to: URL(fileURLWithPath: path))
            let database = try Database.open(path: path, options: DatabaseOptions(readOnly: true))
            let read = try database.beginRead()
            for (tree, entries) in model {
                var found: [UInt64: [UInt8]] = [:]
                try read.forEach(in: read.root(of: tree)) { key, value in found[key] = Array(value); return true }
                #expect(found == entries, "meta \(slot) damaged: tree \(tree)")
            }
            _ = try database.verify()
        }
    }

    @Test func pathsThatCannotBeOpened() throws {
        let directory = try TemporaryDirectory()
        // A directory that does not exist is not created.
        let missing = directory.path("no/such/directory/test.realm")
        Self.expectOpenFails(missing, code: .fileNotFound, message: "No such file or directory")
        #expect(!FileManager.default.fileExists(atPath: directory.path("no")))
        // Read-only never creates the file.
        Self.expectOpenFails(directory.path("absent.realm"), options: DatabaseOptions(readOnly: true), code: .fileNotFound, message: "Could not open the realm file")
        #expect(!FileManager.default.fileExists(atPath: directory.path("absent.realm")))

        // A directory without write permission.
        let locked = directory.url.appendingPathComponent("readonly", isDirectory: true)
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let inLocked = locked.appendingPathComponent("test.realm").path
        if geteuid() == 0 {
            // Root bypasses permission checks (CAP_DAC_OVERRIDE), so the open would succeed:
            // only the non-root assertion is skipped; the open must still not crash.
            _ = try? Database.open(path: inLocked)
        } else {
            Self.expectOpenFails(inLocked, code: .filePermissionDenied, message: "Permission denied")
        }
    }

    /// One writing process per file, for now: a second writable open is refused while the first
    /// has it (a read-only one follows it: `LockFileTests`).
    @Test func aFileOpenForWritingInAnotherInstanceIsLocked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        do {
            let first = try Database.open(path: path)
            Self.expectOpenFails(path, code: .incompatibleLockFile, message: "open in another process")
            try first.close()
        }
        // Once closed, it opens again.
        let second = try Database.open(path: path)
        _ = try second.verify()
    }

    // MARK: Decoder fuzz

    /// Damages a valid file in many seeded ways and reads everything with every reader API, then
    /// `verify()`. Errors are expected; a crash is a bug. Pages outside the newest batch are not
    /// checksum-verified on open (after a clean close: none are), so the readers meet raw garbage;
    /// half the mutations also re-seal the page checksum, which reaches `verify()`'s decoders.
    ///
    /// The checks run in a child process (`realm-crash-writer check`), so a crash becomes a
    /// recorded finding with its seed instead of ending the whole test run.
    @Test func damagedPagesNeverCrashAReader() async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let executable = try CrashWriterExecutable.path()
            let basePath = directory.path("base.realm")
            // The file without the checkpoint ("crashed"): open verifies the newest batch.
            var crashedBytes = Data()
            try Self.makeDatabase(at: basePath) { crashedBytes = $0 }
            let bases = [try #require(Self.bytes(basePath)), crashedBytes]
            #expect(bases[0] != bases[1])
            #expect(checkOne(executable, directory, bases[0]).hasPrefix("open=ok"), "the undamaged file checks clean")

            // REALM_FUZZ_ITERATIONS=<n> runs a longer campaign by hand.
            let iterations = ProcessInfo.processInfo.environment["REALM_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 300
            let batch = 50
            var crashes: [String] = []
            var outcomes: [String: Int] = [:]  // outcome shapes (numbers removed) → files
            for start in stride(from: 0, to: iterations, by: batch) {
                var descriptions: [String] = []
                var paths: [String] = []
                for seed in start..<min(start + batch, iterations) {
                    var generator = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
                    var data = bases[seed % 2]
                    let description = FileMutation.apply(to: &data, &generator)
                    let path = directory.path("fuzz-\(seed - start).realm")
                    try data.write(to: URL(fileURLWithPath: path))
                    paths.append(path)
                    descriptions.append("seed \(seed) (\(seed % 2 == 0 ? "closed" : "crashed") file): \(description)")
                }
                var next = 0
                while next < paths.count {
                    let child = try ChildProcess(executable: executable, arguments: ["check"] + paths[next...],
                                                 standardError: directory.path("check.stderr"))
                    var begun: Int?
                    while let line = child.readLine() {
                        let parts = line.split(separator: " ", maxSplits: 2)
                        guard parts.count >= 2, let index = Int(parts[1]) else { continue }
                        if parts[0] == "begin" { begun = next + index }
                        if parts[0] == "done" {
                            begun = nil
                            let outcome = parts.count > 2 ? String(parts[2]) : ""
                            var shape = String(outcome.filter { !$0.isNumber && $0 != "(" && $0 != ")" })
                            while shape.contains("tree=error tree=error") { shape = shape.replacingOccurrences(of: "tree=error tree=error", with: "tree=error") }
                            outcomes[shape, default: 0] += 1
                        }
                    }
                    let status = child.wait()
                    if let crashed = begun {
                        let errors = (try? String(contentsOfFile: directory.path("check.stderr"), encoding: .utf8)) ?? ""
                        let reason = errors.split(separator: "\n").first { $0.contains("Fatal error") || $0.contains("Crash") } ?? ""
                        crashes.append("\(descriptions[crashed]) → \(status) \(reason)")
                        // REALM_FUZZ_KEEP=<directory> keeps each crashing input for `realm-crash-writer check`.
                        if let keep = ProcessInfo.processInfo.environment["REALM_FUZZ_KEEP"] {
                            try? FileManager.default.copyItem(atPath: paths[crashed], toPath: "\(keep)/fuzz-crash-\(start + crashed).realm")
                        }
                        next = crashed + 1
                    } else {
                        #expect(status == .exited(0))
                        next = paths.count
                    }
                }
            }
            #expect(crashes.isEmpty, "\(crashes.count) of \(iterations) damaged files crashed the reader:\n\(crashes.joined(separator: "\n"))")
            // The damage must reach the decoders, or this test proves little.
            let opened = outcomes.filter { $0.key.hasPrefix("open=ok") }.values.reduce(0, +)
            let caught = outcomes.filter { !$0.key.hasPrefix("open=ok") || $0.key.contains("error") || $0.key.contains("verify=invalidDatabase") }
                .values.reduce(0, +)
            #expect(opened >= iterations / 3 && caught >= iterations / 10, "outcomes: \(outcomes)")
            print("BadFileTests fuzz: \(crashes.count) crashes; outcomes: \(outcomes.sorted { $0.value > $1.value })")
        }
    }

    // MARK: Crashes found by the fuzz test and by reading the decoders, one input each

    /// Runs `realm-crash-writer check` on `data`: the outcome line, or the way the process died.
    static func check(_ data: Data, in directory: TemporaryDirectory) throws -> (status: ChildProcess.Status, outcome: String, crash: String) {
        let path = directory.path("repro.realm")
        try data.write(to: URL(fileURLWithPath: path))
        let child = try ChildProcess(executable: try CrashWriterExecutable.path(), arguments: ["check", path],
                                     standardError: directory.path("repro.stderr"))
        var outcome = ""
        while let line = child.readLine() {
            if line.hasPrefix("done 0 ") { outcome = String(line.dropFirst(7)) }
        }
        let status = child.wait()
        let errors = (try? String(contentsOfFile: directory.path("repro.stderr"), encoding: .utf8)) ?? ""
        // The first frame in the engine's sources, from the backtrace.
        let frame = errors.split(separator: "\n").first { $0.contains("Sources/RealmStorage/") }.map { String($0.split(separator: "/").suffix(2).joined(separator: "/")) } ?? ""
        return (status, outcome, frame)
    }

    /// The byte offsets of the pages of `kind` in a file image.
    static func pages(of kind: PageKind, in data: Data) -> [Int] {
        stride(from: 2 * PageLayout.pageSize, to: data.count, by: PageLayout.pageSize).filter { data[$0 + PageLayout.kindOffset] == kind.rawValue }
    }

    /// A leaf's overflow reference with a length near `UInt64.max`, in a closed file (so no
    /// checksum is verified on open): the length must be checked against the 16 MB limit before
    /// it sizes the run (`32 + Int.max` once trapped in `bytes(of:)`).
    @Test
    func anOverflowReferenceWithAHugeLengthDoesNotCrashAReader() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        var data = try #require(Self.bytes(path))
        var patched = 0
        for page in Self.pages(of: .leaf, in: data) {
            data.withUnsafeMutableBytes { buffer in
                let leaf = ValueLeaf(UnsafeRawPointer(buffer.baseAddress! + page))
                for index in 0..<leaf.count where leaf.isOverflow(index) {
                    (buffer.baseAddress! + page + leaf.valueOffset(index)).setU64(16, UInt64.max - 1)  // (page, transaction, length)
                    patched += 1
                }
            }
        }
        try #require(patched > 0)
        let result = try Self.check(data, in: directory)
        #expect(result.status == .exited(0), "\(result.status) at \(result.crash)")
        #expect(result.outcome.contains("error"), "\(result.outcome)")
    }

    /// An inner page whose checksum is valid but whose child counts are garbage: the integrity
    /// walk's sums must report the overflow, not trap (in `verify()` and, for a page of the
    /// newest batch, in `open()`).
    @Test
    func anInnerPageWithHugeChildCountsDoesNotCrashVerify() throws {
        try Self.expectVerifyRejects(rootEdit: { page in
            for index in 0..<2 { page.setU64(InnerNode.offset(index) + 24, UInt64.max / 2 + 1) }
        })
    }

    /// An inner page (checksum valid) whose child pointer is `UInt64.max`: the integrity check
    /// must bound it without computing `page + pages`, which overflows.
    @Test
    func aChildPointerNearUInt64MaxDoesNotCrashVerify() throws {
        try Self.expectVerifyRejects(rootEdit: { page in
            page.setU64(InnerNode.offset(1) + 8, UInt64.max)  // (key, child page, child transaction, count)
        })
    }

    /// A catalog entry naming a root far outside the file, written by transaction 0, with a count
    /// of 0 (found by the `log` fuzz harness, in a replayed record). The full check used to skip
    /// a reference of transaction 0 as if recovery trusted it — so the file passed, and the first
    /// read of the table trapped. The check reports it now, and so does the recovery check of
    /// the batch that wrote it.
    @Test
    func aTreeRootOfTransactionZeroFailsVerify() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        let catalog = try Database.open(path: path, options: DatabaseOptions(readOnly: true)).beginRead().meta.catalog
        var data = try #require(Self.bytes(path))
        data.withUnsafeMutableBytes { buffer in
            let page = buffer.baseAddress! + Int(catalog.page) * PageLayout.pageSize
            let leaf = ValueLeaf(UnsafeRawPointer(page))
            let (index, found) = leaf.find(1)
            precondition(found && page.pageKind == .leaf, "the catalog is one leaf holding tree 1")
            let entry = UnsafeMutableRawPointer(mutating: leaf.inlineValue(index).baseAddress!)
            entry.setU64(0, 63232)  // (root page, transaction, count)
            entry.setU64(8, 0)
            entry.setU64(16, 0)
            PageChecksum.seal(page, length: PageLayout.pageSize)
        }
        try data.write(to: URL(fileURLWithPath: path))
        let database = try Database.open(path: path, options: DatabaseOptions(readOnly: true))
        let error = #expect(throws: StorageError.self) { try database.verify() }
        #expect(error?.message.contains("page 63232 is referenced as written by transaction 0") == true, "\(String(describing: error))")
    }

    /// Edits the first tree's root (an inner page) of a fresh database, reseals its checksum, and
    /// expects the checker process to open the file and report it damaged without crashing.
    static func expectVerifyRejects(rootEdit: (UnsafeMutableRawPointer) -> Void,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try makeDatabase(at: path)
        let root = try Database.open(path: path, options: DatabaseOptions(readOnly: true)).beginRead().root(of: 1)
        var data = try #require(bytes(path), sourceLocation: sourceLocation)
        let inner = Int(root.page) * PageLayout.pageSize
        try #require(data[inner + PageLayout.kindOffset] == PageKind.inner.rawValue,
                     "the first tree's root is an inner page", sourceLocation: sourceLocation)
        data.withUnsafeMutableBytes { buffer in
            let page = buffer.baseAddress! + inner
            rootEdit(page)
            PageChecksum.seal(page, length: PageLayout.pageSize)
        }
        let result = try check(data, in: directory)
        #expect(result.status == .exited(0), "\(result.status) at \(result.crash)", sourceLocation: sourceLocation)
        #expect(result.outcome.contains("verify=invalidDatabase"), "\(result.outcome)", sourceLocation: sourceLocation)
    }

    /// A free-list entry whose start is near `UInt64.max`: `FreeListChain.decode` must bound the start
    /// before computing `run.end` (`start + count` once trapped). After a clean close the chain
    /// is trusted, so this is `open()` itself.
    @Test
    func aFreeListEntryNearUInt64MaxDoesNotCrashOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        var data = try #require(Self.bytes(path))
        let chain = try #require(Self.pages(of: .freeList, in: data).first)
        data.withUnsafeMutableBytes { buffer in
            let page = buffer.baseAddress! + chain
            precondition(UnsafeRawPointer(page).pageCount16 > 0, "the free list has entries")
            page.setU64(FreeListChain.entriesOffset, UInt64.max - 1)  // (start | taken bit, count)
            page.setU64(FreeListChain.entriesOffset + 8, UInt64.max - 1)
        }
        let result = try Self.check(data, in: directory)
        #expect(result.status == .exited(0), "\(result.status) at \(result.crash)")
        #expect(result.outcome.hasPrefix("open=invalidDatabase"), "\(result.outcome)")
    }

    /// Free-list entries naming transactions after the version (or a take with a creator): the
    /// chain is trusted after a clean close, so `open()` decodes it, and must refuse it.
    @Test
    func aFreeListEntryFromTheFutureIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try Self.makeDatabase(at: path)
        var data = try #require(Self.bytes(path))
        let chain = Self.pages(of: .freeList, in: data)
        try #require(!chain.isEmpty)
        data.withUnsafeMutableBytes { buffer in
            for offset in chain {  // stale chain pages too: whichever the chain uses is damaged
                let page = buffer.baseAddress! + offset
                page.setU64(FreeListChain.entriesOffset + 16, 1)  // (…, createdBy, transaction)
                page.setU64(FreeListChain.entriesOffset + 24, UInt64.max - 1)
            }
        }
        let result = try Self.check(data, in: directory)
        #expect(result.status == .exited(0), "\(result.status) at \(result.crash)")
        #expect(result.outcome.hasPrefix("open=invalidDatabase"), "\(result.outcome)")
    }

    /// A value leaf that is the file's last page, with entry count 341 = `pageSize / slotSize`:
    /// slots start at byte 24, so only 339 fit, and slots past them lie past the end of the file,
    /// which the mapping turns into SIGBUS. Readers must bound the count by what fits.
    @Test
    func aLeafCountPastThePageDoesNotCrashAReader() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        do {  // one tree, one leaf: the catalog leaf is the last page
            let database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
            let write = try database.beginWrite()
            let tree = try write.createTree()
            try write.put(tree, key: 1, value: [1])
            try write.commit()
            try database.close()
        }
        var data = try #require(Self.bytes(path))
        let last = data.count - PageLayout.pageSize
        try #require(data[last + PageLayout.kindOffset] == PageKind.leaf.rawValue, "the last page is a leaf")
        data[last + PageLayout.countOffset] = UInt8(341 & 0xFF)
        data[last + PageLayout.countOffset + 1] = UInt8(341 >> 8)
        let result = try Self.check(data, in: directory)
        #expect(result.status == .exited(0), "\(result.status) at \(result.crash)")
    }

    func checkOne(_ executable: String, _ directory: TemporaryDirectory, _ data: Data) -> String {
        let path = directory.path("single.realm")
        guard (try? data.write(to: URL(fileURLWithPath: path))) != nil,
              let child = try? ChildProcess(executable: executable, arguments: ["check", path], standardError: directory.path("single.stderr"))
        else { return "not run" }
        var result = "no output"
        while let line = child.readLine() {
            if line.hasPrefix("done 0 ") { result = String(line.dropFirst(7)) }
        }
        _ = child.wait()
        return result
    }
}

/// Seeded damage to a database file's bytes.
enum FileMutation {
    static let pageSize = PageLayout.pageSize

    /// Applies one to three mutations and returns what it did (enough to reproduce it by hand).
    static func apply(to data: inout Data, _ generator: inout SplitMix64) -> String {
        let pages = data.count / pageSize
        var notes: [String] = []
        var touched = Set<Int>()
        for _ in 0..<(1 + Int(generator.next() % 3)) {
            // Meta pages only now and then (they are always checksum-verified).
            let page = generator.next() % 10 == 0 ? Int(generator.next() % 2) : 2 + Int(generator.next() % UInt64(pages - 2))
            touched.insert(page)
            let base = page * pageSize
            switch generator.next() % 6 {
            case 0:  // flip bits in a few random bytes
                var offsets: [Int] = []
                for _ in 0..<(1 + Int(generator.next() % 8)) {
                    let offset = Int(generator.next() % UInt64(pageSize))
                    data[base + offset] ^= UInt8(truncatingIfNeeded: 1 + generator.next() % 255)
                    offsets.append(offset)
                }
                notes.append("page \(page): flipped bytes at \(offsets)")
            case 1, 2:  // an interesting 64-bit value in a field-aligned slot
                // Mostly in the first 512 bytes, where headers, slots and inner entries are.
                let range = generator.next() % 2 == 0 ? 512 : pageSize
                let offset = min(8 + Int(generator.next() % UInt64(range / 8)) * 8 + [0, 4, 0, 0][Int(generator.next() % 4)], pageSize - 8)
                let value = interesting(UInt64(pages), &generator)
                write(value, to: &data, at: base + offset)
                notes.append("page \(page): u64 \(value) at \(offset)")
            case 3:  // a header field: kind, count, aux
                switch generator.next() % 3 {
                case 0:
                    let kind = UInt8(generator.next() % 10)
                    data[base + PageLayout.kindOffset] = kind
                    notes.append("page \(page): kind \(kind)")
                case 1:
                    let count = [0, 1, 127, 128, 339, 340, 341, 342, 1_000, 65_535][Int(generator.next() % 10)]
                    data[base + PageLayout.countOffset] = UInt8(count & 0xFF)
                    data[base + PageLayout.countOffset + 1] = UInt8(count >> 8)
                    notes.append("page \(page): count \(count)")
                default:
                    let aux = [0, 1, 24, 4_095, 4_096, 4_097, 65_535, 0xFFFF_FFFF][Int(generator.next() % 8)]
                    for byte in 0..<4 { data[base + PageLayout.auxOffset + byte] = UInt8(truncatingIfNeeded: aux >> (8 * byte)) }
                    notes.append("page \(page): aux \(aux)")
                }
            case 4:  // a page replaced by another page's bytes (a stale or misdirected write)
                let other = 2 + Int(generator.next() % UInt64(pages - 2))
                let copy = data[(other * pageSize)..<((other + 1) * pageSize)]
                data.replaceSubrange(base..<(base + pageSize), with: copy)
                notes.append("page \(page): replaced by page \(other)")
            default:  // zeros or noise over part of the page
                let start = Int(generator.next() % UInt64(pageSize))
                let length = 1 + Int(generator.next() % UInt64(pageSize - start))
                let noise = generator.next() % 2 == 0
                for offset in start..<(start + length) { data[base + offset] = noise ? UInt8(truncatingIfNeeded: generator.next()) : 0 }
                notes.append("page \(page): \(noise ? "noise" : "zeros") over \(start)..<\(start + length)")
            }
        }
        if generator.next() % 2 == 0 {
            data.withUnsafeMutableBytes { buffer in
                for page in touched { PageChecksum.seal(buffer.baseAddress! + page * pageSize, length: pageSize) }
            }
            notes.append("re-sealed")
        }
        return notes.joined(separator: "; ")
    }

    static func interesting(_ pages: UInt64, _ generator: inout SplitMix64) -> UInt64 {
        let choices: [UInt64] = [0, 1, 2, pages - 1, pages, pages + 1, UInt64.max, UInt64.max - 1, 1 << 63,
                                 UInt64(UInt32.max), generator.next(), generator.next() % 64, generator.next() % pages]
        return choices[Int(generator.next() % UInt64(choices.count))]
    }

    static func write(_ value: UInt64, to data: inout Data, at offset: Int) {
        for byte in 0..<8 { data[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
    }
}
