import Foundation
internal import RealmRuntime

/// Turning the `value:` of `Object(value:)` and `create(_:value:)` (and dynamic writes) into
/// property values, and stored values back into what dynamic reads return.
enum ObjectValues {
    /// The schema of a class of the realm being written, by name: how a nested dictionary or
    /// array for a link to a class without a Swift class in this program (dynamic access)
    /// becomes an unmanaged ``DynamicObject`` holding its values. Nil where no realm is known.
    typealias ClassLookup = (String) -> ObjectSchemaInfo?

    /// The values a dictionary, array or object gives, by property name, each checked against
    /// its property's type.
    static func values(for type: ObjectBase.Type, from value: Any, classes: ClassLookup? = nil) throws -> [String: _RealmValue] {
        try values(for: ObjectSchemaDiscovery.schema(for: type), from: value, classes: classes)
    }

    /// ``values(for:from:)-(ObjectBase.Type,_)`` for a class known by its schema (a class of the
    /// realm, for dynamic objects).
    static func values(for schema: ObjectSchemaInfo, from value: Any, classes: ClassLookup? = nil) throws -> [String: _RealmValue] {
        var result: [String: _RealmValue] = [:]
        switch value {
        case let dictionary as [String: Any?]:
            for property in schema.properties {
                guard let entry = dictionary[property.name] else { continue }
                result[property.name] = try realmValue(from: entry, for: property, className: schema.className, classes: classes)
            }
        case let array as [Any?]:
            // One value per persisted property, in declaration order, as Realm requires.
            guard array.count == schema.properties.count else {
                throw Realm.Error(.invalidInput, "Invalid array input: number of values (\(array.count)) does not match number of properties (\(schema.properties.count))")
            }
            for (property, entry) in zip(schema.properties, array) {
                result[property.name] = try realmValue(from: entry, for: property, className: schema.className, classes: classes)
            }
        case let object as ObjectBase:
            for property in schema.properties {
                result[property.name] = try realmValue(from: object[property.name], for: property, className: schema.className, classes: classes)
            }
        default:
            throw Realm.Error(.invalidInput, "Invalid value '\(value)' to initialize an object of type '\(schema.className)': expected a dictionary, an array or an object")
        }
        return result
    }

    /// A property's value from a Swift value: a scalar of the property's type, an object or
    /// nested dictionary/array for a link, an array for a list or set, a dictionary for a map.
    static func realmValue(from value: Any?, for property: PropertyInfo, className: String, classes: ClassLookup? = nil) throws -> _RealmValue {
        guard let collection = property.collection else { return try elementValue(from: value, for: property, className: className, classes: classes) }
        let element = property.element
        guard let value = unwrapped(value) else { return _RealmValue(.elements([])) }
        if let content = value as? any RealmCollectionContent { return _RealmValue(.collection(content)) }
        switch collection {
        case .map:
            guard let dictionary = value as? [String: Any?] else { throw invalid(value, property, className) }
            return _RealmValue(.entries(try dictionary.map { ($0.key, try elementValue(from: $0.value, for: element, className: className, classes: classes)) }))
        case .list, .set:
            guard let array = value as? [Any?] else { throw invalid(value, property, className) }
            return _RealmValue(.elements(try array.map { try elementValue(from: $0, for: element, className: className, classes: classes) }))
        }
    }

    /// One value (or element): links become objects (nested values build unmanaged objects of the
    /// linked class), `AnyRealmValue`s are wrapped, scalars converted.
    private static func elementValue(from value: Any?, for property: PropertyInfo, className: String, classes: ClassLookup?) throws -> _RealmValue {
        switch property.kind {
        case .object:
            guard let value = unwrapped(value) else { return _RealmValue(.object(nil)) }
            if let embedded = value as? EmbeddedObject, embedded.realmState != nil {
                // A managed embedded object belongs to its owner: a value taken from it is a copy.
                let copy = type(of: embedded).init()
                copy.dynamicValues = try values(for: type(of: embedded), from: embedded)
                return _RealmValue(.object(copy))
            }
            if let object = value as? ObjectBase { return _RealmValue(.object(object)) }
            guard let name = property.objectClassName, value is [String: Any?] || value is [Any?] else {
                throw invalid(value, property, className)
            }
            if let type = ObjectSchemaDiscovery.registeredType(named: name) {
                let object = type.init()
                object.dynamicValues = try values(for: type, from: value, classes: classes)
                return _RealmValue(.object(object))
            }
            // A class of the realm without a Swift class here: an unmanaged dynamic object, which
            // takes the class of the property it is stored in (`Realm.linkKey`).
            guard let schema = classes?(name) else { throw invalid(value, property, className) }
            let object = DynamicObject()
            object.dynamicValues = try values(for: schema, from: value, classes: classes)
            return _RealmValue(.object(object))
        case .mixed:
            return _RealmValue(.mixed((value as? AnyRealmValue) ?? AnyRealmValue(swiftValue: unwrapped(value))))
        default:
            return _RealmValue(try property.columnValue(from: value, className: className))
        }
    }

    /// The value inside any level of `Optional`, or nil for nil and `NSNull`.
    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value, !(value is NSNull) else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return unwrapped(mirror.children.first?.value)
    }

    private static func invalid(_ value: Any, _ property: PropertyInfo, _ className: String) -> Realm.Error {
        Realm.Error(.invalidInput, "Invalid value '\(value)' of type '\(type(of: value))' for '\(property.typeName)' property '\(className).\(property.name)'.")
    }

    /// An unmanaged value as dynamic access returns it: scalars as Swift values, objects, arrays
    /// for lists and sets, dictionaries for maps.
    static func swiftValue(_ value: _RealmValue, _ property: PropertyInfo) -> Any? {
        switch value.storage {
        case .stored(let stored): return property.swiftValue(stored)
        case .object(let object): return object
        case .mixed(let mixed): return mixed.swiftValue
        case .collection(let collection): return swiftValue(collection._rlmContent, property)
        case .elements(let elements): return elements.map { swiftValue($0, property.element) }
        case .entries(let entries):
            return Dictionary(entries.map { ($0.0, swiftValue($0.1, property.element)) }) { $1 }
        }
    }
}

extension ObjectBase {
    /// Creates an unmanaged object from a dictionary (by property name, any order), an array (in
    /// declaration order) or another object; unmentioned properties keep their initial values.
    /// Nested dictionaries and arrays build linked objects, lists, sets and maps.
    ///
    /// Traps, as Realm does, on a value of the wrong type or an array whose count is not the
    /// number of persisted properties.
    public convenience init(value: Any) {
        self.init()
        do {
            dynamicValues = try ObjectValues.values(for: type(of: self), from: value)
        } catch {
            fatalError("\(error)")
        }
    }
}
