import Foundation

// Key paths against the schema: names to columns, links to their target tables, subscripts,
// `LinkingObjects` steps and aggregates.
extension QueryBinder {
    /// Resolves a key path: every component but the last must be a link.
    func resolve(_ components: [String], aggregate: QueryAggregate?, from root: Table, at position: Int) throws -> BoundPath {
        // The common case, one property of the queried object (`email`), without building the
        // steps below: what the general path returns for it.
        if components.count == 1, aggregate == nil, let name = components.first,
           let column = root.columns[name], let property = root.property(column), property.kind != .mixed,
           !name.hasPrefix("$"), !name.hasPrefix("@"), !name.hasPrefix("[") {
            return BoundPath(hops: [], last: pathStep(root, column, property), aggregate: nil)
        }
        var components = components
        var table = root
        if let first = components.first, first.hasPrefix("$") {
            guard let scoped = variables[first] else { throw QueryError("Unknown variable '\(first)'", at: position) }
            table = scoped
            components.removeFirst()
        }
        let steps = try writtenSteps(components, at: position)
        var hops: [PathStep] = []
        for (index, (name, selections, written)) in steps.enumerated() {
            if table.columns[name] == nil, let backlink = try backlinkStep(name, of: table, at: position) {
                if selections.contains(where: { $0 != nil }) {
                    throw QueryError("Linking objects '\(written)' cannot be subscripted", at: position)
                }
                if index == steps.count - 1 {
                    guard aggregate == nil || aggregate == .count else {
                        throw QueryError("\(aggregate!.rawValue) needs a property of the linking objects, not '\(name)' itself", at: position)
                    }
                    return BoundPath(hops: hops, last: backlink, aggregate: aggregate)
                }
                hops.append(backlink)
                table = backlink.table
                continue
            }
            guard let column = table.columns[name], let property = table.property(column) else {
                throw QueryError("Property '\(name)' not found in object of type '\(table.name)'", at: position)
            }
            var step = pathStep(table, column, property)
            if property.kind == .mixed {
                // Selections past the collection's own step into nested collections, and so do
                // names after the property (`value.key` is `value['key']`): this is the last step.
                var all = selections
                for (following, more, _) in steps.dropFirst(index + 1) {
                    all += [PathSelection.key(Array(following.utf8))] + more
                }
                let nested = property.collection == nil ? all : Array(all.dropFirst())
                step.nested = nested
                if property.collection != nil, let selection = all.first ?? nil {
                    try check(selection, on: property, written: written, at: position)
                    step.selection = selection
                }
                switch aggregate {
                case nil, .type?: return BoundPath(hops: hops, last: step, aggregate: aggregate)
                case .count? where step.aggregatesEachValue(.count): return BoundPath(hops: hops, last: step, aggregate: aggregate)
                case .count?: break  // the elements of a List<AnyRealmValue> or Map: counted below
                default:
                    throw QueryError("\(aggregate!.rawValue) needs a collection of numbers, but '\(components.joined(separator: "."))' is \(property.typeName)", at: position)
                }
            } else {
                let picked = selections.compactMap { $0 }
                if picked.count > 1 {
                    throw QueryError("'\(written)' has more than one subscript, but '\(name)' is \(property.typeName)", at: position)
                }
                if let selection = picked.first {
                    try check(selection, on: property, written: written, at: position)
                    step.selection = selection
                }
            }
            if index == steps.count - 1 {
                if let aggregate {
                    try check(aggregate, on: property, named: name, after: hops, path: components, at: position)
                }
                return BoundPath(hops: hops, last: step, aggregate: aggregate)
            }
            guard let target = step.target else {
                throw QueryError("Property '\(name)' of '\(table.name)' is not a link, so '\(steps[index + 1].name)' cannot follow it", at: position)
            }
            hops.append(step)
            table = target
        }
        throw QueryError("Expected a property name", at: position)
    }

    /// A written step of a key path: a property name with the subscripts and `@keys`/`@values`
    /// written after it, and how it was written (for messages).
    typealias WrittenStep = (name: String, selections: [PathSelection?], written: String)

