import Foundation
import RealmActors
import Testing
import RealmTestSupport

/// The damage corpus on the write-ahead log: a data file as its last checkpoint left it, and
/// beside it the log of the commits since (what a crash before the next checkpoint leaves),
/// the log damaged in seeded-random ways — truncated, bits flipped in its header, a record's
/// header or an image, a record of another file's log put in its place, junk after the last
/// record (an append that was never acknowledged).
///
/// What must hold, for every variant: every command exits 0 or 1 (1 with a message), never a
/// signal or a hang; opening through the API throws a `Realm.Error` or succeeds, and what it
/// opens is the state after some commit — at least every commit whose record lies wholly before
/// the first damaged byte (all of them when only the tail after the last record is damaged); a
/// file that passes `checkIntegrity()` dumps whole (`realm-inspect dump` reads every object).
///
/// The log names its data file by device and inode, so the data file and its log are written
/// back in place (same inode) before every command; `REALM_DAMAGE_VARIANTS` sets the number of
/// variants, as for the data file.
extension DamageCorpusTests {
    /// The commits the log holds (each a record), and the pets each adds.
    static let loggedCommits = 6
    static let petsPerCommit = 10
    static var logVariantCount: Int { variants(default: 2 * LogDamage.allCases.count) }

    /// A data file at its checkpoint and the log of `loggedCommits` commits after it.
    struct LoggedRealm {
        let data: Data
        let log: Data
        /// The byte ranges of the log's records, in order.
        let records: [Range<Int>]
        var end: Int { records.last?.upperBound ?? Self.pageSize }
        static let pageSize = DamageCorpusTests.pageSize
    }

    /// Makes the realm at `path` (see ``makeRealm(at:encryptionKey:)``), opens it again, takes
    /// its data file as the open left it, commits `loggedCommits` times — each adding
    /// `petsPerCommit` pets and renaming an owner — and takes the log before the close
    /// checkpoints it.
    static func makeLoggedRealm(at path: String, encryptionKey: Data?) throws -> LoggedRealm {
        try makeRealm(at: path, encryptionKey: encryptionKey)
        let url = URL(fileURLWithPath: path)
        let configuration = InspectorWorkspace.configuration(path, encryptionKey: encryptionKey, objectTypes: objectTypes)
        let (data, log): (Data, Data) = try {
            let realm = try Realm(configuration: configuration)
            let data = try Data(contentsOf: url)
            for commit in 0..<Self.loggedCommits {
                try realm.write {
                    for pet in 0..<Self.petsPerCommit { realm.add(DCPet(value: ["name": "logged \(commit).\(pet)", "legs": pet])) }
                    realm.object(ofType: DCOwner.self, forPrimaryKey: commit)!.name = "renamed in commit \(commit)"
                }
            }
            let log = try Data(contentsOf: URL(fileURLWithPath: path + ".log"))
            withExtendedLifetime(realm) {}
            return (data, log)
        }()
        let records = Self.records(of: log)
        #expect(records.count == Self.loggedCommits, "the log holds \(records.count) records, not one per commit")
        return LoggedRealm(data: data, log: log, records: records)
    }

    /// The byte ranges of `log`'s records (FORMAT.md, "Write-ahead log": a header page, then
    /// records on page boundaries, each `h` header pages and its images), read until a page
    /// that does not start a record.
    static func records(of log: Data) -> [Range<Int>] {
        func integer<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> Int {
            Int(log[log.startIndex + offset..<log.startIndex + offset + MemoryLayout<T>.size].reversed().reduce(T(0)) { $0 << 8 | T($1) })
        }
        var records: [Range<Int>] = []
        var offset = pageSize
        while offset + pageSize <= log.count, log[offset + 8..<offset + 16] == Data("RLMAREC\0".utf8) {
            let headerPages = integer(offset + 44, UInt32.self), imagePages = integer(offset + 48, UInt64.self)
            let end = offset + (headerPages + imagePages) * pageSize
            guard headerPages > 0, end <= log.count else { break }
            records.append(offset..<end)
            offset = end
        }
        return records
    }

