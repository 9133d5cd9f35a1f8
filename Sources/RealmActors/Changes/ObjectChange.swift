import Foundation
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
public enum ObjectChange<T: ObjectBase>: Sendable {
    /// Properties of the object changed (the snapshot is the object after them).
    case change(Frozen<T>, [PropertyChange])
    /// The object was deleted; the stream ends after this.
    case deleted
    /// The realm could no longer be read; the stream ends after this.
    case error(Realm.Error)
}

extension ObjectChange {
    /// The public form of an object element of the notifier: the frozen object at the element's
    /// version and its changed properties with their Swift values. Nil for any other element
    /// (the stream then ends).
    init?(_ element: ChangeElement, configuration: Realm.Configuration) {
        switch element {
        case .object(let version, let table, let key, let changes):
            let properties = changes.compactMap { change -> PropertyChange? in
                guard let property = table.property(change.column) else { return nil }
                return PropertyChange(name: property.name, oldValue: Self.sendableValue(change.old, property),
                                      newValue: Self.sendableValue(change.new, property))
            }
            self = .change(Frozen(snapshot: FrozenSnapshot(configuration: configuration, version: version), table: table, key: key), properties)
        case .objectDeleted:
            self = .deleted
        case .failure(let error):
            self = .error(Realm.Error(error, configuration: configuration))
        case .collection, .values, .realm:
            return nil
        }
    }

    /// A scalar's Swift value; nil for links and collections (which have no `Sendable` value).
    private static func sendableValue(_ value: ColumnValue?, _ property: PropertyInfo) -> (any Sendable)? {
        guard let value, property.collection == nil, property.kind != .object, property.kind != .mixed else { return nil }
        switch property.swiftValue(value) {
        case let value as Bool: return value
        case let value as Int: return value
        case let value as Float: return value
        case let value as Double: return value
        case let value as String: return value
        case let value as Data: return value
        case let value as Date: return value
        case let value as ObjectId: return value
        case let value as UUID: return value
        case let value as Decimal128: return value
        default: return nil
        }
    }
}
