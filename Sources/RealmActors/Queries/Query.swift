import Foundation
internal import RealmRuntime

/// A type-safe query: Realm Swift's `Query`, what `where { }` blocks build.
///
/// ```swift
/// let puppies = realm.objects(Dog.self).where { $0.age < 2 && $0.name.starts(with: "R") }
/// let owners = realm.objects(Person.self).where { $0.dogs.age > 10 }       // any dog
/// let named = realm.objects(Dog.self).where { $0.owner.name == "Ann" }      // through a link
/// ```
///
/// `$0` stands for the queried object; following a property (`$0.age`) gives a query of that
/// property's type, on which comparisons, string operators and collection operators produce
/// conditions (`Query<Bool>`), combined with `&&`, `||` and `!`. A `where { }` query means exactly
/// what the same Realm Query Language string means: both become the same query tree.
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        /// A key path from the queried object (empty: the object itself).
        case path([String], aggregate: QueryAggregate?)
        /// A finished condition.
        case predicate(QueryExpression)
        /// A value computed from a condition: a subquery's count (`(cond).count`).
        case operand(QueryOperand)
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    static func root() -> Query<T> { Query(.path([], aggregate: nil)) }

    /// The condition this query stands for (a bare `Bool` property means `property == true`).
    var predicate: QueryExpression {
        switch node {
        case .predicate(let expression): return expression
        case .operand: fatalError("A subquery's count is not a condition; compare it with a number")
        case .path(let components, let aggregate):
            return .comparison(QueryComparison(.keyPath(components, aggregate: aggregate, position: 0), .equal, .value(.bool(true))))
        }
    }

    var keyPath: QueryOperand {
        if case .operand(let operand) = node { return operand }
        guard case .path(let components, let aggregate) = node, !components.isEmpty else {
            fatalError("A condition cannot be compared; compare a property instead")
        }
        return .keyPath(components, aggregate: aggregate, position: 0)
    }

    func appending<U>(_ name: String) -> Query<U> {
        guard case .path(let components, let aggregate) = node, aggregate == nil else {
            fatalError("Cannot follow '\(name)' from a condition or an aggregate")
        }
        return Query<U>(.path(components + [name], aggregate: nil))
    }

    /// The same query seen as of another type (an enum's raw value, as stored).
    func retyped<U>() -> Query<U> {
        switch node {
        case .path(let components, let aggregate): Query<U>(.path(components, aggregate: aggregate))
        case .predicate(let expression): Query<U>(.predicate(expression))
        case .operand(let operand): Query<U>(.operand(operand))
        }
    }

    func comparing(_ op: QueryOperator, _ right: QueryOperand, options: QueryStringOptions = .plain,
                   modifier: QueryCollectionModifier? = nil) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(QueryComparison(keyPath, op, right, options: options, modifier: modifier))))
    }
}

// MARK: Following properties

extension Query where T: ObjectBase {
    /// A property of the object.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> {
        appending(QueryKeyPaths.name(of: keyPath))
    }
}

extension Query {
    /// A property of the linked object (through a to-one link).
    public subscript<O: ObjectBase, V>(dynamicMember keyPath: KeyPath<O, V>) -> Query<V> where T == O? {
        appending(QueryKeyPaths.name(of: keyPath))
    }

    /// A property of the objects in a list: a condition on it holds if it holds for any of them.
    public subscript<O: ObjectBase, V>(dynamicMember keyPath: KeyPath<O, V>) -> Query<V> where T == List<O> {
        appending(QueryKeyPaths.name(of: keyPath))
    }

    /// A property of the objects in a set: a condition on it holds if it holds for any of them.
    public subscript<O: ObjectBase, V>(dynamicMember keyPath: KeyPath<O, V>) -> Query<V> where T == MutableSet<O> {
        appending(QueryKeyPaths.name(of: keyPath))
    }

    /// A property of the linking objects: a condition on it holds if it holds for any of them.
    public subscript<O: ObjectBase, V>(dynamicMember keyPath: KeyPath<O, V>) -> Query<V> where T == LinkingObjects<O> {
        appending(QueryKeyPaths.name(of: keyPath))
    }
}

