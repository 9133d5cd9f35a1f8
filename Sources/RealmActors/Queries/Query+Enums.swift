internal import RealmRuntime

/// An optional `PersistableEnum`, for `rawValue` and `persistableValue` on optional properties.
public protocol _QueryOptionalEnum {
    /// The enum.
    associatedtype _QueryEnum: PersistableEnum
}
extension Optional: _QueryOptionalEnum where Wrapped: PersistableEnum { public typealias _QueryEnum = Wrapped }

extension Query where T: PersistableEnum {
    /// The enum's raw value, as stored: `$0.status.rawValue == 2` or
    /// `$0.kind.rawValue.starts(with: "a")` compare it with values that need not be cases (the
    /// query language sees the stored property: `status == 2`).
    public var rawValue: Query<T.RawValue> { retyped() }

    /// The value as stored — for a `PersistableEnum`, its raw value (see `rawValue`).
    public var persistableValue: Query<T.RawValue> { retyped() }
}

extension Query where T: _QueryOptionalEnum {
    /// The optional enum's raw value, as stored (nil when the property is nil).
    public var rawValue: Query<T._QueryEnum.RawValue?> { retyped() }

    /// The value as stored — for an optional `PersistableEnum`, its raw value or nil.
    public var persistableValue: Query<T._QueryEnum.RawValue?> { retyped() }
}
