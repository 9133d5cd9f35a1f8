import Foundation
package import RealmStorage

/// A predicate bound to a table: every key path resolved to columns (following links), every
/// constant checked against and converted to its property's stored form. Made by
/// ``QueryPlan/bind(_:to:catalog:)``; evaluated by ``QueryEvaluator``.
package indirect enum QueryPlan: Sendable {
    case constant(Bool)
    case and([QueryPlan])
    case or([QueryPlan])
    case not(QueryPlan)
    case compare(BoundComparison)
    /// `SUBQUERY(path, $x, predicate).@count op value`; `target` is the table `path` links to.
    case subquery(path: BoundPath, target: Table, predicate: QueryPlan, op: QueryOperator, count: Double)
}

/// One step of a key path: a column of a table, or (for `LinkingObjects`) the way back along a
/// link column of another table.
package struct PathStep: Sendable {
    package let table: Table
    package let column: Int
    package let property: PropertyInfo
    /// The table a link property links to (for a backlink step: the linking table, `table`).
    package let target: Table?
    /// A `LinkingObjects` step: from an object to the objects of `table` whose `column` links
    /// to it (found in that column's link index). `from` is the table stepped from.
    package var backlinkFrom: Table? = nil
    /// Which elements of the collection the step keeps (a subscript, a map's keys); nil: all.
    package var selection: PathSelection? = nil
    /// For an `AnyRealmValue` property (or each element of a collection of them): the steps
    /// into collections nested in the value (`value[0]['key'][*]`, `value.key`), applied in
    /// order; nil is `[*]`. A value that is not a collection of the right kind has no elements.
    package var nested: [PathSelection?] = []

    /// Whether the step reaches several values (a collection, or linking objects, unless a
    /// subscript picks one element; a `[*]`, `@keys` or `@values` into a nested collection).
    var isMultiValued: Bool {
        if backlinkFrom != nil { return true }
        if nested.contains(where: { $0 == nil || $0 == .keys || $0 == .values }) { return true }
        guard property.collection != nil else { return false }
        switch selection {
        case .first?, .last?, .index?, .key?: return false
        case .keys?, .values?, nil: return true
        }
    }

    /// Whether an aggregate applies to each value the step reaches rather than to them all:
    /// `@type`, and `@count` of nested collections (`value.@count`, `list[*][*].@count`).
    func aggregatesEachValue(_ aggregate: QueryAggregate?) -> Bool {
        switch aggregate {
        case .type?: true
        case .count?:
            // (`values[0].@count` counts the collection the element holds, `values.@count` the elements.)
            property.kind == .mixed && (property.collection == nil || !nested.isEmpty || !isMultiValued)
        default: false
        }
    }
}

/// The elements of a collection a path step keeps: `list[FIRST]`, `list[LAST]`, `list[2]`,
/// `map['key']`, `map.@keys`, `map.@values`.
package enum PathSelection: Sendable, Equatable {
    case first
    case last
    case index(Int)
    /// The value of the key (its UTF-8 bytes, as the map stores keys).
    case key([UInt8])
    case keys
    case values
}

/// A key path from the queried object: link hops, then the final property.
package struct BoundPath: Sendable {
    /// Link properties followed before the last step (to-one links or collections of links).
    package var hops: [PathStep]
    /// The property compared.
    package var last: PathStep
    package var aggregate: QueryAggregate?

    /// Whether the path can reach several values (through or into a collection).
    package var isMultiValued: Bool {
        hops.contains(where: \.isMultiValued) || (last.isMultiValued && (aggregate == nil || last.aggregatesEachValue(aggregate)))
    }

    /// The kind of the values compared (after the aggregate).
    package var valueKind: PropertyKind {
        switch aggregate {
        case .count: .int
        case .type: .string
        case .average: .double
        case .sum where last.property.kind == .decimal128: .double
        case .min, .max, .sum: last.property.kind == .float ? .double : last.property.kind
        case nil: last.selection == .keys && last.nested.isEmpty ? .string : last.property.kind
        }
    }
}

/// The right side of a bound comparison.
package enum BoundOperand: Sendable {
    case value(ColumnValue)
    case values([ColumnValue])
    case path(BoundPath)
}

