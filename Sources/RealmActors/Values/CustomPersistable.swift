/// What ``CustomPersistable`` and ``FailableCustomPersistable`` share: the stored type and the
/// value in it.
public protocol _CustomPersistable: _PersistableNonOptional {
    /// The type the value is stored as: a type Realm stores natively (`String`, `Int`, `Data`,
    /// `Date`, `Decimal128`…).
    associatedtype PersistedType: _PersistableNonOptional
    /// The value in its stored form.
    var persistableValue: PersistedType { get }
}

/// A type stored as another, natively supported type: Realm Swift's `CustomPersistable`.
///
/// ```swift
/// struct Celsius: CustomPersistable {
///     typealias PersistedType = Double
///     var degrees: Double
///     init(persistedValue: Double) { degrees = persistedValue }
///     var persistableValue: Double { degrees }
/// }
///
/// class Reading: Object {
///     @Persisted var temperature: Celsius          // stored as a Double
///     @Persisted var history: List<Celsius>
/// }
/// let warm = realm.objects(Reading.self).where { $0.temperature.persistableValue > 20 }
/// ```
///
/// The schema sees `PersistedType`: queries compare the stored values (pass either kind of value),
/// sorting orders them, and dynamic access (`object["temperature"]`) reads and takes the stored
/// value. A property declared without an initial value starts as
/// `Self(persistedValue: <PersistedType's default>)` (0, "", …). Unlike Realm Swift, the
/// persisted type cannot be an `EmbeddedObject` subclass here.
public protocol CustomPersistable: _CustomPersistable {
    /// The value a stored value stands for.
    init(persistedValue: PersistedType)
}

/// A type stored as another, natively supported type, where not every stored value stands for
/// one: Realm Swift's `FailableCustomPersistable` (`URL` stored as a `String`, for example).
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public typealias PersistedType = String
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
///
/// Reading a stored value the initializer rejects traps, naming the value, the type and the
/// property, as Realm Swift raises (there is no value to return).
public protocol FailableCustomPersistable: _CustomPersistable {
    /// The value a stored value stands for, or nil if it stands for none.
    init?(persistedValue: PersistedType)
}

extension CustomPersistable {
    /// The value of the persisted type's default (0, "", …).
    public static var _rlmDefaultValue: Self { Self(persistedValue: PersistedType._rlmDefaultValue) }
    /// The persisted type's storage.
    public static var _rlmType: _RealmPropertyType { PersistedType._rlmType }
    /// Reads the stored value and converts it.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        Self(persistedValue: PersistedType._rlmGet(object, column: column))
    }
    /// The stored form of ``_CustomPersistable/persistableValue``.
    public var _rlmValue: _RealmValue { persistableValue._rlmValue }
    /// The value a stored form stands for; nil if it is not a `PersistedType`.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        PersistedType._rlmFromValue(stored).map(Self.init(persistedValue:))
    }
}

extension FailableCustomPersistable {
    /// The value of the persisted type's default; traps if the initializer rejects it (give
    /// the property an initial value then).
    public static var _rlmDefaultValue: Self {
        guard let value = Self(persistedValue: PersistedType._rlmDefaultValue) else {
            preconditionFailure("\(Self.self) has no value for '\(PersistedType._rlmDefaultValue)': give its properties an initial value")
        }
        return value
    }
    /// The persisted type's storage.
    public static var _rlmType: _RealmPropertyType { PersistedType._rlmType }
    /// Reads the stored value and converts it; traps if the initializer rejects it.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        let stored = PersistedType._rlmGet(object, column: column)
        if let value = Self(persistedValue: stored) { return value }
        let property = object.realmState.flatMap { state in
            state.table.property(column).map { "\(state.table.name).\($0.name)" }
        } ?? "column \(column) of '\(type(of: object))'"
        preconditionFailure("Failed to convert persisted value '\(stored)' to type '\(Self.self)' (property '\(property)')")
    }
    /// The stored form of ``_CustomPersistable/persistableValue``.
    public var _rlmValue: _RealmValue { persistableValue._rlmValue }
    /// The value a stored form stands for; nil if it is not a `PersistedType` or is rejected.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        PersistedType._rlmFromValue(stored).flatMap(Self.init(persistedValue:))
    }
}

extension Query where T: _CustomPersistable {
    /// The value as stored: `$0.temperature.persistableValue > 20` compares the stored
    /// `PersistedType` (the query language sees the stored property: `temperature > 20`).
    public var persistableValue: Query<T.PersistedType> { retyped() }
}
