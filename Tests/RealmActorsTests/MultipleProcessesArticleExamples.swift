import Foundation
import RealmActors
import Testing
import RealmTestSupport

/// One process's side of the DocC article "Several Processes on One File", as the article shows
/// it (with this target's `Dog`).
actor Worker {
    private var realm: Realm!

    init(kennel: URL) async throws {
        realm = try await Realm(configuration: Realm.Configuration(fileURL: kennel, objectTypes: [Dog.self]),
                                actor: self)
    }

    func adopt(_ id: Int, _ name: String) async throws {
        try await realm.asyncWrite { realm.add(Dog(value: ["id": id, "name": name])) }
    }

    /// Every dog in the kennel, whichever process adopted it.
    func dogs() async -> Int {
        await realm.asyncRefresh()
        return realm.objects(Dog.self).count
    }
}

/// The article's examples, run. Two processes in one: the second opens the file through a
/// symbolic link to its directory, so the runtime opens it a second time, with its own lock-file
/// description — another process, as far as the file's locks go (see `FollowerTests`).
@Suite(.timeLimit(.minutes(1))) struct MultipleProcessesArticleExamples {
    /// The kennel's URL as each of two processes names it.
    static func kennel() throws -> (directory: TemporaryDirectory, first: URL, second: URL) {
        let directory = try TemporaryDirectory()
        let data = directory.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let link = directory.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: data)
        return (directory, data.appendingPathComponent("kennel.realm"), link.appendingPathComponent("kennel.realm"))
    }

    @Test func twoWorkersSeeEachOthersDogs() async throws {
        let (directory, first, second) = try Self.kennel()
        defer { withExtendedLifetime(directory) {} }
        let here = try await Worker(kennel: first), there = try await Worker(kennel: second)
        try await here.adopt(1, "Rex")
        try await there.adopt(2, "Fido")
        #expect(await here.dogs() == 2)
        #expect(await there.dogs() == 2)
    }

    @Test func anotherProcessesIncrementsAreNeverLost() async throws {
        let (directory, first, second) = try Self.kennel()
        defer { withExtendedLifetime(directory) {} }
        let configurations = [first, second].map { Realm.Configuration(fileURL: $0, objectTypes: [Counter.self]) }
        do {
            let realm = try Realm(configuration: configurations[0])
            try realm.write { realm.create(Counter.self, value: ["id": 0]) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for configuration in configurations {
                group.addTask {
                    let realm = try await Realm.open(configuration: configuration)
                    for _ in 0..<20 {
                        try await realm.asyncWrite {
                            let counter = realm.object(ofType: Counter.self, forPrimaryKey: 0)!
                            counter.value += 1   // another process's increments are already in `value`
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let realm = try Realm(configuration: configurations[1])
        #expect(realm.object(ofType: Counter.self, forPrimaryKey: 0)?.value == 40)
    }

    @Test func aChangeStreamReportsTheOtherProcessesCommits() async throws {
        let (directory, first, second) = try Self.kennel()
        defer { withExtendedLifetime(directory) {} }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: first, objectTypes: [Dog.self]))
        let other = try await Worker(kennel: second)
        var changes = realm.objects(Dog.self).changes.makeAsyncIterator()
        guard case .initial = await changes.next() else { Issue.record("no initial"); return }
        try await other.adopt(1, "Rex")
        guard case .update(_, let deletions, let insertions, let modifications) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(deletions == [] && insertions == [0] && modifications == [])
    }

    @Test func anEncryptedFileIsSharedWithTheSameKey() throws {
        let (directory, first, second) = try Self.kennel()
        defer { withExtendedLifetime(directory) {} }
        let key = Data(repeating: 7, count: 64)
        let writer = try Realm(configuration: Realm.Configuration(fileURL: first, encryptionKey: key, objectTypes: [Dog.self]))
        try writer.write { writer.add(Dog(value: ["id": 1, "name": "Rex"])) }
        var other = Realm.Configuration(fileURL: second, encryptionKey: key, objectTypes: [Dog.self])
        do {
            let otherWriter = try Realm(configuration: other)
            try otherWriter.write { otherWriter.add(Dog(value: ["id": 2, "name": "Fido"])) }
        }
        #expect(writer.refresh() && writer.objects(Dog.self).count == 2)
        other.readOnly = true
        #expect(try Realm(configuration: other).objects(Dog.self).count == 2)
        other.encryptionKey = Data(repeating: 8, count: 64)
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: other) }
        #expect(error.code == .invalidDatabase, "\(error)")
    }

    @Test func deletingFilesNeedsTheFileToItself() throws {
        let (directory, first, second) = try Self.kennel()
        defer { withExtendedLifetime(directory) {} }
        let open = try Realm(configuration: Realm.Configuration(fileURL: first, objectTypes: [Dog.self]))
        let error = try #require(throws: Realm.Error.self) {
            try Realm.deleteFiles(for: Realm.Configuration(fileURL: second, objectTypes: [Dog.self]))
        }
        #expect(error.code == .alreadyOpen)
        withExtendedLifetime(open) {}
    }
}
