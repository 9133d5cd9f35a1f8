import Foundation
package import RealmStorage

/// The object store's view of one table at one schema: where every property lives.
///
/// Immutable and `Sendable`; rebuilt whenever the schema changes.
package final class Table: Sendable {
    package let stored: StoredTable
    package var schema: ObjectSchemaInfo { stored.schema }
    package var name: String { stored.schema.className }
    package var tree: TreeID { stored.tree }
    /// The storage layout of every physical column.
    package let layout: [ColumnSpec]
    /// Physical column of each live property.
    package let columns: [String: Int]
    package let primaryKeyColumn: Int?
    /// Index tree of each indexed physical column.
    package let indexes: [Int: TreeID]
    /// Integer primary keys are the object keys themselves, so a lookup by key is a tree descent.
    package let primaryKeyIsObjectKey: Bool
    /// Whether any property links or is a collection (their values are written after the row).
    package let hasLinksOrCollections: Bool
    /// Every physical column's default value: a new row before its values are set.
    package let defaultRow: [ColumnValue]
    /// Per physical column: whether a value written to it goes into the row and nowhere else —
    /// a live property that neither links nor is a collection, and has no index. Property
    /// writes check it instead of copying the column's `PropertyInfo` and looking in `indexes`
    /// (two retains, two releases and a hash per write).
    package let storesOnlyInRow: [Bool]

    package init(_ stored: StoredTable) {
        self.stored = stored
        layout = stored.columns.map { $0?.columnSpec ?? ColumnSpec(.int, nullable: true) }
        defaultRow = layout.map(\.defaultValue)
        var columns: [String: Int] = [:]
        for (index, property) in stored.columns.enumerated() { if let property { columns[property.name] = index } }
        self.columns = columns
        let key = stored.schema.primaryKey
        primaryKeyColumn = key.flatMap { columns[$0.name] }
        primaryKeyIsObjectKey = key?.kind == .int
        hasLinksOrCollections = stored.columns.contains { $0.map { $0.canLink || $0.collection != nil } ?? false }
        var indexes: [Int: TreeID] = [:]
        for (name, tree) in stored.indexes { if let column = columns[name] { indexes[column] = tree } }
        self.indexes = indexes
        storesOnlyInRow = stored.columns.indices.map { column in
            guard let property = stored.columns[column] else { return false }
            return !property.canLink && property.collection == nil && indexes[column] == nil
        }
    }

    package func property(_ column: Int) -> PropertyInfo? { stored.columns[column] }

    /// The encoded values under which an object with `value` in `column` is indexed (each is
    /// followed by the object key in the index): the value itself for indexed properties and
    /// primary keys; for link properties, each distinct object linked to (a nil link has none),
    /// so that the index answers "who links to object k" — backlinks.
    package func indexValues(_ value: ColumnValue, column: Int) -> [[UInt8]] {
        // The scalar case reads the two fields in place: binding the `PropertyInfo` copied it
        // (two retains and releases per indexed value of every insert).
        guard let canLink = stored.columns[column]?.canLink else { return [] }
        guard canLink else {
            return [(try? IndexKey.encode(value, layout[column], kind: stored.columns[column]?.kind)) ?? IndexKey.null()]
        }
        let property = stored.columns[column]!
        var keys: [[UInt8]] = []
        func add(_ element: ColumnValue) {
            switch (property.kind, element) {
            case (.object, .int(let key)): keys.append(IndexKey.int(key))
            case (.mixed, _): keys += MixedValue(stored: element).linkIndexKeys
            default: break
            }
        }
        switch (property.collection, value) {
        case (nil, _): add(value)
        case (.map?, .bytes(let bytes)): for (_, element) in PackedCollection.entries(PackedCollection.decode(bytes)) { add(element) }
        case (_, .bytes(let bytes)): for element in PackedCollection.decode(bytes) { add(element) }
        default: break
        }
        return Array(Set(keys))
    }

    /// The encoded value under which `indexValues` files a link to object `key` of `target`.
    package func linkIndexValue(column: Int, to key: UInt64, in target: Table) -> [UInt8] {
        stored.columns[column]?.kind == .mixed
            ? MixedValue.linkIndexKey(table: target.tree, key: key)
            : IndexKey.int(Int64(bitPattern: key))
    }

    /// `value` (of `column`) with every link to object `key` of `target` removed: a to-one link
    /// becomes nil, list and set elements are removed, map values become nil, as in Realm; the
    /// same holds inside collections nested in mixed values.
    package func unlinking(_ value: ColumnValue, column: Int, from key: UInt64, in target: Table) -> ColumnValue {
        guard let property = stored.columns[column] else { return value }
        func isLink(_ element: ColumnValue) -> Bool {
            property.kind == .mixed
                ? MixedValue(stored: element) == .link(table: target.tree, key: key)
                : element == .int(Int64(bitPattern: key))
        }
        /// A kept element, with links inside a nested collection removed.
        func unlinkingNested(_ element: ColumnValue) -> ColumnValue {
            guard property.kind == .mixed, MixedValue.isCollection(element) else { return element }
            return MixedValue(stored: element).unlinking(table: target.tree, key: key).stored
        }
        switch (property.collection, value) {
        case (nil, _):
            return isLink(value) ? .null : unlinkingNested(value)
        case (.map?, .bytes(let bytes)):
            let entries = PackedCollection.entries(PackedCollection.decode(bytes)).map { entry in
                (key: entry.key, value: isLink(entry.value) ? ColumnValue.null : unlinkingNested(entry.value))
            }
            return .bytes(PackedCollection.encode(PackedCollection.mapElements(entries)))
        case (_, .bytes(let bytes)):
            return .bytes(PackedCollection.encode(PackedCollection.decode(bytes).filter { !isLink($0) }.map(unlinkingNested)))
        default:
            return value
        }
    }

    /// The object keys a value of a link column refers to, in order (for cascading deletes of
    /// embedded objects).
    package func linkedKeys(_ value: ColumnValue, column: Int) -> [UInt64] {
        guard let property = stored.columns[column], property.kind == .object else { return [] }
        let elements: [ColumnValue]
        switch (property.collection, value) {
        case (nil, _): elements = [value]
        case (.map?, .bytes(let bytes)): elements = PackedCollection.entries(PackedCollection.decode(bytes)).map(\.value)
        case (_, .bytes(let bytes)): elements = PackedCollection.decode(bytes)
        default: elements = []
        }
        return elements.compactMap { if case .int(let key) = $0 { UInt64(bitPattern: key) } else { nil } }
    }
}
