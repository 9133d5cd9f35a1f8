import Foundation
import Testing
import RealmActors
import RealmTestSupport

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

final class RBOwner: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var pets: List<RBPet>
}

final class RBPet: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<RBOwner>
}

/// Realm Swift's smaller API: error codes, configuration, schema, equality, conversions.
@Suite struct RealmSpellingTests {
    @Test func errorCodesHaveRealmsNamesAndNumbers() {
        #expect(Realm.Error.Code.fail.rawValue == 1 && Realm.Error.Code.fileNotFound.rawValue == 5)
        #expect(Realm.Error.Code.fileFormatUpgradeRequired.rawValue == 6 && Realm.Error.Code.schemaMismatch.rawValue == 10)
        #expect(Realm.Error.Code.alreadyOpen.rawValue == 12 && Realm.Error.Code.invalidInput.rawValue == 13)
        #expect(Realm.Error.Code.invalidDatabase.rawValue == 20 && Realm.Error.Code.fileOperationFailed.rawValue == 19)
        #expect(Realm.Error.formatUpgradeRequired == .fileFormatUpgradeRequired)
        let error: any Error = Realm.Error(.unsupportedFileFormatVersion, "x")
        switch error {
        case Realm.Error.unsupportedFileFormatVersion: break
        default: Issue.record("the code does not match in a catch pattern")
        }
    }

    /// Converted to `NSError`, as Realm's documentation reads errors: Realm's domain, code and
    /// details (it bridged as a plain Swift error, with none of them). On Linux the conversion
    /// must be written `error as NSError`: `catch let error as NSError` compiles but never
    /// matches without the Objective-C runtime.
    @Test func anErrorAsNSErrorHasRealmsDomainCodeAndDetails() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.realm")
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: missing, readOnly: true))
            Issue.record("a read-only open of a missing file succeeded")
        } catch {
            let error = error as NSError
            #expect(error.domain == "io.realm" && error.code == Realm.Error.Code.fileNotFound.rawValue)
            #expect(error.userInfo[NSFilePathErrorKey] as? String == missing.path)
            #expect(error.localizedDescription.contains("missing.realm"))
        }
    }

    @Test func configurationsDescribeThemselvesAndOpenByFileURL() throws {
        let dir = try TemporaryDirectory()
        let url = dir.url.appendingPathComponent("by-url.realm")
        var configuration = Realm.Configuration(fileURL: url, maximumNumberOfActiveVersions: 4)
        #expect(configuration.maximumNumberOfActiveVersions == 4)
        configuration.maximumNumberOfActiveVersions = nil
        #expect(configuration.description.contains("fileURL = \(url.path);"))
        #expect(configuration.description.contains("maximumNumberOfActiveVersions = (null);"))
        let realm = try Realm(fileURL: url)
        #expect(realm.configuration.fileURL == url)
        let again = try Realm(fileURL: url)
        #expect(realm == again, "the same file, both thread-confined, at the same version")
    }

    @Test func handlesCompareAsRealmDoes() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let first = try Realm(configuration: configuration)
        let second = try Realm(configuration: configuration)
        #expect(first == second, "same file, same (thread) confinement, same version")
        try first.write { first.add(RBPoint()) }
        #expect(first != second, "different versions")
        second.refresh()
        #expect(first == second)
        let other = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        #expect(first != other)
        #expect(first.freeze().realm() == first.freeze().realm(), "frozen at the same version")
    }

    @Test func schemasListLinkingObjectsAndTheirClasses() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(RBPet(value: ["name": "Rex"])) }
        let pet = try #require(realm.schema["RBPet"])
        #expect(pet.properties.map(\.name) == ["name"])
        #expect(pet.computedProperties.map(\.name) == ["owners"])
        #expect(pet.computedProperties.first?.type == .linkingObjects)
        #expect(pet.computedProperties.first?.objectClassName == "RBOwner" && pet.computedProperties.first?.linkOriginPropertyName == "pets")
        #expect(pet["name"]?.columnName == "name")
        #expect(pet.objectClass == RBPet.self)
        #expect(realm.schema["RBOwner"]?["id"]?.type == .UUID)
    }

    @Test func decimalsFromValuesOfAnyNumericType() {
        #expect(Decimal128(value: 3) == Decimal128(3))
        #expect(Decimal128(value: 2.5) == Decimal128(2.5))
        #expect(Decimal128(value: "1.25") == Decimal128(1.25))
        #expect(Decimal128(value: Decimal128(7)) == Decimal128(7))
        #expect(Decimal128(value: Int8(-4)) == Decimal128(-4))
        #expect(Decimal128(number: NSNumber(value: 42)) == Decimal128(42))
        #expect(Decimal128(number: NSNumber(value: 0.1)) == Decimal128(0.1))
    }
}
