import Foundation
import Testing
import RealmActors

final class ErrLongName: Object {
    @Persisted var value = 0
    override class func className() -> String { String(repeating: "C", count: 58) }
}

final class ErrLongProperty: Object {
    @Persisted var aPropertyNameThatIsLongerThanTheSixtyThreeBytesRealmAllowsForNamesX = 0
}

final class ErrTarget: Object {
    @Persisted var name = ""
}

final class ErrOther: Object {
    @Persisted var name = ""
}

final class ErrHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var count = 0
    @Persisted var note: String?
    @Persisted var target: ErrTarget?
    @Persisted var targets: List<ErrTarget>
    @Persisted var data = Data()
    @Persisted var partner: ErrHolder?
}

/// Bad input through the public API: a thrown `Realm.Error` with a clear message, nothing
/// written, never a crash.
@Suite struct InputErrorTests {
    func inMemory(_ types: [ObjectBase.Type]? = nil) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = types
        return try Realm(configuration: configuration)
    }

    func expectInvalidInput(_ realm: Realm, containing text: String, sourceLocation: SourceLocation = #_sourceLocation,
                            _ block: () -> Void) {
        do {
            try realm.write(block)
            Issue.record("expected an invalidInput error", sourceLocation: sourceLocation)
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput, sourceLocation: sourceLocation)
            #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
        #expect(realm.isEmpty, "a failed transaction writes nothing", sourceLocation: sourceLocation)
    }

    @Test func namesOverRealmsLimitsAreRejected() throws {
        #expect(throws: Realm.Error.self) { _ = try inMemory([ErrLongName.self]) }
        #expect(throws: Realm.Error.self) { _ = try inMemory([ErrLongProperty.self]) }
        // Registered on first use instead: the transaction fails.
        let realm = try inMemory()
        expectInvalidInput(realm, containing: "57 bytes") { realm.add(ErrLongName()) }
        expectInvalidInput(realm, containing: "63 bytes") { realm.add(ErrLongProperty()) }
    }

    @Test func valuesOfTheWrongTypeAreRejected() throws {
        let realm = try inMemory([ErrHolder.self])
        expectInvalidInput(realm, containing: "ErrHolder.name") { realm.create(ErrHolder.self, value: ["id": 1, "name": 5]) }
        expectInvalidInput(realm, containing: "ErrHolder.count") { realm.create(ErrHolder.self, value: ["id": 1, "count": "five"]) }
        expectInvalidInput(realm, containing: "ErrHolder.count") { realm.create(ErrHolder.self, value: ["id": 1, "count": 1.5] as [String: Any]) }
        expectInvalidInput(realm, containing: "ErrHolder.target") {
            realm.create(ErrHolder.self, value: ["id": 1, "target": "not an object"])
        }
        expectInvalidInput(realm, containing: "ErrTarget") { realm.create(ErrHolder.self, value: ["id": 1, "target": ErrOther()]) }
        expectInvalidInput(realm, containing: "ErrHolder.targets") { realm.create(ErrHolder.self, value: ["id": 1, "targets": 3]) }
        expectInvalidInput(realm, containing: "number of values (9) does not match number of properties (8)") { realm.create(ErrHolder.self, value: [1, "a", 2, nil, nil, [], Data(), nil, 9]) }
        expectInvalidInput(realm, containing: "expected a dictionary") { realm.create(ErrHolder.self, value: 42) }
    }

    @Test func nilAndNSNullAreOnlyForOptionals() throws {
        let realm = try inMemory([ErrHolder.self])
        expectInvalidInput(realm, containing: "ErrHolder.name") { realm.create(ErrHolder.self, value: ["id": 1, "name": NSNull()]) }
        expectInvalidInput(realm, containing: "ErrHolder.count") { realm.create(ErrHolder.self, value: ["id": 1, "count": nil as Int?]) }
        try realm.write {
            realm.create(ErrHolder.self, value: ["id": 1, "note": NSNull(), "target": NSNull(), "targets": NSNull()])
        }
        let holder = try #require(realm.object(ofType: ErrHolder.self, forPrimaryKey: 1))
        #expect(holder.note == nil && holder.target == nil && holder.targets.isEmpty)
    }

    @Test func anOversizedValueOnAManagedObjectFailsTheTransactionAndChangesNothing() throws {
        let realm = try inMemory([ErrHolder.self])
        try realm.write { realm.add(ErrHolder(value: ["id": 1, "name": "small"])) }
        let holder = try #require(realm.object(ofType: ErrHolder.self, forPrimaryKey: 1))
        do {
            try realm.write {
                holder.name = "changed"
                holder.data = Data(count: 16 * 1024 * 1024 + 1)
            }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput && error.message.contains("exceeds the maximum"), "\(error.message)")
        }
        #expect(holder.name == "small" && holder.data.isEmpty, "the whole transaction rolled back")
        let huge = String(repeating: "x", count: 17_000_000)
        #expect(throws: Realm.Error.self) { try realm.write { holder.name = huge } }
        #expect(holder.name == "small")
    }

    @Test func aDuplicatePrimaryKeyInALinkedObjectFailsTheTransaction() throws {
        let realm = try inMemory([ErrHolder.self])
        try realm.write { realm.add(ErrHolder(value: ["id": 1])) }
        let holder = ErrHolder(value: ["id": 2, "partner": ["id": 1, "name": "again"]])
        #expect(throws: Realm.Error.self) { try realm.write { realm.add(holder) } }
        #expect(realm.objects(ErrHolder.self).count == 1 && realm.objects(ErrHolder.self)[0].name == "")
        // The rolled-back holder is invalidated, as after cancelWrite(); a new one with an update
        // policy updates the existing linked object instead.
        #expect(holder.isInvalidated)
        try realm.write { realm.add(ErrHolder(value: ["id": 2, "partner": ["id": 1, "name": "again"]]), update: .modified) }
        #expect(realm.objects(ErrHolder.self).count == 2)
        #expect(realm.object(ofType: ErrHolder.self, forPrimaryKey: 1)?.name == "again")
        #expect(realm.object(ofType: ErrHolder.self, forPrimaryKey: 2)?.partner?.id == 1)
    }
}
