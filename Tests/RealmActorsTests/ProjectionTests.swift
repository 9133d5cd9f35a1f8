import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class ProjAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class ProjPet: Object {
    @Persisted var name = ""
}

final class ProjPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var birthday = Date(timeIntervalSince1970: 0)
    @Persisted var address: ProjAddress?
    @Persisted var friends: List<ProjPerson>
    @Persisted var pets: MutableSet<ProjPet>
    var ignored = "not persisted"
}

final class PersonProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.firstName) var firstName
    @Projected(\ProjPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\ProjPerson.birthday.timeIntervalSince1970) var born
    @Projected(\ProjPerson.address?.city) var homeCity
    @Projected(\ProjPerson.friends.projectTo.firstName) var friendsNames: ProjectedCollection<String>
    @Projected(\ProjPerson.pets.projectTo.name) var petNames: ProjectedCollection<String>
}

/// Reads a property that is not persisted: not a valid projection.
final class IgnoredProjection: Projection<ProjPerson> {
    @Projected(\ProjPerson.ignored) var ignored
}

private func person(_ id: Int, _ first: String, _ last: String, city: String? = nil) -> ProjPerson {
    let person = ProjPerson()
    person.id = id
    person.firstName = first
    person.lastName = last
    if let city {
        let address = ProjAddress()
        address.city = city
        person.address = address
    }
    return person
}

private func populatedRealm(_ directory: TemporaryDirectory) throws -> Realm {
    let realm = try Realm(configuration: Realm.Configuration(
        fileURL: directory.url.appendingPathComponent("projection.realm"),
        objectTypes: [ProjPerson.self, ProjAddress.self, ProjPet.self]))
    let jon = person(1, "Jon", "Snow", city: "Winterfell")
    let dany = person(2, "Daenerys", "Targaryen", city: "Dragonstone")
    let arya = person(3, "Arya", "Stark")
    jon.friends.append(objectsIn: [arya, dany])
    let ghost = ProjPet()
    ghost.name = "Ghost"
    jon.pets.insert(ghost)
    try realm.write { realm.add([jon, dany, arya]) }
    return realm
}

@Suite struct ProjectionTests {
    @Test func readsGoToTheRootObject() throws {
        let jon = person(1, "Jon", "Snow", city: "Winterfell")
        jon.birthday = Date(timeIntervalSince1970: 42)
        let friend = person(2, "Sam", "Tarly")
        jon.friends.append(friend)
        let projection = PersonProjection(projecting: jon)
        #expect(projection.rootObject === jon)
        #expect(projection.firstName == "Jon" && projection.lastNameCaps == "SNOW" && projection.born == 42)
        #expect(projection.homeCity == "Winterfell" && Array(projection.friendsNames) == ["Sam"])
        #expect(projection.petNames.isEmpty && projection.realm == nil && !projection.isFrozen)

        // No copy: a change to the object shows through at once.
        jon.firstName = "Aegon"
        jon.address = nil
        friend.firstName = "Samwell"
        #expect(projection.firstName == "Aegon" && projection.homeCity == nil && projection.friendsNames[0] == "Samwell")
    }

    @Test func writesGoToTheRootObject() throws {
        let directory = try TemporaryDirectory()
        let realm = try populatedRealm(directory)
        let jon = try #require(realm.object(ofType: ProjPerson.self, forPrimaryKey: 1))
        let projection = PersonProjection(projecting: jon)
        try realm.write {
            projection.firstName = "Aegon"
            projection.friendsNames[0] = "Arya Stark"
            projection.petNames[0] = "Ghost the direwolf"
        }
        // A fresh accessor reads the stored values.
        let stored = try #require(realm.objects(ProjPerson.self).filter("id == 1").first)
        #expect(stored.firstName == "Aegon" && stored.friends[0].firstName == "Arya Stark")
        #expect(stored.pets.first?.name == "Ghost the direwolf")
        #expect(realm.object(ofType: ProjPerson.self, forPrimaryKey: 3)?.firstName == "Arya Stark")
        #expect(projection.friendsNames.index(of: "Daenerys") == 1 && projection.friendsNames.realm === realm)
    }