// MARK: Conditions

/// The options of string comparisons: Realm Swift's `StringOptions`.
public struct StringOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: Int
    /// Creates options from their raw value.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Ignore case (`[c]`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Ignore diacritics (`[d]`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var queryOptions: QueryStringOptions {
        var options = QueryStringOptions.plain
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

extension Query where T: _Persistable {
    /// Whether the value is one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        comparing(.in, .values(values.map { QueryKeyPaths.value($0) }))
    }
}

extension Query where T: _Persistable & Comparable {
    /// Whether the value lies in `range` (inclusive): `BETWEEN`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        comparing(.between, .values([QueryKeyPaths.value(range.lowerBound), QueryKeyPaths.value(range.upperBound)]))
    }

    /// Whether the value lies in `range` (its upper bound excluded): `value >= lower AND value <
    /// upper`, as Realm Swift builds it.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Query<Bool>(.predicate(.and([
            comparing(.greaterOrEqual, .value(QueryKeyPaths.value(range.lowerBound))).predicate,
            comparing(.less, .value(QueryKeyPaths.value(range.upperBound))).predicate,
        ])))
    }
}

extension Query where T: _QueryOptionalComparable {
    /// Whether the optional value lies in `range` (inclusive): `BETWEEN`; nil does not.
    public func contains(_ range: ClosedRange<T._QueryWrapped>) -> Query<Bool> {
        comparing(.between, .values([QueryKeyPaths.value(range.lowerBound), QueryKeyPaths.value(range.upperBound)]))
    }

    /// Whether the optional value lies in `range` (its upper bound excluded); nil does not.
    public func contains(_ range: Range<T._QueryWrapped>) -> Query<Bool> {
        Query<Bool>(.predicate(.and([
            comparing(.greaterOrEqual, .value(QueryKeyPaths.value(range.lowerBound))).predicate,
            comparing(.less, .value(QueryKeyPaths.value(range.upperBound))).predicate,
        ])))
    }
}

/// An optional of a comparable persistable type, for `contains(range)` on optional properties.
public protocol _QueryOptionalComparable {
    /// The wrapped type.
    associatedtype _QueryWrapped: _Persistable & Comparable
}
extension Optional: _QueryOptionalComparable where Wrapped: _PersistableNonOptional & Comparable {
    public typealias _QueryWrapped = Wrapped
}

/// String and data operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `==` with options).
public protocol _QueryText: _Persistable {}
extension String: _QueryText {}
extension Data: _QueryText {}
extension Optional: _QueryText where Wrapped: _QueryText & _PersistableNonOptional {}

extension Query where T: _QueryText {
    /// Whether the value starts with `prefix`.
    public func starts<S: _QueryText>(with prefix: S, options: StringOptions = []) -> Query<Bool> {
        comparing(.beginsWith, .value(QueryKeyPaths.value(prefix)), options: options.queryOptions)
    }

    /// Whether the value ends with `suffix`.
    public func ends<S: _QueryText>(with suffix: S, options: StringOptions = []) -> Query<Bool> {
        comparing(.endsWith, .value(QueryKeyPaths.value(suffix)), options: options.queryOptions)
    }

    /// Whether the value contains `text`.
    public func contains<S: _QueryText>(_ text: S, options: StringOptions = []) -> Query<Bool> {
        comparing(.contains, .value(QueryKeyPaths.value(text)), options: options.queryOptions)
    }

    /// Whether the value equals `text` under `options`.
    public func equals<S: _QueryText>(_ text: S, options: StringOptions = []) -> Query<Bool> {
        comparing(.equal, .value(QueryKeyPaths.value(text)), options: options.queryOptions)
    }

    /// Whether the value differs from `text` under `options`: `!=[c]`, `!=[d]`, `!=[cd]`.
    public func notEquals<S: _QueryText>(_ text: S, options: StringOptions = []) -> Query<Bool> {
        comparing(.notEqual, .value(QueryKeyPaths.value(text)), options: options.queryOptions)
    }

