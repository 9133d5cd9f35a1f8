import Foundation

// `Codable` models, as in Realm Swift: a class declared `Object, Codable` gets a synthesized
// `init(from:)` that decodes each `@Persisted` wrapper (below), and encodes through
// `ObjectBase+Codable.swift`, which reads the object's actual values.

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value; the object being decoded is unmanaged and holds it.
    ///
    /// A property's key missing from the input is an error, except for an optional property,
    /// which then decodes as nil (see ``OptionalCodingWrapper``).
    public init(from decoder: any Decoder) throws {
        self.init(wrappedValue: try Value(from: decoder))
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the value the wrapper holds, as a single value.
    ///
    /// The wrapper knows neither its object nor whether that object is managed, so a model
    /// object is not encoded through its wrappers: an `Encodable` ``Object`` or
    /// ``EmbeddedObject`` encodes its current values with ``ObjectBase``'s
    /// `encode(to:)`, managed or not.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(unmanagedValue ?? Value._rlmDefaultValue)
    }
}

/// A property wrapper whose wrapped value can be nil, so that a synthesized `init(from:)`
/// decodes a missing key as nil instead of failing: what lets a `Codable` model omit optional
/// properties from its input, as in Realm Swift.
///
/// ```swift
/// class Dog: Object, Codable {
///     @Persisted var name = ""
///     @Persisted var age: Int?
/// }
/// let dog = try JSONDecoder().decode(Dog.self, from: Data(#"{"name": "Rex"}"#.utf8))
/// dog.age  // nil
/// ```
public protocol OptionalCodingWrapper {
    /// The wrapped type, which has a nil value.
    associatedtype WrappedType: ExpressibleByNilLiteral
    /// A wrapper holding `wrappedValue`.
    init(wrappedValue: WrappedType)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {}

extension KeyedDecodingContainer {
    /// Decodes an ``OptionalCodingWrapper`` (an optional `@Persisted` property), or a wrapper
    /// of nil if `key` is absent or null.
    ///
    /// Synthesized `init(from:)` implementations choose this over the general
    /// `decode(_:forKey:)`, which would fail on a missing key.
    public func decode<T: Decodable & OptionalCodingWrapper>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}

/// A `@Persisted` property that can encode the value it has on a given object.
protocol EncodablePersistedProperty {
    /// Encodes the property `name` of `object` (managed or not) under `name`; does nothing for
    /// linking objects (computed, not stored); throws if the value type is not `Encodable`.
    func encodeValue(of object: ObjectBase, name: String, into container: inout KeyedEncodingContainer<PropertyCodingKey>) throws
}

extension Persisted: EncodablePersistedProperty {
    func encodeValue(of object: ObjectBase, name: String, into container: inout KeyedEncodingContainer<PropertyCodingKey>) throws {
        guard !Value._rlmType.isLinkingObjects else { return }
        let value: Value
        if let state = object.realmState {
            guard let column = state.table.columns[name] else { return }
            value = Value._rlmGet(object, column: column)
        } else if let given = object.dynamicValues?[name], let typed = Value._rlmFromValue(given) {
            value = typed  // set after creation (by name, or by a setter that records only the name)
        } else {
            value = unmanagedValue ?? Value._rlmDefaultValue
        }
        guard let encodable = Persisted(wrappedValue: value) as? any Encodable else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: container.codingPath + [PropertyCodingKey(stringValue: name)],
                debugDescription: "Property '\(name)' of '\(type(of: object))' has type \(Value.self), which is not Encodable."))
        }
        try container.encode(encodable, forKey: PropertyCodingKey(stringValue: name))
    }
}

/// A coding key that is a property's name.
struct PropertyCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