    /// A key path's components grouped into steps. Subscripts and `@keys`/`@values` belong to
    /// the property before them (an `AnyRealmValue` takes several: they step into nested
    /// collections). `[*]` is a nil selection.
    func writtenSteps(_ components: [String], at position: Int) throws -> [WrittenStep] {
        var steps: [WrittenStep] = []
        for component in components {
            let selection: PathSelection?
            if let subscripted = QuerySubscript(component: component) {
                switch subscripted {
                case .first: selection = .first
                case .last: selection = .last
                case .index(let index): selection = .index(index)
                case .key(let key): selection = .key(Array(key.utf8))
                case .all: selection = nil
                case .size: throw QueryError("[SIZE] must end a key path", at: position)
                }
            } else if component == "@keys" || component == "@values" {
                selection = component == "@keys" ? .keys : .values
            } else {
                steps.append((component, [], component))
                continue
            }
            guard let previous = steps.popLast() else {
                throw QueryError("'\(component)' must follow a collection property", at: position)
            }
            steps.append((previous.name, previous.selections + [selection], previous.written + component))
        }
        guard !steps.isEmpty else { throw QueryError("Expected a property name", at: position) }
        return steps
    }

    /// Whether `aggregate` may end a key path at `property`, reached through `hops`. (What an
    /// `AnyRealmValue` allows beyond `@count` is decided before.) `path`: the components, for messages.
    func check(_ aggregate: QueryAggregate, on property: PropertyInfo, named name: String, after hops: [PathStep],
               path components: [String], at position: Int) throws {
        switch aggregate {
        case .type:
            throw QueryError("@type needs an AnyRealmValue property, but '\(name)' is \(property.typeName)", at: position)
        case .count:
            // A to-one link counts 0 or 1, as realm-core's "ints == link.@count".
            guard property.collection != nil || [.string, .data, .object].contains(property.kind) else {
                throw QueryError("@count needs a collection, a link, a string or data, but '\(name)' is \(property.typeName)", at: position)
            }
        case .min, .max, .sum, .average:
            let numeric: Set<PropertyKind> = aggregate == .min || aggregate == .max
                ? [.int, .float, .double, .date, .decimal128] : [.int, .float, .double, .decimal128]
            guard (property.collection != nil || hops.contains { $0.property.collection != nil }),
                  numeric.contains(property.kind) else {
                throw QueryError("\(aggregate.rawValue) needs a collection of numbers, but '\(components.joined(separator: "."))' is \(property.typeName)", at: position)
            }
        }
    }

    /// The step through `property` of `table` (with its target table, for a link).
    func pathStep(_ table: Table, _ column: Int, _ property: PropertyInfo) -> PathStep {
        let target = property.kind == .object ? property.objectClassName.flatMap { catalog.tables[$0] } : nil
        return PathStep(table: table, column: column, property: property, target: target)
    }

    /// The step back along the link a `LinkingObjects` property of `table` stands for, if `name`
    /// is one (as the stored schema records it).
    func backlinkStep(_ name: String, of table: Table, at position: Int) throws -> PathStep? {
        guard let declared = table.schema.linkingObjectsProperty(named: name) else { return nil }
        let (originName, originProperty) = (declared.originClass, declared.originProperty)
        guard let origin = catalog.tables[originName], let column = origin.columns[originProperty],
              let property = origin.property(column), property.kind == .object else {
            throw QueryError("Linking objects '\(table.name).\(name)' refer to '\(originName).\(originProperty)', which is not a link", at: position)
        }
        return PathStep(table: origin, column: column, property: property, target: origin, backlinkFrom: table)
    }

    /// Whether `selection` applies to `property`: positions to lists, keys to maps (realm-core
    /// rejects `set[1]` and `dict[FIRST]`).
    func check(_ selection: PathSelection, on property: PropertyInfo, written: String, at position: Int) throws {
        let fits = switch selection {
        case .first, .last, .index: property.collection == .list
        case .key, .keys, .values: property.collection == .map
        }
        guard fits else {
            throw QueryError("'\(written)' does not apply to '\(property.name)', which is \(property.typeName)", at: position)
        }
    }
}
