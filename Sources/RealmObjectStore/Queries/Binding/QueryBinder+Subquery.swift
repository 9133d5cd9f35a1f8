import Foundation

// `SUBQUERY(collection, $x, predicate).@count` and the type-safe `(condition).count`.
extension QueryBinder {
    /// `SUBQUERY(collection, $variable, predicate).@count op count` (or the type-safe
    /// `(condition).count op count`, whose `collection` is empty): the predicate bound against
    /// the collection's target table, with the variable in scope. `subPosition`: where the
    /// subquery is written, for messages about it.
    func bindSubquery(_ comparison: QueryComparison, collection: [String], variable: String, predicate: QueryExpression,
                      at subPosition: Int, _ table: Table) throws -> QueryPlan {
        let position = comparison.position
        var (collection, variable, predicate) = (collection, variable, predicate)
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
}
