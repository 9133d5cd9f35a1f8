// Key-value coding on collections of objects, as Realm Swift's collections inherit it from
// NSArray: one value per object, and a bulk update of a property of every object.

extension ObjectCollectionQueries {
    /// The value of property `key` of each object, in the collection's order, as an array
    /// (`dogs.value(forKey: "name") as? [String]`); `"self"` gives the objects. A nil value is an
    /// `Optional.none` element, so an optional property's values cast to `[T?]`.
    public func value(forKey key: String) -> Any? {
        if key == "self" { return Array(results) }
        return results.map { $0.value(forKey: key) as Any }
    }

    /// The value at a dotted key path (`"owner.name"`, through to-one links) of each object, as
    /// an array; `"@count"` gives the number of objects.
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath == "@count" { return results.count }
        return results.map { $0.value(forKeyPath: keyPath) as Any }
    }

    /// Sets property `key` of every object to `value`: a bulk update, in a write transaction.
    ///
    /// ```swift
    /// try realm.write { realm.objects(Dog.self).where { $0.age > 10 }.setValue(true, forKey: "senior") }
    /// ```
    ///
    /// The objects are taken first, so an update that makes objects leave a filtered collection
    /// still reaches every one of them.
    public func setValue(_ value: Any?, forKey key: String) {
        for object in Array(results) { object.setValue(value, forKey: key) }
    }
}
