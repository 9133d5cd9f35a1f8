internal import RealmRuntime

/// How `Results` are sorted: a key path (through to-one links) and a direction. Realm Swift's
/// `SortDescriptor`.
///
/// ```swift
/// let byAge = dogs.sorted(by: [SortDescriptor(keyPath: \Dog.age, ascending: false), "name"])
/// ```
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The property to sort by (`"age"`, `"owner.name"`).
    public var keyPath: String
    /// Whether smaller values (and nil) come first.
    public var ascending: Bool

    /// A sort by `keyPath`.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// A sort by a property of an object class (`\Dog.age`).
    public init<Element: ObjectBase>(keyPath: PartialKeyPath<Element>, ascending: Bool = true) {
        self.init(keyPath: QueryKeyPaths.name(ofProperty: keyPath), ascending: ascending)
    }

    /// An ascending sort by the key path in the literal (`"age"`, `"owner.name"`).
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key path, the other direction.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }

    /// `SortDescriptor(keyPath: age, direction: descending)`, as Realm prints it.
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}