/// `path op right`, ready to evaluate.
package struct BoundComparison: Sendable {
    package var path: BoundPath
    package var op: QueryOperator
    package var right: BoundOperand
    package var options: QueryStringOptions
    package var modifier: QueryCollectionModifier
    /// `value IN list`: the path is the collection, the value is the single right value.
    package var isMembership: Bool
    /// How the comparisons with a list of values combine (`age == ANY {1, 2}`); nil for `IN` and
    /// `BETWEEN` (their own meaning) and for ordered list matching.
    package var valuesModifier: QueryCollectionModifier? = nil
    /// The list's modifier is the outer quantifier (`ALL {1, 2} IN ages`: every value is in ages).
    package var valuesFirst = false
    /// `prices == {1, 2}` with no modifier on either side: the path's values, in order, against
    /// the list's (as many, each pair matching; `!=` is the negation).
    package var isOrderedList = false
}

extension QueryPlan {
    /// Resolves `expression` against `table`. Throws ``QueryError`` naming the position and the
    /// problem: an unknown property, a link followed through a non-link, a value of the wrong
    /// type, an operator the property's type does not support.
    package static func bind(_ expression: QueryExpression, to table: Table, catalog: SchemaCatalog) throws -> QueryPlan {
        var binder = QueryBinder(catalog: catalog, variables: [:])
        return try binder.bind(expression, table)
    }
}

extension BoundPath {
    /// Resolves a key path (`age`, `owner.name`) of `table`, for sorting and aggregates.
    package static func resolve(_ keyPath: String, in table: Table, catalog: SchemaCatalog) throws -> BoundPath {
        try QueryBinder(catalog: catalog, variables: [:])
            .resolve(keyPath.split(separator: ".").map(String.init), aggregate: nil, from: table, at: 0)
    }
}

/// The binder's state: the catalog and the `SUBQUERY` variables in scope.
private struct QueryBinder {
    let catalog: SchemaCatalog
    var variables: [String: Table]

    mutating func bind(_ expression: QueryExpression, _ table: Table) throws -> QueryPlan {
        switch expression {
        case .constant(let value): return .constant(value)
        case .and(let operands): return .and(try operands.map { try bind($0, table) })
        case .or(let operands): return .or(try operands.map { try bind($0, table) })
        case .not(let operand): return .not(try bind(operand, table))
        case .comparison(let comparison): return try bind(comparison, table)
        }
    }

