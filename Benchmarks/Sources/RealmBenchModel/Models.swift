import BenchModel
import Foundation
import RealmActors

// The benchmark models as RealmActors classes, shared by every benchmark that opens a realm
// (realm-bench, object-bench and the micro-benchmarks), so that all of them measure one class.

/// The PERFORMANCE.md model as a RealmActors class (stored under the name "Person").
package final class PersonObject: Object {
    override package class func className() -> String { "Person" }
    @Persisted(primaryKey: true) package var id = 0
    @Persisted package var name = ""
    @Persisted(indexed: true) package var email = ""
    @Persisted package var age = 0
    @Persisted package var score = 0.0
    @Persisted package var createdAt = Date(timeIntervalSince1970: 0)

    /// An unmanaged object holding `person`'s values, set one property at a time.
    package convenience init(_ person: Person) {
        self.init()
        id = person.id
        name = person.name
        email = person.email
        age = person.age
        score = person.score
        createdAt = person.createdAt
    }
}

/// W13's model as a RealmActors class (stored under the name "Note").
package final class NoteObject: Object {
    override package class func className() -> String { "Note" }
    @Persisted(primaryKey: true) package var id = 0
    @Persisted package var body = ""
    @Persisted package var tag = 0

    /// An unmanaged object holding `note`'s values.
    package convenience init(_ note: Note) {
        self.init()
        id = note.id
        body = note.body
        tag = note.tag
    }
}

/// W16's one object (stored under the name "Stamp"): the writing process sets `seq` to the
/// commit's number and `sentAt` to its `CLOCK_MONOTONIC` time in nanoseconds in every commit.
package final class StampObject: Object {
    override package class func className() -> String { "Stamp" }
    @Persisted(primaryKey: true) package var id = 0
    @Persisted package var seq = 0
    @Persisted package var sentAt = 0
}
