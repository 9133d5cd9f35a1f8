extension Realm {
    /// Runs `body` with mixed (``AnyRealmValue``) links read as the objects they name, without
    /// looking each object up: how the ``ReadableObjects`` of a damaged file are read.
    ///
    /// A link of a property, list, set or map is read as an accessor of the object it names,
    /// without reading that object; a mixed link is looked up in its class's table, so that one
    /// to a deleted object reads as `.none` — and a lookup that meets a damaged page there traps,
    /// as every non-throwing read does. Inside `body` a mixed link is read as the others are:
    /// follow it, as any link, only to an object that ``ReadableObjects/contains(_:)`` of its
    /// class accepts (`realm-inspect recover` writes any other as null and counts it).
    package func withMixedLinksUnchecked<Result>(_ body: () throws -> Result) rethrows -> Result {
        let outer = mixedLinksUnchecked
        mixedLinksUnchecked = true
        defer { mixedLinksUnchecked = outer }
        return try body()
    }
}