    mutating func bind(_ comparison: QueryComparison, _ table: Table) throws -> QueryPlan {
        let position = comparison.position
        // SUBQUERY(...).@count op value
        if case .subqueryCount(var collection, var variable, var predicate, let subPosition) = comparison.left {
            if collection.isEmpty {  // the type-safe form, `(condition).count`: find the collection
                (collection, variable, predicate) = try implicitSubquery(predicate, from: table, at: subPosition)
            }
            let path = try resolve(collection, aggregate: nil, from: table, at: subPosition)
            // Over linking objects the variable is an object of the linking class (the step's
            // table), not the class its link points to.
            let targetName = path.last.backlinkFrom != nil ? path.last.table.name : path.last.property.objectClassName
            guard path.last.property.kind == .object, path.last.property.collection != nil || path.last.backlinkFrom != nil,
                  let targetName, let target = catalog.tables[targetName] else {
                throw QueryError("SUBQUERY needs a collection of objects, but '\(collection.joined(separator: "."))' is not one", at: subPosition)
            }
            guard case .value(let value) = comparison.right, let count = value.numeric else {
                throw QueryError("SUBQUERY(...).@count must be compared with a number", at: position)
            }
            var inner = QueryBinder(catalog: catalog, variables: variables)
            inner.variables[variable] = target
            let plan = try inner.bind(predicate, target)
            return .subquery(path: path, target: target, predicate: plan, op: comparison.op, count: count)
        }
        var left = comparison.left
        var right = comparison.right
        var op = comparison.op
        var isMembership = false
        // `value IN list` and `list CONTAINS value` test membership of a value in a collection.
        if case .value = left, case .keyPath = right, op == .in {
            swap(&left, &right)
            isMembership = true
        }
        guard case .keyPath(let components, let aggregate, let pathPosition) = left else {
            throw QueryError("Expected a property name on one side of '\(comparison.op.rawValue)'", at: position)
        }
        let path = try resolve(components, aggregate: aggregate, from: table, at: pathPosition)
        // (`map.@keys CONTAINS 'e'` and `map.@values CONTAINS 'e'` search each key or value, as Realm
        // Swift's `$0.map.keys.contains("e")` means; so does a written modifier, `ALL tags CONTAINS
        // 'e'`: every tag holds an 'e'.)
        if op == .contains, comparison.modifier == nil, path.last.property.collection != nil, path.last.isMultiValued,
           path.last.selection == nil, aggregate == nil, case .value = right {
            isMembership = true
            op = .equal
        }
        if isMembership { op = .equal }
        if aggregate == .type { return try bindType(comparison, path: path, op: op, at: position) }
        let kind = path.valueKind
        let name = components.joined(separator: ".")
        if let modifier = comparison.modifier, !path.isMultiValued {
            // realm-core's message (test_parser.cpp, "ANY fav_item.name == 'milk'").
            throw QueryError("The keypath following '\(modifier.rawValue)' must contain a list", at: pathPosition)
        }
        var valuesModifier: QueryCollectionModifier?
        var isOrderedList = false
        let bound: BoundOperand
        switch right {
        case .value(let value):
            bound = .value(try convert(value, to: kind, path: path, name: name, at: position))
        case .values(let values):
            if op == .between, values.count != 2 {
                throw QueryError("BETWEEN needs exactly two values, {low, high}, but got \(values.count)", at: position)
            }
            if op == .between, comparison.valuesModifier != nil {
                throw QueryError("BETWEEN takes {low, high}, not a list with \(comparison.valuesModifier!.rawValue)", at: position)
            }
            if op == .in, let modifier = comparison.valuesModifier {
                op = .equal  // `age IN ALL {…}` is `age == ALL {…}`
                valuesModifier = modifier
            } else if op != .in && op != .between {
                if comparison.valuesModifier == nil && comparison.modifier == nil {
                    isOrderedList = true
                } else {
                    valuesModifier = comparison.valuesModifier ?? .any
                }
            }
            bound = .values(try values.map { try convert($0, to: kind, path: path, name: name, at: position) })
        case .keyPath(let otherComponents, let otherAggregate, let otherPosition):
            let other = try resolve(otherComponents, aggregate: otherAggregate, from: table, at: otherPosition)
            guard comparable(kind, other.valueKind) else {
                throw QueryError("Cannot compare '\(name)' (\(kind.rawValue)) with '\(otherComponents.joined(separator: "."))' (\(other.valueKind.rawValue))", at: position)
            }
            bound = .path(other)
        case .subqueryCount:
            throw QueryError("SUBQUERY can only be on the left of a comparison", at: position)
        }
        try check(op, on: kind, path: path, name: name, options: comparison.options, at: position)
        return .compare(BoundComparison(path: path, op: op, right: bound, options: comparison.options,
                                        modifier: comparison.modifier ?? .any, isMembership: isMembership,
                                        valuesModifier: valuesModifier, valuesFirst: comparison.valuesFirst && valuesModifier != nil,
                                        isOrderedList: isOrderedList))
    }

    /// `value.@type == 'int'` (also `!=` and `IN {…}`): the value's type name is one of the names
    /// the strings stand for (`'numeric'` is every number type, `'collection'` a list or a
    /// dictionary).
    func bindType(_ comparison: QueryComparison, path: BoundPath, op: QueryOperator, at position: Int) throws -> QueryPlan {
        let written: [QueryValue]
        switch comparison.right {
        case .value(let value): written = [value]
        case .values(let values) where op == .in: written = values
        default: throw QueryError("@type must be compared with a type name string", at: position)
        }
        guard op == .equal || op == .notEqual || op == .in else {
            throw QueryError("@type can only be compared with ==, != or IN", at: position)
        }
        var names: [ColumnValue] = []
        for value in written {
            guard case .string(let text) = value else { throw QueryError("@type must be compared with a type name string", at: position) }
            guard let matching = QueryValueType.names(matching: text) else {
                throw QueryError("Unknown type '\(text)' for @type; the names are \(QueryValueType.aliases.map(\.0).joined(separator: ", "))", at: position)
            }
            names += matching.map { .bytes(Array($0.utf8)) }
        }
        return .compare(BoundComparison(path: path, op: op == .notEqual ? .notEqual : .equal, right: .values(names),
                                        options: .plain, modifier: comparison.modifier ?? .any, isMembership: false,
                                        valuesModifier: op == .notEqual ? .all : .any))
    }

