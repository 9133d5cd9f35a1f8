internal import RealmRuntime

/// An enum that can be the type of a `@Persisted` property: Realm Swift's `PersistableEnum`.
///
/// Declare the enum with a persistable raw type (an integer type or `String`, for example) and
/// conform it; the property is stored as its raw value, so its kind in the schema is the raw
/// type's kind:
///
/// ```swift
/// enum Status: Int, PersistableEnum {
///     case active, archived
/// }
///
/// class Task: Object {
///     @Persisted var status: Status           // defaults to the first case, .active
///     @Persisted var previousStatus: Status?  // defaults to nil
/// }
/// ```
///
/// The conformance needs no code: the requirements of `_Persistable` have default
/// implementations in terms of the raw value. A new property's default is the first case in
/// `allCases`. Reading a stored raw value that matches no case (the enum lost a case, or the file
/// was written by other code) traps, naming the value, the enum and the property, as Realm Swift
/// throws an exception there. Dynamic access (`object["status"]`, `Object(value:)`) sees and
/// takes the raw value.
public protocol PersistableEnum: _PersistableNonOptional, RawRepresentable, CaseIterable, Hashable
    where RawValue: _PersistableNonOptional {}

extension PersistableEnum {
    /// The first case in `allCases`.
    public static var _rlmDefaultValue: Self {
        guard let first = allCases.first else {
            preconditionFailure("PersistableEnum '\(Self.self)' must have at least one case")
        }
        return first
    }

    /// The raw value's storage.
    public static var _rlmType: _RealmPropertyType { RawValue._rlmType }

    /// Reads the raw value and returns its case; traps if it matches none.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        let raw = RawValue._rlmGet(object, column: column)
        if let value = Self(rawValue: raw) { return value }
        let property = object.realmState.flatMap { state in
            state.table.property(column).map { "\(state.table.name).\($0.name)" }
        } ?? "column \(column) of '\(type(of: object))'"
        preconditionFailure("'\(raw)' is not a valid value for \(Self.self) (property '\(property)')")
    }

    /// The raw value's stored form.
    public var _rlmValue: _RealmValue { rawValue._rlmValue }

    /// The case whose raw value has this stored form; nil if there is none.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard let raw = RawValue._rlmFromValue(stored) else { return nil }
        return Self(rawValue: raw)
    }
}
