import Foundation
import Testing
import RealmActors

final class CSOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class CSDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var owner: CSOwner?
    @Persisted var friends: List<CSDog>
}

@Suite struct ChangeStreamTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
    }

    static func ids(_ results: FrozenResults<CSDog>) -> [Int] { results.map(\.id) }

    @Test func resultsReportInsertionsModificationsAndDeletions() async throws {
        let realm = try Self.realm()
        try realm.write { for id in 0..<5 { realm.create(CSDog.self, value: ["id": id, "name": "d\(id)", "age": id]) } }
        var changes = realm.objects(CSDog.self).where { $0.age < 10 }.changes.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("no initial"); return }
        #expect(Self.ids(initial) == [0, 1, 2, 3, 4])

        try realm.write { realm.create(CSDog.self, value: ["id": 7, "age": 1]) }
        guard case .update(let afterInsert, let deletions, let insertions, let modifications) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(Self.ids(afterInsert) == [0, 1, 2, 3, 4, 7] && deletions == [] && insertions == [5] && modifications == [])

        try realm.write {}  // nothing: no element
        try realm.write { realm.create(CSOwner.self, value: ["id": 1]) }  // another table: no element
        try realm.write {
            realm.object(ofType: CSDog.self, forPrimaryKey: 2)!.name = "two"
            realm.object(ofType: CSDog.self, forPrimaryKey: 4)!.age = 40  // leaves the query
            realm.delete(realm.object(ofType: CSDog.self, forPrimaryKey: 0)!)
        }
        guard case .update(let after, let deletions2, let insertions2, let modifications2) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(Self.ids(after) == [1, 2, 3, 7])
        #expect(deletions2 == [0, 4] && insertions2 == [] && modifications2 == [1])
        #expect(after[1].name == "two")
    }
}
