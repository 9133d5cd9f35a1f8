import Dispatch
import Foundation
import Testing
import RealmActors

final class VCAddress: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var street = ""
}

final class VCPlayer: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var nicknames: List<String>
    @Persisted var levels: MutableSet<Int>
    @Persisted var scores: Map<String, Int>
    @Persisted var address: VCAddress?
}

/// Observing collections of values (lists, sets, maps), embedded objects and the realm itself:
/// Realm Swift's `observe` forms and the `changes` streams, with what each change reports.
@Suite(.timeLimit(.minutes(1))) struct ValueCollectionObserveTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
    }

    static func player(in realm: Realm) throws -> VCPlayer {
        try realm.write {
            realm.create(VCPlayer.self, value: ["id": 1, "nicknames": ["Al", "Bo"], "levels": [3, 1],
                                                "scores": ["a": 1, "b": 2], "address": ["city": "Oslo"]])
        }
    }

    @Test func listOfValuesReportsPositions() async throws {
        let realm = try Self.realm()
        let player = try Self.player(in: realm)
        var changes = player.nicknames.changes.makeAsyncIterator()
        guard case .initial(let names)? = await changes.next() else { Issue.record("no initial"); return }
        #expect(names == ["Al", "Bo"])

        try await realm.asyncWrite { player.nicknames.append("Cy") }
        guard case .update(let appended, let deletions, let insertions, let modifications)? = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(appended == ["Al", "Bo", "Cy"])
        #expect(deletions == [] && insertions == [2] && modifications == [])

        try await realm.asyncWrite { player.nicknames[0] = "Ann" }
        guard case .update(let renamed, let deletions2, let insertions2, let modifications2)? = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(renamed == ["Ann", "Bo", "Cy"])
        #expect(deletions2 == [] && insertions2 == [] && modifications2 == [0])

        // A commit that leaves the list alone reports nothing; the next one that changes it does.
        try await realm.asyncWrite { player.scores["c"] = 3 }
        try await realm.asyncWrite { player.nicknames.remove(at: 1) }
        guard case .update(let removed, let deletions3, let insertions3, _)? = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(removed == ["Ann", "Cy"])
        #expect(deletions3 == [1] && insertions3 == [])
    }

    @Test func setOfValuesReportsArrivalsAndDepartures() async throws {
        let realm = try Self.realm()
        let player = try Self.player(in: realm)
        let queue = DispatchQueue(label: "ValueCollectionObserveTests.set")
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let token = player.levels.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let levels): continuation.yield("initial \(levels)")
            case .update(let levels, let deletions, let insertions, let modifications):
                continuation.yield("\(levels) -\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): continuation.yield("error \(error)")
            }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == "initial [1, 3]")
        try await realm.asyncWrite {
            player.levels.remove(1)
            player.levels.insert(2)
        }
        #expect(await received.next() == "[2, 3] -[0] +[0] ~[]")
        token.invalidate()
    }

    @Test func mapReportsKeys() async throws {
        let realm = try Self.realm()
        let player = try Self.player(in: realm)
        var changes = player.scores.changes.makeAsyncIterator()
        guard case .initial(let scores)? = await changes.next() else { Issue.record("no initial"); return }
        #expect(scores == ["a": 1, "b": 2])
        try await realm.asyncWrite {
            player.scores["a"] = nil
            player.scores["b"] = 20
            player.scores["z"] = 26
        }
        guard case .update(let updated, let deletions, let insertions, let modifications)? = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(updated == ["b": 20, "z": 26])
        #expect(deletions == ["a"] && insertions == ["z"] && modifications == ["b"])
    }

    @Test func deletingTheOwnerRemovesEverythingAndEnds() async throws {
        let realm = try Self.realm()
        let player = try Self.player(in: realm)
        var changes = player.nicknames.changes.makeAsyncIterator()
        _ = await changes.next()
        try await realm.asyncWrite { realm.delete(player) }
        guard case .update(let names, let deletions, _, _)? = await changes.next() else { Issue.record("no update"); return }
        #expect(names.isEmpty && deletions == [0, 1])
        #expect(await changes.next() == nil)
    }

    @Test @MainActor func listObservedOnTheMainActor() async throws {
        let realm = try Self.realm()
        let player = try Self.player(in: realm)
        let (stream, continuation) = AsyncStream.makeStream(of: [String].self)
        let token = await player.nicknames.observe(on: MainActor.shared) { _, change in
            if case .initial(let names) = change { continuation.yield(names) }
            if case .update(let names, _, _, _) = change { continuation.yield(names) }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == ["Al", "Bo"])
        try await realm.asyncWrite { player.nicknames.removeAll() }
        #expect(await received.next() == [])
        token.invalidate()
    }

    @Test func embeddedObjectsFreezeAndObserve() async throws {
        let realm = try Self.realm()
        let player = try Self.player(in: realm)
        let address = try #require(player.address)
        let frozen = address.freeze()
        #expect(frozen.city == "Oslo")
        var changes = address.changes(keyPaths: [\VCAddress.street]).makeAsyncIterator()
        try await realm.asyncWrite { address.city = "Bergen" }   // not observed
        try await realm.asyncWrite { address.street = "Main" }
        guard case .change(let changed, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["street"])
        #expect(changed.street == "Main" && changed.city == "Bergen")
        #expect(frozen.city == "Oslo")  // the snapshot stays
        #expect(realm.thaw(frozen)?.city == "Bergen")
    }

    @Test func realmObserveDeliversFrozenVersions() async throws {
        let realm = try Self.realm()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let token = realm.observe { notification, realm in
            #expect(notification == .didChange)
            continuation.yield(realm.objects(VCPlayer.self).count)
        }
        _ = try Self.player(in: realm)
        var received = stream.makeAsyncIterator()
        // The first version delivered may be the realm before or after the commit, depending on
        // when the background registration lands; the newest always arrives.
        var count = await received.next()
        if count == 0 { count = await received.next() }
        #expect(count == 1)
        token.invalidate()
    }
}
