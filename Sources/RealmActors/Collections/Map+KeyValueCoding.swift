// Key-value coding on a map, as Realm Swift's `Map` forwards it to its dictionary: the key is a
// string, the value untyped (`Any?`). Realm's documentation fills maps this way
// (`dog.favoriteParksByCity.setValue("Bush Park", forKey: "Ottawa")`).

extension Map {
    /// The value for `key`, untyped (nil if the key is absent): Realm Swift's `value(forKey:)`.
    public func value(forKey key: String) -> Any? {
        self[Key(_rlmKey: key)].map { $0 as Any }
    }

    /// Sets the value for `key` (adding the key if needed); `nil` removes the key, as setting
    /// nil through key-value coding does in Realm Swift. Traps if `value` is not a `Value`: a
    /// programmer error, as Realm raises for it. In a write transaction if the map is managed.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value else { return removeObject(for: Key(_rlmKey: key)) }
        guard let typed = value as? Value else {
            preconditionFailure("Map<\(Key.self), \(Value.self)>.setValue: \(type(of: value)) is not \(Value.self) (key '\(key)')")
        }
        updateValue(typed, forKey: Key(_rlmKey: key))
    }
}
