import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var revision = 0
    @Persisted var tags: List<String>
    @Persisted var related: List<Note>
}

@Suite struct FrozenTests {
    @Test func frozenObjectsNeverChangeWhileWritersCommit() async throws {
        let directory = try TemporaryDirectory()
        let configuration = fileConfiguration(directory)
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0..<20 { realm.add(Note(value: ["id": id, "text": "v0", "tags": ["a", "b"]])) }
        }
        let snapshot = realm.freeze()
        let frozen = realm.objects(Note.self).freeze()
        let first = try #require(realm.object(ofType: Note.self, forPrimaryKey: 0)).freeze()
        #expect(first.text == "v0" && first.tags.count == 2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {  // a writer rewrites and deletes, 30 commits
                let writer = try await Realm.open(configuration: configuration)
                for revision in 1...30 {
                    try await writer.asyncWrite {
                        for note in writer.objects(Note.self) { note.text = "v\(revision)"; note.revision = revision }
                        if revision <= 10, let last = writer.objects(Note.self).last { writer.delete(last) }
                    }
                }
            }
            for _ in 0..<8 {  // readers in parallel, on other threads
                group.addTask {
                    for _ in 0..<50 {
                        #expect(frozen.count == 20 && snapshot.objects(Note.self).count == 20)
                        for note in frozen { #expect(note.read { $0.text == "v0" && $0.revision == 0 }) }
                        #expect(first.text == "v0" && Array(first.tags) == ["a", "b"])
                        #expect(snapshot.object(ofType: Note.self, forPrimaryKey: 19)?.text == "v0", "deleted later, not here")
                    }
                }
            }
            try await group.waitForAll()
        }
        realm.refresh()
        #expect(realm.objects(Note.self).count == 10 && realm.objects(Note.self).first?.text == "v30")
        #expect(first.text == "v0", "still the frozen version")
    }

    @Test func thawGivesTheLiveObjectOrNil() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            realm.add(Note(value: ["id": 1, "text": "one"]))
            realm.add(Note(value: ["id": 2, "text": "two", "related": [["id": 3, "text": "three"]]]))
        }
        let one = try #require(realm.object(ofType: Note.self, forPrimaryKey: 1)).freeze()
        let two = try #require(realm.object(ofType: Note.self, forPrimaryKey: 2))
        let related = two.related.freeze()
        #expect(related.count == 1 && related[0].text == "three")
        try realm.write {
            realm.object(ofType: Note.self, forPrimaryKey: 1)?.text = "uno"
            realm.delete(two)
        }
        #expect(one.text == "one")
        #expect(realm.thaw(one)?.text == "uno")
        // Frozen results filter and sort into more frozen results, at their own version.
        let frozenNotes = realm.objects(Note.self).freeze()
        try realm.write { realm.add(Note(value: ["id": 9, "text": "nine"])) }
        #expect(frozenNotes.where { $0.text.starts(with: "u") }.map(\.text) == ["uno"])
        #expect(frozenNotes.filter("id > 1").sorted(byKeyPath: "id", ascending: false).map(\.id) == [3])
        #expect(related.where { $0.id == 3 }.count == 1)
        let other = try Realm(configuration: realm.configuration)
        #expect(other.thaw(related[0])?.text == "three")
        #expect(realm.thaw(try #require(realm.freeze().object(ofType: Note.self, forPrimaryKey: 3))) != nil)
        try realm.write { realm.delete(realm.objects(Note.self)) }
        #expect(realm.thaw(one) == nil && related[0].exists, "deleted now, but it existed in the snapshot")
        #expect(one.isFrozenSnapshotOf(1))
    }

    /// Realm's freezing example, read with `isFrozen` at every step: the frozen realm, frozen
    /// results, results read from the frozen realm, a frozen object and its realm are frozen;
    /// the live ones they came from are not (issue 37: `realm.freeze().isFrozen` had stopped compiling).
    @Test func isFrozenTellsFrozenValuesFromLiveOnes() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(Note(value: ["id": 1])) }
        let frozenRealm = realm.freeze()
        #expect(frozenRealm.isFrozen && frozenRealm.realm().isFrozen)
        #expect(!realm.isFrozen)
        let notes = realm.objects(Note.self)
        #expect(!notes.isFrozen)
        #expect(notes.freeze().isFrozen)
        #expect(frozenRealm.objects(Note.self).isFrozen)
        let note = try #require(notes.first)
        #expect(note.realm?.isFrozen == false && !note.isFrozen)
        let frozenNote = note.freeze()
        #expect(frozenNote.isFrozen)
        #expect(frozenNote.realm?.isFrozen == true)
    }

    /// Realm Swift's `frozenRealm.thaw()`: a live handle at the newest version, not the frozen one.
    @Test func thawingAFrozenRealmOpensALiveHandle() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { realm.add(Note(value: ["id": 1])) }
        let frozenRealm = realm.freeze()
        try await realm.asyncWrite { realm.add(Note(value: ["id": 2])) }
        let thawed = try await frozenRealm.thaw()
        #expect(!thawed.isFrozen && thawed.configuration == configuration)
        #expect(thawed.objects(Note.self).count == 2 && frozenRealm.objects(Note.self).count == 1)
        try await thawed.asyncWrite { thawed.add(Note(value: ["id": 3])) }
        #expect(thawed.objects(Note.self).count == 3)
    }

    /// Realm Swift's `realm.freeze(object)` and `realm.freeze(collection)` give what the
    /// object's and the collection's own `freeze()` give.
    @Test func realmFreezeOfAnObjectOrCollectionIsItsOwnFreeze() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            realm.add(Note(value: ["id": 1, "text": "one"]))
            realm.add(Note(value: ["id": 2, "text": "two", "related": [["id": 3]]]))
        }
        let note = try #require(realm.object(ofType: Note.self, forPrimaryKey: 1))
        #expect(realm.freeze(note) == note.freeze() && realm.freeze(note).text == "one")
        let frozenNotes = realm.freeze(realm.objects(Note.self).sorted(byKeyPath: "id", ascending: false))
        #expect(frozenNotes.map(\.id) == [3, 2, 1])
        let two = try #require(realm.object(ofType: Note.self, forPrimaryKey: 2))
        #expect(realm.freeze(two.related).map(\.id) == [3])
        try realm.write { realm.add(Note(value: ["id": 4])) }
        #expect(frozenNotes.count == 3, "frozen before the write")
    }

    @Test func freezingAVersionTwiceSharesItAndTheLimitIsEnforced() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.maximumNumberOfActiveVersions = 3
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Note(value: ["id": 1])) }
        var snapshots = [realm.freeze(), realm.freeze()]
        #expect(realm.numberOfActiveVersions == 1, "both snapshots share the handle's version")
        try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 1)?.revision = 1 }
        snapshots.append(realm.freeze())
        #expect(realm.numberOfActiveVersions == 2)
        try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 1)?.revision = 2 }
        snapshots.append(realm.freeze())
        #expect(realm.numberOfActiveVersions == 3)
        do {
            try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 1)?.revision = 3 }
            Issue.record("a fourth live version was allowed")
        } catch let error as Realm.Error {
            #expect(error.code == .maximumActiveVersionsExceeded)
        }
        #expect(realm.object(ofType: Note.self, forPrimaryKey: 1)?.revision == 2, "the failed commit wrote nothing")
        snapshots.removeAll()
        try realm.write { realm.object(ofType: Note.self, forPrimaryKey: 1)?.revision = 3 }
        #expect(realm.numberOfActiveVersions == 1)
    }

    @Test func modifyingAFrozenObjectTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
            try realm.write { realm.add(Note(value: ["id": 1])) }
            let frozen = try #require(realm.object(ofType: Note.self, forPrimaryKey: 1)).freeze()
            frozen.read { $0.text = "changed" }
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("Attempting to modify a frozen object"))
        }
    }
}

extension Frozen where T == Note {
    func isFrozenSnapshotOf(_ id: Int) -> Bool { read { $0.isFrozen && $0.id == id } }
}
