/// Which property changes count as a modification of an observed object.
///
/// Without key paths (`.everything`), any property of the object counts, and so does any
/// property of an object it links to (to-one links and collections of objects), up to
/// ``ChangeFilter/defaultLinkDepth`` links deep — as in Realm. Changes reaching the object only
/// through inverse relationships (`LinkingObjects`) do not. With key paths, only the named
/// properties count; `"dog.name"` counts a change of the `dog` link itself and of the linked
/// dog's `name`; `"dog"` only a change of the link.
package indirect enum ChangeFilter: Sendable {
    /// Every property, and through links the linked objects' properties, `depth` links deep.
    case everything(depth: Int)
    /// These properties; a property with a sub-filter also follows its link.
    case properties([String: ChangeFilter?])

    /// How many links deep a change still modifies an object when no key paths are given.
    package static let defaultLinkDepth = 4

    /// The filter of string key paths (`["name", "dog.age"]`); nil for no paths.
    package init?(keyPaths: [String]?) {
        guard let keyPaths, !keyPaths.isEmpty else { return nil }
        var properties: [String: ChangeFilter?] = [:]
        for path in keyPaths {
            let components = path.split(separator: ".", maxSplits: 1).map(String.init)
            let rest = components.count > 1 ? ChangeFilter(keyPaths: [components[1]]) : nil
            switch (properties[components[0]], rest) {
            case (nil, let rest): properties[components[0]] = .some(rest)
            case (.some(.some(let existing)), .some(let rest)): properties[components[0]] = .some(existing.merged(with: rest))
            case (.some(nil), .some(let rest)): properties[components[0]] = .some(rest)
            case (.some, nil): break
            }
        }
        self = .properties(properties)
    }

    private func merged(with other: ChangeFilter) -> ChangeFilter {
        guard case .properties(var mine) = self, case .properties(let theirs) = other else { return .everything(depth: Self.defaultLinkDepth) }
        for (name, filter) in theirs {
            if case .some(.some(let existing)) = mine[name], let filter { mine[name] = .some(existing.merged(with: filter)) }
            else if mine[name] == nil || filter != nil { mine[name] = .some(filter) }
        }
        return .properties(mine)
    }

    /// The columns of `table` whose own changes count.
    func columns(of table: Table) -> ColumnMask {
        switch self {
        case .everything: return .all
        case .properties(let properties):
            var mask: ColumnMask = []
            for name in properties.keys { if let column = table.columns[name] { mask.insert(column) } }
            return mask
        }
    }

    /// The link columns of `table` to follow, each with the filter for the linked objects.
    func links(of table: Table) -> [(column: Int, filter: ChangeFilter)] {
        switch self {
        case .everything(let depth):
            guard depth > 0 else { return [] }
            return table.columns.values.sorted().compactMap { column in
                guard let property = table.property(column), property.kind == .object else { return nil }
                return (column, .everything(depth: depth - 1))
            }
        case .properties(let properties):
            return properties.compactMap { name, filter in
                guard let filter, let column = table.columns[name], table.property(column)?.kind == .object else { return nil }
                return (column, filter)
            }
        }
    }
}