    /// The kinds of damage to a log.
    enum LogDamage: CaseIterable {
        case truncation, headerBits, recordHeaderBits, imageBits, recordOfAnotherFile, junkAfterTheLastRecord, tornAppend
    }

    /// Variant `seed`'s damaged log, what was done, and the number of commits that must survive
    /// (the records wholly before the first damaged byte).
    static func damagedLog(_ logged: LoggedRealm, other: LoggedRealm, seed: UInt64) -> (Data, String, Int) {
        var generator = SplitMix64(seed: seed &* 0x2545_F491_4F6C_DD1D)
        var log = logged.log
        let records = logged.records
        let kept = { (offset: Int) in records.prefix { $0.upperBound <= offset }.count }
        func flip(in range: Range<Int>) -> Int {
            let offset = Int.random(in: range, using: &generator)
            log[offset] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            return offset
        }
        let record = Int.random(in: 0..<records.count, using: &generator)
        switch LogDamage.allCases[Int(seed) % LogDamage.allCases.count] {
        case .truncation:
            let length = Int.random(in: 0..<logged.end, using: &generator)
            return (log.prefix(length), "log truncated to \(length) bytes", kept(length))
        case .headerBits:
            let offset = flip(in: 0..<64)
            return (log, "a bit flipped in the log header at \(offset)", 0)
        case .recordHeaderBits:
            let count = Int(log[records[record].lowerBound + 40])
            let offset = flip(in: records[record].lowerBound..<records[record].lowerBound + 64 + 24 * count)
            return (log, "a bit flipped in record \(record)'s header at \(offset)", record)
        case .imageBits:
            let headerPages = Int(log[records[record].lowerBound + 44])
            let offset = flip(in: records[record].lowerBound + headerPages * pageSize..<records[record].upperBound)
            return (log, "a bit flipped in record \(record)'s images at \(offset)", record)
        case .recordOfAnotherFile:
            // Another realm's record (its own salt and images) where this one's was.
            let foreign = other.records[min(record, other.records.count - 1)]
            let start = records[record].lowerBound
            let length = min(foreign.count, log.count - start)
            log.replaceSubrange(start..<start + length, with: other.log[foreign.lowerBound..<foreign.lowerBound + length])
            return (log, "record \(record) replaced by another file's", record)
        case .junkAfterTheLastRecord:
            let length = Int.random(in: 1...3 * pageSize, using: &generator)
            let junk = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            log.replaceSubrange(logged.end..<min(logged.end + length, log.count), with: junk)
            return (log, "\(length) random bytes after the last record", records.count)
        case .tornAppend:
            // An append that stopped part-way: a record's first pages again after the last one,
            // as the next sequence number would have them — a crash before its sync returned,
            // so never acknowledged.
            let copied = records[record]
            let length = Int.random(in: 1...copied.count, using: &generator)
            var torn = Data(log[copied.lowerBound..<copied.lowerBound + length])
            if length >= 32 { torn.replaceSubrange(24..<32, with: withUnsafeBytes(of: UInt64(records.count).littleEndian) { Data($0) }) }
            log = log.prefix(logged.end) + torn + log.dropFirst(logged.end + length)
            return (log, "the first \(length) bytes of record \(record) appended after the last record", records.count)
        }
    }

