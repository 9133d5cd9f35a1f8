internal import RealmRuntime

/// One changed property of an observed object.
public struct PropertyChange: Sendable {
    /// The property's name.
    public let name: String
    /// The value before the change (nil for links, collections and `AnyRealmValue`, and for a
    /// nil value).
    public let oldValue: (any Sendable)?
    /// The value after the change (nil as for `oldValue`).
    public let newValue: (any Sendable)?
}

/// A change to an observed object, delivered by its ``FreezableObject/changes`` stream.
public enum ObjectChange<T: Object>: Sendable {
    /// Properties of the object changed (the snapshot is the object after them).
    case change(Frozen<T>, [PropertyChange])
    /// The object was deleted; the stream ends after this.
    case deleted
    /// The realm could no longer be read; the stream ends after this.
    case error(Realm.Error)
}