    /// The step through `property` of `table` (with its target table, for a link).
    func pathStep(_ table: Table, _ column: Int, _ property: PropertyInfo) -> PathStep {
        let target = property.kind == .object ? property.objectClassName.flatMap { catalog.tables[$0] } : nil
        return PathStep(table: table, column: column, property: property, target: target)
    }

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
        // Subscripts and `@keys`/`@values` belong to the property before them (an `AnyRealmValue`
        // takes several: they step into nested collections). `[*]` is a nil selection.
        var steps: [(name: String, selections: [PathSelection?], written: String)] = []
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

    /// The type-safe subquery `($0.dogs.age > 5 && $0.dogs.name == "Rex").count`, whose condition
    /// names the collection in every key path: that collection (the one collection of objects
    /// every path goes through first), a variable, and the condition on the variable.
    func implicitSubquery(_ predicate: QueryExpression, from table: Table, at position: Int) throws
        -> (collection: [String], variable: String, predicate: QueryExpression) {
        var prefixes: Set<[String]> = []
        func visit(_ operand: QueryOperand) throws {
            guard case .keyPath(let components, _, _) = operand, components.first?.hasPrefix("$") != true else { return }
            var current = table
            for (index, name) in components.enumerated() {
                if current.columns[name] == nil, try backlinkStep(name, of: current, at: position) != nil {
                    prefixes.insert(Array(components[...index]))
                    return
                }
                guard let column = current.columns[name], let property = current.property(column), property.kind == .object,
                      let target = property.objectClassName.flatMap({ catalog.tables[$0] }) else { break }
                if property.collection != nil {
                    prefixes.insert(Array(components[...index]))
                    return
                }
                current = target
            }
            throw QueryError("A subquery's condition must go through a collection of objects, but '\(components.joined(separator: "."))' does not", at: position)
        }
        func walk(_ expression: QueryExpression) throws {
            switch expression {
            case .constant: break
            case .and(let operands), .or(let operands): try operands.forEach(walk)
            case .not(let operand): try walk(operand)
            case .comparison(let comparison): try visit(comparison.left); try visit(comparison.right)
            }
        }
        try walk(predicate)
        guard prefixes.count == 1, let collection = prefixes.first else {
            throw QueryError("A subquery's condition must go through one collection of objects, not \(prefixes.count)", at: position)
        }
        let variable = "$subquery\(variables.count)"
        func rewrite(_ operand: QueryOperand) -> QueryOperand {
            guard case .keyPath(let components, let aggregate, let at) = operand, components.starts(with: collection) else { return operand }
            return .keyPath([variable] + components.dropFirst(collection.count), aggregate: aggregate, position: at)
        }
        func rewrite(_ expression: QueryExpression) -> QueryExpression {
            switch expression {
            case .constant: return expression
            case .and(let operands): return .and(operands.map(rewrite))
            case .or(let operands): return .or(operands.map(rewrite))
            case .not(let operand): return .not(rewrite(operand))
            case .comparison(var comparison):
                comparison.left = rewrite(comparison.left)
                comparison.right = rewrite(comparison.right)
                return .comparison(comparison)
            }
        }
        return (collection, variable, rewrite(predicate))
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

    /// A query constant in the stored form of `kind`.
    func convert(_ value: QueryValue, to kind: PropertyKind, path: BoundPath, name: String, at position: Int) throws -> ColumnValue {
        func mismatch() -> QueryError {
            QueryError("Cannot compare '\(name)' of type '\(kind.rawValue)' with \(value.typeDescription)", at: position)
        }
        if case .null = value {
            // realm-core: a non-optional property compared with nil is valid and never equal
            // ("ints == NULL" matches nothing); a list of links or linking objects is not a value.
            if kind == .object, path.aggregate == nil, path.isMultiValued {
                throw QueryError("Cannot compare linklist ('\(name)') with NULL", at: position)
            }
            return .null
        }
        switch (kind, value) {
        case (.int, .int(let int)): return .int(int)
        case (.int, .double(let double)): return .double(double)
        case (.int, .bool(let bool)): return .int(bool ? 1 : 0)
        case (.double, .int(let int)), (.float, .int(let int)): return .double(Double(int))
        case (.double, .double(let double)), (.float, .double(let double)): return .double(double)
        // A number for a decimal property: the decimal it stands for, so rows compare exactly.
        // A sum or average of decimals is a double (``QueryComparisons/aggregate``).
        case (.decimal128, .int(let int)): return .fixed(DecimalEncoding.storedBytes(of: int))
        case (.decimal128, .double(let double)): return .fixed(DecimalEncoding.storedBytes(of: double))
        case (.decimal128, .decimal128(let bytes, _)): return .fixed(bytes)
        case (.int, .decimal128(_, let approximately)), (.double, .decimal128(_, let approximately)),
             (.float, .decimal128(_, let approximately)):
            return .double(approximately)
        case (.bool, .bool(let bool)): return .bool(bool)
        case (.bool, .int(let int)) where int == 0 || int == 1: return .bool(int == 1)
        case (.string, .string(let string)): return .bytes(Array(string.utf8))
        case (.data, .data(let bytes)): return .bytes(bytes)
        case (.data, .string(let string)): return .bytes(Array(string.utf8))
        case (.date, .date(let seconds)): return .double(seconds)
        case (.objectId, .objectId(let bytes)): return .fixed(bytes)
        case (.uuid, .uuid(let bytes)): return .fixed(bytes)
        case (.object, .object(let className, let key)):
            guard className == path.last.property.objectClassName else {
                throw QueryError("'\(name)' links to '\(path.last.property.objectClassName ?? "?")', not to '\(className)'", at: position)
            }
            return .int(Int64(bitPattern: key))
        case (.mixed, _): return value.mixedStored
        default: throw mismatch()
        }
    }

    /// Whether the operator applies to the kind (and its options).
    func check(_ op: QueryOperator, on kind: PropertyKind, path: BoundPath, name: String,
               options: QueryStringOptions, at position: Int) throws {
        // Switches, not set literals: binding runs once per query, and W4 runs 10k queries.
        let isStringOperator = switch op { case .beginsWith, .endsWith, .contains, .like: true; default: false }
        let isOrdering = switch op { case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true; default: false }
        let holdsText = switch kind { case .string, .data, .mixed: true; default: false }
        if isStringOperator && !holdsText {
            throw QueryError("Operator \(op.rawValue) needs a string or data property, but '\(name)' is \(kind.rawValue)", at: position)
        }
        if isOrdering, kind == .bool || kind == .object || kind == .string || kind == .data {
            throw QueryError("Operator '\(op.rawValue)' is not supported for '\(name)' of type '\(kind.rawValue)'", at: position)
        }
        if !options.isEmpty && !holdsText {
            throw QueryError("[c] and [d] apply to strings, but '\(name)' is \(kind.rawValue)", at: position)
        }
    }

    func comparable(_ a: PropertyKind, _ b: PropertyKind) -> Bool {
        func isNumber(_ kind: PropertyKind) -> Bool {
            switch kind { case .int, .float, .double, .decimal128: true; default: false }
        }
        return a == b || (isNumber(a) && isNumber(b)) || a == .mixed || b == .mixed
    }
}

extension QueryValue {
    /// The value as a number, if it is one.
    var numeric: Double? {
        switch self {
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }

    var typeDescription: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "bool \(value)"
        case .int(let value): "int \(value)"
        case .double(let value): "double \(value)"
        case .string(let value): "string '\(value)'"
        case .data(let bytes): "data of \(bytes.count) bytes"
        case .date: "a date"
        case .objectId: "an object id"
        case .uuid: "a uuid"
        case .decimal128: "a decimal128"
        case .object(let className, _): "an object of type '\(className)'"
        case .argument(let index): "argument \(index) (not filled in)"
        }
    }

