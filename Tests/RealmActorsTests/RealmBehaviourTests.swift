import Foundation
import Testing
import RealmActors

final class RBLongName: Object {
    override class func className() -> String { String(repeating: "n", count: 58) }
    @Persisted var id = 0
}

final class RBPoint: Object {
    @Persisted var x = 0
    @Persisted var y = 0
    @Persisted var label = ""
}

/// Realm's documented behaviour at its edges, as measured against Realm Swift.
@Suite struct RealmBehaviourTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
    }

    @Test func aClassNameOverFiftySevenBytesIsRefused() throws {
        let realm = try Self.realm()
        let error = #expect(throws: Realm.Error.self) { try realm.write { realm.add(RBLongName()) } }
        #expect(error?.code == .invalidInput && error?.message.contains("57") == true, "\(String(describing: error))")
        #expect(realm.schema[RBLongName.className()] == nil)
    }

    /// `create(_:value:)` cannot throw, so a value it cannot use fails the transaction's commit,
    /// which then writes nothing (as a duplicate primary key does).
    @Test func creatingFromAnArrayShorterThanThePropertiesFails() throws {
        let realm = try Self.realm()
        let error = #expect(throws: Realm.Error.self) { try realm.write { _ = realm.create(RBPoint.self, value: [1, 2]) } }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("Invalid array input: number of values (2) does not match number of properties (3)") == true,
                "\(String(describing: error))")
        #expect(realm.objects(RBPoint.self).isEmpty)
        try realm.write { _ = realm.create(RBPoint.self, value: [1, 2, "three"]) }
        #expect(realm.objects(RBPoint.self).first?.label == "three")
    }

    @Test func objectsDeletedInACancelledWriteStayInvalidated() throws {
        let realm = try Self.realm()
        let point = try realm.write { realm.create(RBPoint.self, value: ["x": 1]) }
        realm.beginWrite()
        realm.delete(point)
        realm.cancelWrite()
        #expect(point.isInvalidated, "Realm restores the data but does not revive the instance")
        #expect(realm.objects(RBPoint.self).count == 1)
        #expect(realm.objects(RBPoint.self).first?.x == 1)
    }
}
