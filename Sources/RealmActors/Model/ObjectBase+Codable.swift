import Foundation

extension Encodable where Self: ObjectBase {
    /// Encodes the object's persisted properties, keyed by property name, in declaration order:
    /// what a synthesized `encode(to:)` would write, but from the values the object has now.
    ///
    /// A class declared `Object, Codable` uses this instead of a synthesized `encode(to:)`
    /// (which would read the `@Persisted` wrappers, and they hold neither a managed object's
    /// values nor, always, an unmanaged one's). So managed objects encode too — Realm Swift
    /// throws for them — with their values at the realm's current version, following links and
    /// collections. Linking objects are not encoded. A class's own `encode(to:)` takes
    /// precedence; a custom `CodingKeys` enum is used by decoding but not by this method — define
    /// `encode(to:)` to rename keys when encoding.
    ///
    /// ```swift
    /// class Dog: Object, Codable {
    ///     @Persisted var name = ""
    ///     @Persisted var tags: List<String>
    /// }
    /// let dog = try JSONDecoder().decode(Dog.self, from: Data(#"{"name": "Rex", "tags": ["good"]}"#.utf8))
    /// try realm.write { realm.add(dog) }
    /// let json = try JSONEncoder().encode(dog)  // {"name":"Rex","tags":["good"]}
    /// ```
    ///
    /// - Throws: `EncodingError.invalidValue` if a property's type is not `Encodable`, or what
    ///   the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: PropertyCodingKey.self)
        for (name, property) in ObjectSchemaDiscovery.persistedChildren(of: self) {
            guard let property = property as? any EncodablePersistedProperty else { continue }
            try property.encodeValue(of: self, name: name, into: &container)
        }
    }
}