    @Test func realmObjectsOfAProjectionProjectsEachObject() throws {
        let directory = try TemporaryDirectory()
        let realm = try populatedRealm(directory)
        let all = realm.objects(PersonProjection.self)
        #expect(all.count == 3 && all.realm === realm && !all.isFrozen)
        #expect(Set(all.map(\.firstName)) == ["Jon", "Daenerys", "Arya"])
        #expect(all.description == "Results<PersonProjection> <3 objects>")

        let snow = try #require(realm.objects(PersonProjection.self).filter("lastName == %@", "Snow").first)
        #expect(snow.firstName == "Jon" && snow.homeCity == "Winterfell" && Array(snow.friendsNames) == ["Arya", "Daenerys"])

        #expect(all.sorted(byKeyPath: "firstName").map(\.firstName) == ["Arya", "Daenerys", "Jon"])
        #expect(all.sorted(by: \.firstName, ascending: false).map(\.firstName) == ["Jon", "Daenerys", "Arya"])
        #expect(all.sorted(by: [SortDescriptor(keyPath: "lastName")]).first?.firstName == "Jon")
        #expect(all.where { $0.id > 1 }.sorted(byKeyPath: "id").map(\.firstName) == ["Daenerys", "Arya"])
        #expect(all.filter("address.city == %@", "Dragonstone").map(\.firstName) == ["Daenerys"])
        #expect(all.distinct(by: ["lastName"]).count == 3)

        let sorted = all.sorted(byKeyPath: "id")
        #expect(sorted.index(of: snow) == 0 && sorted[2].firstName == "Arya")

        // Live, as the results of the root class are.
        try realm.write { realm.add(person(4, "Bran", "Stark")) }
        #expect(all.count == 4 && all.where { $0.lastName == "Stark" }.count == 2)
    }

    @Test func projectionsOfTheSameObjectAreEqual() throws {
        let directory = try TemporaryDirectory()
        let realm = try populatedRealm(directory)
        let first = try #require(realm.objects(PersonProjection.self).filter("id == 1").first)
        let second = PersonProjection(projecting: try #require(realm.object(ofType: ProjPerson.self, forPrimaryKey: 1)))
        let other = try #require(realm.objects(PersonProjection.self).filter("id == 2").first)
        #expect(first.rootObject !== second.rootObject)
        #expect(first == second && first != other)
        #expect(Set([first, second, other]).count == 2)
        let unmanaged = ProjPerson()
        #expect(PersonProjection(projecting: unmanaged) == PersonProjection(projecting: unmanaged))
        #expect(PersonProjection(projecting: unmanaged) != PersonProjection(projecting: ProjPerson()))
    }

    @Test func descriptionListsTheProjectedProperties() throws {
        let jon = person(1, "Jon", "Snow", city: "Winterfell")
        let description = PersonProjection(projecting: jon).description
        #expect(description.hasPrefix("PersonProjection<ProjPerson> <"), "\(description)")
        #expect(description.contains("\t\tfirstName(\\.firstName) = Jon;"), "\(description)")
        #expect(description.contains("\t\tlastNameCaps(\\.lastName) = SNOW;"), "\(description)")
        #expect(description.contains("\t\thomeCity(\\.address) = Winterfell;"), "\(description)")
        #expect(description.hasSuffix("\n}"))
        #expect(PersonProjection(projecting: jon).friendsNames.description == "ProjectedCollection<String> {\n}")
    }

    @Test func aDeletedRootObjectInvalidatesTheProjection() throws {
        let directory = try TemporaryDirectory()
        let realm = try populatedRealm(directory)
        let arya = try #require(realm.objects(PersonProjection.self).filter("id == 3").first)
        let jon = try #require(realm.objects(PersonProjection.self).filter("id == 1").first)
        #expect(!arya.isInvalidated && arya.realm === realm)
        try realm.write { realm.delete(arya.rootObject) }
        #expect(arya.isInvalidated && !jon.isInvalidated)
        #expect(Array(jon.friendsNames) == ["Daenerys"])
        #expect(realm.objects(PersonProjection.self).count == 2)
    }

    /// Realm Swift refuses a projected key path that reads no persisted property.
    @Test func aProjectionOfAnUnpersistedPropertyTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = IgnoredProjection(projecting: ProjPerson())
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("@Projected property 'ignored' must be a part of Realm object"), "\(message)")
        }
    }

    @Test func writingThroughAComputedKeyPathTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let projection = PersonProjection(projecting: ProjPerson())
            projection.lastNameCaps = "STARK"
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("is not writable"), "\(message)")
        }
    }
}
