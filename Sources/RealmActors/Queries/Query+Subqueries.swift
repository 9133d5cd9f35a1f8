import Foundation
internal import RealmRuntime

// MARK: Subquery counts

extension Query where T == Bool {
    /// How many objects of the collection the condition goes through satisfy it: Realm Swift's
    /// subquery form. `($0.dogs.age > 5 && $0.dogs.name != "Rex").count > 1` is the Realm Query
    /// Language's `SUBQUERY(dogs, $d, $d.age > 5 AND $d.name != 'Rex').@count > 1`: each dog is
    /// tested against the whole condition (unlike `$0.dogs.age > 5 && …`, where any dog may
    /// satisfy each part). Every property in the condition must go through the same collection
    /// of objects (a `List`, `MutableSet` or `LinkingObjects`); a query that mixes two throws.
    public var count: Query<Int> {
        Query<Int>(.operand(.subqueryCount(collection: [], variable: "", predicate: predicate, position: 0)))
    }
}

// MARK: Aggregates through collections of objects

/// Numbers and dates: what `min`, `max`, `sum` and `avg` take through a collection of objects.
public protocol _QueryNumeric: _Persistable {}
extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric & _PersistableNonOptional {}

extension Query where T: _QueryNumeric {
    /// The smallest value of the property over the objects of the collection the path goes
    /// through: `$0.dogs.age.min < 2` is `dogs.@min.age < 2`. (On a property of the object
    /// itself, with no collection on the way, the query throws.)
    public var min: Query<T> { aggregating(.min) }

    /// The largest value over the objects of the collection: `$0.dogs.age.max` is `dogs.@max.age`.
    public var max: Query<T> { aggregating(.max) }

    /// The sum over the objects of the collection: `$0.dogs.age.sum` is `dogs.@sum.age`.
    public var sum: Query<T> { aggregating(.sum) }

    /// The average over the objects of the collection: `$0.dogs.age.avg > 3` is
    /// `dogs.@avg.age > 3` (of the type of the property, as in Realm Swift).
    public var avg: Query<T> { aggregating(.average) }

    private func aggregating(_ aggregate: QueryAggregate) -> Query<T> {
        guard case .path(let components, nil) = node, !components.isEmpty else {
            fatalError("Only a property through a collection of objects can be aggregated")
        }
        return Query<T>(.path(components, aggregate: aggregate))
    }
}
