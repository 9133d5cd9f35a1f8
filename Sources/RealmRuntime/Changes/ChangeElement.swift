/// One element of a change stream as the notifier computes it: keys, indices and stored
/// values at a pinned version. The API layer wraps it in its public form (a
/// `RealmCollectionChange` of frozen results, an `ObjectChange` of a frozen object, a frozen
/// realm), which is all it adds.
package enum ChangeElement: Sendable {
    /// A collection's objects at `version`: `keys` in order, of `table` (nil while the class has
    /// no table). `diff` is nil for the first element, else the change from the last one.
    case collection(version: FrozenVersion, table: Table?, keys: [UInt64], diff: CollectionDiff?)
    /// Properties of object `key` of `table` changed since the last element; each change has the
    /// column and its stored value before and at `version`.
    case object(version: FrozenVersion, table: Table, key: UInt64, changes: [PropertyValueChange])
    /// A collection of values (list, set or map) in column `column` of object `key` of `table`:
    /// its stored elements at `version` (`current`; for a map, key and value alternating) and
    /// those last delivered (`previous`, nil for the first element). Empty `current` and the
    /// stream's end: the owner was deleted.
    case values(version: FrozenVersion, table: Table, key: UInt64, column: Int, previous: [ColumnValue]?, current: [ColumnValue])
    /// The observed object was deleted; the stream ends.
    case objectDeleted
    /// A new version of the realm.
    case realm(FrozenVersion)
    /// The newest version could not be read; the stream ends.
    case failure(RuntimeError)
}

/// One changed property of an observed object: its column and stored values.
package struct PropertyValueChange: Sendable {
    package let column: Int
    /// The value when the previous element was delivered (nil if the column had none).
    package let old: ColumnValue?
    /// The value at the element's version.
    package let new: ColumnValue?
}
