extension ProjectionObservable {
    /// A `Sendable` snapshot of the projection: the projection over its object frozen at the
    /// realm's current version (Realm Swift's `freeze()`, which returns a frozen projection). Read
    /// it like the projection (`frozen.firstName`), or several properties at once with
    /// ``Frozen/read(_:)``; thaw it with ``Frozen/thaw(in:)`` or ``Frozen/thaw(isolation:)``.
    /// Traps if the object is unmanaged, deleted, or inside a write transaction.
    ///
    /// ```swift
    /// let frozen = projection.freeze()    // Frozen<PersonProjection>
    /// await directory.show(frozen)        // crosses actors
    /// print(frozen.firstName, frozen.isFrozen)
    /// ```
    public func freeze() -> Frozen<Self> {
        Frozen(rootObject.freeze())
    }
}
