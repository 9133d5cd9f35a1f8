// Class projections as Realm Swift's documentation writes them, import changed only.
// Sources: "Define and Use Class Projections" (Swift SDK) and the API reference (Projection,
// @Projected, ProjectedCollection). Projection results: DocC "Migrating from Realm Swift",
// "Projections and Codable models" (`ProjectedResults` where Realm Swift returns `Results`).
import Foundation
import RealmActors

class ProjectedPerson: Object {
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var address: Address?
    @Persisted var friends = List<ProjectedPerson>()
    @Persisted var reviews = List<String>()
}

class PersonProjection: Projection<ProjectedPerson> {
    @Projected(\ProjectedPerson.firstName) var firstName // Passthrough from original object
    @Projected(\ProjectedPerson.lastName.localizedUppercase)
    var lastNameCaps // Access and transform the original property
    @Projected(\ProjectedPerson.address?.city) var homeCity // Project from an embedded object
    @Projected(\ProjectedPerson.friends.projectTo.firstName)
    var firstFriendsName: ProjectedCollection<String> // Collection mapping
}

@MainActor
final class ProjectionExamples {
    var token: NotificationToken?

    func useProjections() {
        let realm = try! Realm()
        // Retrieve all class projections of the given type `PersonProjection`
        let people = realm.objects(PersonProjection.self)
        // Use projection data in your view
        print(people.first?.firstName ?? "")
        print(people.first?.homeCity ?? "")
        print(people.first?.firstFriendsName.first ?? "")

        // Retrieve all class projections of the given type `PersonProjection`
        // and filter for the first class projection where the `firstName` property
        // value is "Jason"
        let person = realm.objects(PersonProjection.self).first(where: { $0.firstName == "Jason" })!
        // Update projection property inside write transaction
        try! realm.write {
            person.firstName = "David"
        }

        // Observe the projection for changes. Keep a strong reference to the notification token
        // or the observation will stop. Invalidate the token when done observing.
        token = person.observe(keyPaths: ["firstName"], { change in
            switch change {
            case .change(let object, let properties):
                for property in properties {
                    print("Property '\(property.name)' of object \(object) changed to '\(property.newValue!)'")
                }
            case .deleted:
                print("The object was deleted.")
            case .error(let error):
                print("An error occurred: \(error)")
            }
        })

        // Query, sort and freeze projected results.
        let sorted = people.sorted(byKeyPath: "lastName").filter("firstName BEGINSWITH 'J'")
        let frozenPerson = person.freeze()
        print(sorted.count, frozenPerson.firstName, people.freeze().count, person.rootObject.lastName)
    }
}