    /// Whether the value starts with another property's value: `name BEGINSWITH nickname`.
    public func starts<U: _QueryText>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparing(.beginsWith, column.keyPath, options: options.queryOptions)
    }

    /// Whether the value ends with another property's value: `name ENDSWITH nickname`.
    public func ends<U: _QueryText>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparing(.endsWith, column.keyPath, options: options.queryOptions)
    }

    /// Whether the value contains another property's value: `name CONTAINS nickname`.
    public func contains<U: _QueryText>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparing(.contains, column.keyPath, options: options.queryOptions)
    }

    /// Whether the value equals another property's value under `options`: `name ==[c] nickname`.
    public func equals<U: _QueryText>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparing(.equal, column.keyPath, options: options.queryOptions)
    }

    /// Whether the value differs from another property's value under `options`: `name !=[c] nickname`.
    public func notEquals<U: _QueryText>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        comparing(.notEqual, column.keyPath, options: options.queryOptions)
    }

    /// Whether the value matches a `LIKE` pattern (`?` one character, `*` any run).
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        comparing(.like, .value(.string(pattern)), options: caseInsensitive ? .caseInsensitive : .plain)
    }
}

// MARK: Collections

/// `List`, `MutableSet` and `Map` in queries.
public protocol _QueryCollection {
    /// The element type (the map's value type).
    associatedtype _QueryElement: RealmCollectionValue
}
extension List: _QueryCollection { public typealias _QueryElement = Element }
extension MutableSet: _QueryCollection { public typealias _QueryElement = Element }
extension Map: _QueryCollection { public typealias _QueryElement = Value }
extension LinkingObjects: _QueryCollection { public typealias _QueryElement = Element }

extension Query where T: _QueryCollection {
    /// The number of elements: `@count`.
    public var count: Query<Int> { aggregate(.count) }

    /// Whether the collection contains `element`.
    public func contains(_ element: T._QueryElement) -> Query<Bool> {
        comparing(.contains, .value(QueryKeyPaths.value(element)))
    }

    /// Whether the collection contains any of `elements`.
    public func containsAny<S: Sequence>(in elements: S) -> Query<Bool> where S.Element == T._QueryElement {
        comparing(.in, .values(elements.map { QueryKeyPaths.value($0) }), modifier: .any)
    }

    /// The smallest element: `@min`.
    public var min: Query<T._QueryElement> { aggregate(.min) }
    /// The largest element: `@max`.
    public var max: Query<T._QueryElement> { aggregate(.max) }
    /// The sum of the elements: `@sum`.
    public var sum: Query<T._QueryElement> { aggregate(.sum) }
    /// The average of the elements: `@avg`.
    public var avg: Query<Double> { aggregate(.average) }

    private func aggregate<U>(_ aggregate: QueryAggregate) -> Query<U> {
        guard case .path(let components, nil) = node else { fatalError("Cannot aggregate a condition") }
        return Query<U>(.path(components, aggregate: aggregate))
    }
}


// MARK: Operators

/// Equal.
public func == <V: _Persistable>(lhs: Query<V>, rhs: V) -> Query<Bool> {
    lhs.comparing(.equal, .value(QueryKeyPaths.value(rhs)))
}

/// Not equal.
public func != <V: _Persistable>(lhs: Query<V>, rhs: V) -> Query<Bool> {
    lhs.comparing(.notEqual, .value(QueryKeyPaths.value(rhs)))
}

/// Less than.
public func < <V: _Persistable>(lhs: Query<V>, rhs: V) -> Query<Bool> {
    lhs.comparing(.less, .value(QueryKeyPaths.value(rhs)))
}

/// Less than or equal.
public func <= <V: _Persistable>(lhs: Query<V>, rhs: V) -> Query<Bool> {
    lhs.comparing(.lessOrEqual, .value(QueryKeyPaths.value(rhs)))
}

/// Greater than.
public func > <V: _Persistable>(lhs: Query<V>, rhs: V) -> Query<Bool> {
    lhs.comparing(.greater, .value(QueryKeyPaths.value(rhs)))
}

