
/// The tracker of the `changes` of a collection of values — a `List` or `MutableSet` of
/// strings, numbers, dates…, or a `Map` — stored in one column of one object: the stored
/// elements last delivered and the newest ones.
///
/// Such a collection is one packed column value (``PackedCollection``), so a change is simply a
/// different value at a newer version; the diff is left to the public layer, which knows whether
/// the elements form a list, a set or a map (see ``ChangeElement/values(version:table:key:column:previous:current:)``).
///
/// Lifecycle:
/// 1. Made at the version the stream starts from: reads the column (`delivered`), and the
///    initial element reports it with no previous elements.
/// 2. `advance` takes in each newer version: versions whose change log does not touch the
///    property are skipped without reading it; otherwise the column is read again and, if it
///    differs, an element is pending (a silenced commit moves `delivered` instead).
/// 3. The owner deleted: one last element with no elements (everything removed), then the
///    stream ends.
///
/// State, confined to the notifier actor: `snapshot` (newest version taken in), `delivered`
/// and `current` (decoded elements), `ownerDeleted`.
package final class ValueCollectionChangeTracker: ChangeTracker {
    private let className: String
    private let key: UInt64
    private let property: String
    private let filter: ChangeFilter
    private var snapshot: FrozenVersion
    private var delivered: [ColumnValue]
    private var current: [ColumnValue]
    private var ownerDeleted = false

    /// Observes property `property` (a collection of values) of object `key` of `className`.
    package init(className: String, key: UInt64, property: String, snapshot: FrozenVersion) {
        self.className = className
        self.key = key
        self.property = property
        filter = ChangeFilter(keyPaths: [property]) ?? .everything(depth: 0)
        self.snapshot = snapshot
        current = Self.elements(of: key, in: className, property: property, at: snapshot) ?? []
        delivered = current
    }

    /// The stored elements of the collection at `snapshot`; nil if the owner does not exist.
    private static func elements(of key: UInt64, in className: String, property: String, at snapshot: FrozenVersion) -> [ColumnValue]? {
        guard let table = snapshot.catalog.tables[className], let column = table.columns[property],
              let (leaf, row) = try? snapshot.reader.row(in: snapshot.reader.root(of: table.tree), key: key) else { return nil }
        guard case .bytes(let packed)? = try? snapshot.reader.value(leaf, row: row, column: column, spec: table.layout[column]) else { return [] }
        return packed.withUnsafeBytes { PackedCollection.decode($0) }
    }

    private func element(previous: [ColumnValue]?) -> ChangeElement? {
        guard let table = snapshot.catalog.tables[className], let column = table.columns[property] else { return nil }
        return .values(version: snapshot, table: table, key: key, column: column, previous: previous, current: current)
    }

    package func initialElement() -> ChangeElement? { element(previous: nil) }

    package func advance(_ version: VersionContext, silent: Bool) -> Bool {
        guard !ownerDeleted else { return false }
        let snapshot = version.snapshot
        self.snapshot = snapshot  // the newest version, so an idle observer pins nothing old
        if let changes = version.changes, let table = snapshot.catalog.tables[className],
           !ModifiedObjects(changes: changes, snapshot: snapshot).touches(table, filter: filter) {
            return false
        }
        guard let elements = Self.elements(of: key, in: className, property: property, at: snapshot) else {
            ownerDeleted = true  // reported even when silenced: the stream ends with it
            current = []
            return true
        }
        current = elements
        if silent { delivered = current }
        return !silent && current != delivered
    }

    package func takeElement() -> (element: ChangeElement, isLast: Bool)? {
        guard ownerDeleted || current != delivered else { return nil }
        let previous = delivered
        delivered = current
        guard let element = element(previous: previous) else { return nil }
        return (element, ownerDeleted)
    }

    package func errorElement(_ error: RuntimeError) -> ChangeElement? { .failure(error) }
}
