internal import RealmRuntime

/// How `Results` are sorted: a key path (through to-one links) and a direction. Realm Swift's
/// `SortDescriptor`.
public struct SortDescriptor: Sendable, Hashable {
    /// The property to sort by (`"age"`, `"owner.name"`).
    public var keyPath: String
    /// Whether smaller values (and nil) come first.
    public var ascending: Bool

    /// A sort by `keyPath`.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// The same key path, the other direction.
    public var reversed: SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}
