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

/// A change to an observed object, delivered by its ``FreezableObject/changes`` stream, or to
/// an observed projection (``ProjectionObservable/changes``; the snapshot is then the projection
/// and the property changes name its properties).
public enum ObjectChange<T: Freezable>: Sendable {
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
        self.init(element, configuration: configuration) { changes, table, _ in
            changes.compactMap { change -> PropertyChange? in
                guard let property = table.property(change.column) else { return nil }
                return PropertyChange(name: property.name, oldValue: PropertyChange.sendableValue(change.old, property),
                                      newValue: PropertyChange.sendableValue(change.new, property))
            }
        }
    }

    /// The public form of an object element, its property changes described by `describe`
    /// (given the stored changes, the object's table and the frozen value).
    init?(_ element: ChangeElement, configuration: Realm.Configuration,
          describing describe: ([PropertyValueChange], Table, Frozen<T>) -> [PropertyChange]) {
        switch element {
        case .object(let version, let table, let key, let changes):
            let frozen = Frozen<T>(snapshot: FrozenSnapshot(configuration: configuration, version: version), table: table, key: key)
            self = .change(frozen, describe(changes, table, frozen))
        case .objectDeleted:
            self = .deleted
        case .failure(let error):
            self = .error(Realm.Error(error, configuration: configuration))
        case .collection, .values, .realm:
            return nil
        }
    }
}

extension PropertyChange {
    /// A stored scalar's Swift value; nil for links, collections and `AnyRealmValue` (which
    /// have no `Sendable` value).
    static func sendableValue(_ value: ColumnValue?, _ property: PropertyInfo) -> (any Sendable)? {
        guard let value, property.collection == nil, property.kind != .object, property.kind != .mixed else { return nil }
        return sendable(property.swiftValue(value))
    }

    /// `value` if it is a scalar of a persisted type (an optional one unwrapped); nil otherwise,
    /// for nil and for values that are not `Sendable` (objects, collections).
    static func sendable(_ value: Any?) -> (any Sendable)? {
        switch value {
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
