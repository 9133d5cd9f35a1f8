import Foundation

// `SUBQUERY(collection, $x, predicate).@count` and the type-safe `(condition).count`.
extension QueryBinder {
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