/// Greater than or equal.
public func >= <V: _Persistable>(lhs: Query<V>, rhs: V) -> Query<Bool> {
    lhs.comparing(.greaterOrEqual, .value(QueryKeyPaths.value(rhs)))
}

/// Two properties compared: equal.
public func == <V: _Persistable>(lhs: Query<V>, rhs: Query<V>) -> Query<Bool> { lhs.comparing(.equal, rhs.keyPath) }
/// Two properties compared: not equal.
public func != <V: _Persistable>(lhs: Query<V>, rhs: Query<V>) -> Query<Bool> { lhs.comparing(.notEqual, rhs.keyPath) }
/// Two properties compared: less than.
public func < <V: _Persistable>(lhs: Query<V>, rhs: Query<V>) -> Query<Bool> { lhs.comparing(.less, rhs.keyPath) }
/// Two properties compared: greater than.
public func > <V: _Persistable>(lhs: Query<V>, rhs: Query<V>) -> Query<Bool> { lhs.comparing(.greater, rhs.keyPath) }
/// Two properties compared: less than or equal (`a <= b`).
public func <= <V: _Persistable>(lhs: Query<V>, rhs: Query<V>) -> Query<Bool> { lhs.comparing(.lessOrEqual, rhs.keyPath) }
/// Two properties compared: greater than or equal (`a >= b`).
public func >= <V: _Persistable>(lhs: Query<V>, rhs: Query<V>) -> Query<Bool> { lhs.comparing(.greaterOrEqual, rhs.keyPath) }

/// Both conditions.
public func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
    Query<Bool>(.predicate(.and([lhs.predicate, rhs.predicate])))
}

/// Either condition.
public func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
    Query<Bool>(.predicate(.or([lhs.predicate, rhs.predicate])))
}

/// The opposite condition.
public prefix func ! (condition: Query<Bool>) -> Query<Bool> {
    Query<Bool>(.predicate(.not(condition.predicate)))
}

// MARK: Key paths to names

/// Learns property names from Swift key paths, for `where { }`, aggregates and sorting.
///
/// Swift has no public way to ask `\Dog.age` for its name, so the first time a key path is seen
/// a probe instance of the class reads it with a recorder attached: the `@Persisted` getter then
/// records its property's name instead of reading. Cached for the process.
enum QueryKeyPaths {
    private static let names = KeyPathTable()

    static func name<Root, Value>(of keyPath: KeyPath<Root, Value>) -> String {
        name(ofProperty: keyPath as PartialKeyPath<Root>)
    }

    /// The name of the property a key path of an object class reads (one level: `\Dog.name`).
    static func name<Root>(ofProperty keyPath: PartialKeyPath<Root>) -> String {
        if let known = names.name(for: keyPath) { return known }
        guard let type = Root.self as? ObjectBase.Type else {
            fatalError("Key paths name properties of objects, not of \(Root.self)")
        }
        let probe = type.init()
        let recorder = KeyPathRecorder()
        probe.keyPathRecorder = recorder
        _ = (probe as! Root)[keyPath: keyPath]
        guard recorder.names.count == 1, let name = recorder.names.first else {
            fatalError("\(keyPath) is not a @Persisted property of \(Root.self)")
        }
        names.record(keyPath, name: name)
        return name
    }

    /// A persistable value as a query constant.
    static func value<V: _Persistable>(_ value: V) -> QueryValue {
        switch value._rlmValue.storage {
        case .object(let object?):
            guard let state = object.realmState else { fatalError("Only managed objects can be compared in a query") }
            return .object(className: state.table.name, key: state.key)
        case .object(nil): return .null
        case .mixed(let mixed): return (try? QueryArguments.queryValue(mixed.swiftValue)) ?? .null
        default:
            do {
                return try QueryArguments.queryValue(stored: value)
            } catch {
                fatalError("\(V.self) values cannot be compared in a query")
            }
        }
    }
}

/// Collects the property names a probe object reads (see ``QueryKeyPaths``).
final class KeyPathRecorder {
    var names: [String] = []
}
