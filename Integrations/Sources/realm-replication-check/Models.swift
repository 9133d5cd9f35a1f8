import Foundation
import RealmActors

// The classes the check writes: the streamed run's (`Item` and what it links to, `ItemV2` after
// `migrate`), the snapshot measurement's (`Small`), and the scenarios' (`Sample`).

final class Owner: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var city = ""
}

/// A class without a primary key: replicated by object key (`_realm_key`).
final class Event: Object {
    @Persisted var name = ""
    @Persisted var sequence = 0
}

/// Embedded: replicated in its owner's jsonb column, which an edit of it alone writes again.
final class Place: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var floor = 0
}

final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var score = 0.0
    @Persisted var count = 0
    @Persisted var flag = false
    @Persisted var tags: List<String>
    @Persisted var owner: Owner?
    @Persisted var place: Place?
    /// A link to a class without a primary key: its row holds the target's `_realm_key`.
    @Persisted var event: Event?
}

/// `Item` at schema version 2 (`migrate`): `count` renamed `quantity`, `flag` removed, `note`
/// added, `score` a string (a type change: the column replaced and filled).
final class ItemV2: Object {
    override class func className() -> String { "Item" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var score = ""
    @Persisted var quantity = 0
    @Persisted var note = ""
    @Persisted var tags: List<String>
    @Persisted var owner: Owner?
    @Persisted var place: Place?
    @Persisted var event: Event?
}

/// The initial snapshot's measured objects: small, as a row of a wide table is not.
final class Small: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0.0
    @Persisted var flag = false
}

/// The scenarios' objects (`samples`): a column of each scalar type, compared with its row by
/// the sink's documented mapping (``SampleComparison``).
final class Sample: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var amount = 0
    @Persisted var score = 0.0
    @Persisted var ratio: Float = 0
    @Persisted var flag = false
    @Persisted var moment = Date(timeIntervalSince1970: 0)
    @Persisted var payload = Data()
    @Persisted var price = Decimal128(0)
    @Persisted var token = UUID()
    @Persisted var note: String?
}