    /// The value as an `AnyRealmValue` column stores it (objects are not stored this way).
    var mixedStored: ColumnValue {
        switch self {
        case .null: .null
        case .bool(let value): MixedValue.value(.bool, .bool(value)).stored
        case .int(let value): MixedValue.value(.int, .int(value)).stored
        case .double(let value): MixedValue.value(.double, .double(value)).stored
        case .string(let value): MixedValue.value(.string, .bytes(Array(value.utf8))).stored
        case .data(let value): MixedValue.value(.data, .bytes(value)).stored
        case .date(let value): MixedValue.value(.date, .double(value)).stored
        case .objectId(let value): MixedValue.value(.objectId, .fixed(value)).stored
        case .uuid(let value): MixedValue.value(.uuid, .fixed(value)).stored
        case .decimal128(let value, _): MixedValue.value(.decimal128, .fixed(value)).stored
        case .object: .null
        case .argument: preconditionFailure("a query template's argument slot reached the binder")
        }
    }
}

extension QueryPlan {
    /// Whether an object's match depends only on its own values and the objects it links to
    /// (no `LinkingObjects` step, no subquery): then editing an object can change only its own
    /// match, and a result can be brought up to date by re-checking just the edited objects.
    package var dependsOnlyOnOutgoingLinks: Bool {
        switch self {
        case .constant: return true
        case .and(let operands), .or(let operands): return operands.allSatisfy(\.dependsOnlyOnOutgoingLinks)
        case .not(let operand): return operand.dependsOnlyOnOutgoingLinks
        case .subquery: return false
        case .compare(let comparison):
            if case .path(let path) = comparison.right, !path.followsOnlyOutgoingLinks { return false }
            return comparison.path.followsOnlyOutgoingLinks
        }
    }
}

