/// What ``ProjectionSchema`` needs from any `Projected<T, Value>`.
protocol AnyProjected {
    var anyKeyPath: AnyKeyPath { get }
}

/// Declares a property of a ``Projection`` and the key path of the object it reads: Realm
/// Swift's `@Projected`.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName                  // String, readable and writable
///     @Projected(\Person.birthday.timeIntervalSince1970) var born  // Double, read only
///     @Projected(\Person.address?.city) var homeCity               // String?, through a link
///     @Projected(\Person.friends.projectTo.firstName) var friendsNames: ProjectedCollection<String>
/// }
/// ```
///
/// Reads evaluate the key path on the projection's ``Projection/rootObject`` each time; a write
/// assigns through the key path, so it needs a writable one (a property of the object itself).
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: AnyProjected {
    /// The key path of the projected object this property reads.
    let keyPath: KeyPath<T, Value>

    var anyKeyPath: AnyKeyPath { keyPath }

    /// A projected property reading `projectedKeyPath` of the projection's root object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        keyPath = projectedKeyPath
    }

    /// Not available: a `@Projected` property is accessed through its projection.
    @available(*, unavailable, message: "@Projected can only be used as a property on a Projection")
    public var wrappedValue: Value {
        get { fatalError("@Projected can only be used as a property on a Projection") }
        set { fatalError("@Projected can only be used as a property on a Projection") }
    }

    /// Reads the key path on the projection's root object, or writes through it.
    ///
    /// Writing traps if the key path is not writable (a computed value, an optional chain).
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            projection.rootObject[keyPath: projection[keyPath: storageKeyPath].keyPath]
        }
        set {
            let keyPath = projection[keyPath: storageKeyPath].keyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
                preconditionFailure("The key path \(keyPath) of a @Projected property is not writable")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}