    /// Writes `bytes` into the existing file at `path`, keeping its inode (which the log names).
    static func overwrite(_ path: String, with bytes: Data) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
    }

    static func inode(_ path: String) throws -> UInt64 {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    /// The number of logged commits the realm at `path` shows (from its pet count), or the error
    /// that opening it threw; a count that matches no commit is recorded as an issue.
    static func commitsSeen(at path: String, encryptionKey: Data?, context: String) -> Result<Int, any Error> {
        do {
            let realm = try InspectorWorkspace.openReadOnly(path, encryptionKey: encryptionKey, objectTypes: objectTypes)
            _ = try realm.checkIntegrity()
            let pets = realm.objects(DCPet.self).count - 300
            guard pets >= 0, pets % petsPerCommit == 0, pets / petsPerCommit <= loggedCommits else {
                Issue.record("\(context): \(pets + 300) pets, the state after no commit")
                return .success(-1)
            }
            let commits = pets / petsPerCommit
            // Each commit renamed an owner: the names say the same number of commits.
            let renamed = realm.objects(DCOwner.self).filter("name BEGINSWITH 'renamed'").count
            if renamed != commits { Issue.record("\(context): \(commits) commits of pets but \(renamed) of renamed owners") }
            return .success(commits)
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [false, true])
    func everyCommandSurvivesEveryDamagedLog(encrypted: Bool) throws {
        let key = encrypted ? Data((0..<64).map { UInt8(($0 * 11 + 5) & 0xFF) }) : nil
        let options = try key.map { ["--encryption-key-file", try workspace.keyFile($0, named: "key.bin")] } ?? []
        let base = workspace.path("base.realm")
        let logged = try Self.makeLoggedRealm(at: base, encryptionKey: key)
        let other = try Self.makeLoggedRealm(at: workspace.path("other.realm"), encryptionKey: key)
        let inode = try Self.inode(base)

        // The undamaged log: the open replays every commit.
        try Self.overwrite(base, with: logged.data)
        try Self.overwrite(base + ".log", with: logged.log)
        #expect(try Self.commitsSeen(at: base, encryptionKey: key, context: "undamaged log").get() == Self.loggedCommits)

        var failures: [String] = []
        var seen: [String: Int] = [:]  // commits seen (or the error), for the summary
        for variant in 0..<Self.logVariantCount {
            let (log, what, mustKeep) = Self.damagedLog(logged, other: other, seed: UInt64(variant))
            let context = "variant \(variant) (\(what))"
            let restore = {
                try Self.overwrite(base, with: logged.data)
                try Self.overwrite(base + ".log", with: log)
                try #require(try Self.inode(base) == inode, "the data file was replaced: the log names another inode now")
            }
            try restore()
            // Through the API: a Realm.Error or the state after a commit at least as late as
            // the last record before the damage.
            switch Self.commitsSeen(at: base, encryptionKey: key, context: context) {
            case .success(let commits):
                seen["\(commits) commits", default: 0] += 1
                if commits < mustKeep { failures.append("\(context): opened with \(commits) commits, lost committed data (\(mustKeep) must survive)") }
            case .failure(let error):
                seen["\(type(of: error))", default: 0] += 1
                if !(error is Realm.Error) { failures.append("\(context): the open threw \(type(of: error)): \(error)") }
                if mustKeep == Self.loggedCommits { failures.append("\(context): only the tail was damaged, but the open threw \(error)") }
            }
            let scratch = try workspace.subdirectory("log-v\(variant)")
            for arguments in try Self.commands(path: base, scratch: scratch, options: options, dropSlotInPlace: true) {
                try restore()
                let outcome = try workspace.run(arguments, timeout: Self.timeout)
                if let problem = Self.misbehaviour(outcome) { failures.append("\(context), \(arguments[0]): \(problem)") }
                // Only the tail damaged: every read-only command reads every commit.
                if mustKeep == Self.loggedCommits, ["check", "dump", "count", "query", "info", "schema", "versions", "copy"].contains(arguments[0]),
                   outcome.status != 0 {
                    failures.append("\(context), \(arguments[0]): exit \(outcome.status) though only the tail was damaged: \(outcome.standardError.prefix(200))")
                }
            }
            try? FileManager.default.removeItem(at: scratch)
        }
        print("log damage corpus (\(encrypted ? "encrypted" : "plain")): \(Self.logVariantCount) variants, opened with \(seen.sorted { $0.key < $1.key }), \(failures.count) failures")
        for failure in failures.prefix(40) { print("  " + failure) }
        if !failures.isEmpty { Issue.record("\(failures.count) failures; the first: \(failures.prefix(5).joined(separator: "; "))") }
    }
}