extension BoundPath {
    /// Whether no step walks a link backwards (`LinkingObjects`).
    var followsOnlyOutgoingLinks: Bool { last.backlinkFrom == nil && hops.allSatisfy { $0.backlinkFrom == nil } }
}

/// The type names of `@type`, as realm-core's `TypeOfValue` spells them (case-insensitive), and
/// the name of a stored mixed value's type.
package enum QueryValueType {
    /// Each accepted name and the type names it matches.
    static let aliases: [(String, [String])] = [
        ("null", ["null"]), ("int", ["int"]), ("integer", ["int"]), ("int16", ["int"]), ("int32", ["int"]),
        ("int64", ["int"]), ("short", ["int"]), ("long", ["int"]), ("byte", ["int"]), ("char", ["int"]),
        ("bool", ["bool"]), ("boolean", ["bool"]), ("string", ["string"]), ("binary", ["binary"]),
        ("data", ["binary"]), ("bytearray", ["binary"]), ("byte[]", ["binary"]), ("bindata", ["binary"]),
        ("date", ["timestamp"]), ("datetimeoffset", ["timestamp"]), ("timestamp", ["timestamp"]),
        ("float", ["float"]), ("double", ["double"]), ("decimal128", ["decimal128"]), ("decimal", ["decimal128"]),
        ("objectlink", ["objectlink"]), ("link", ["objectlink"]), ("objectid", ["objectid"]), ("uuid", ["uuid"]),
        ("guid", ["uuid"]), ("numeric", ["int", "float", "double", "decimal128"]), ("object", ["object"]),
        ("dictionary", ["object"]), ("array", ["array"]), ("list", ["array"]), ("collection", ["array", "object"]),
    ]

    /// The type names a written name matches; nil for an unknown name.
    static func names(matching written: String) -> [String]? {
        let lowered = written.lowercased()
        return aliases.first { $0.0 == lowered }?.1
    }

    /// The type name of a stored mixed value.
    static func name(ofMixed stored: ColumnValue) -> String {
        switch MixedValue(stored: stored) {
        case .null: "null"
        case .link: "objectlink"
        case .list: "array"
        case .dictionary: "object"
        case .value(let kind, _):
            switch kind {
            case .data: "binary"
            case .date: "timestamp"
            case .objectId: "objectid"
            case .object: "objectlink"
            default: kind.rawValue
            }
        }
    }
}
