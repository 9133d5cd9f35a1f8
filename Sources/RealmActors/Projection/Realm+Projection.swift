extension Realm {
    /// Every object of the projection's root class, each seen through the projection: Realm
    /// Swift's `realm.objects(PersonProjection.self)`, returned as ``ProjectedResults`` (Realm
    /// Swift's `Results<PersonProjection>`; see there why the type differs).
    ///
    /// ```swift
    /// let names = realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName").map(\.firstName)
    /// ```
    public func objects<Element: ProjectionObservable>(_ type: Element.Type) -> ProjectedResults<Element>
        where Element.Root: Object {
        ProjectedResults(objects(Element.Root.self))
    }
}
