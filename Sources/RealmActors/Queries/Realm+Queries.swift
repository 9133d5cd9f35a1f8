import Foundation
internal import RealmRuntime

/// Queries at a handle's version: the object store runs them (``QueryContext``); the handle
/// supplies its version and schema, and turns what cannot be thrown into Realm's traps.
extension Realm {
    /// Queries at what this handle sees (its write transaction, or its read version).
    func queries() -> QueryContext {
        if let writer { return QueryContext(writer: writer, catalog: catalog) }
        return QueryContext(reader: reader, catalog: catalog)
    }

    /// `body` run on ``queries()``; damage it finds traps (naming the file), as reads that cannot
    /// throw do.
    func query<T>(_ body: (QueryContext) throws -> T) -> T {
        do {
            return try body(queries())
        } catch {
            fileIsDamaged(error)
        }
    }

    /// Parses a Realm Query Language predicate and checks it against the class's table; returns
    /// its plan too (nil while the class has no table).
    func parseQuery(_ text: String, arguments: [Any], className: String) throws -> (QueryExpression, QueryPlan?) {
        do {
            let expression = try QueryParser.parse(text, arguments: try arguments.map(QueryArguments.argument))
            guard let table = catalog.tables[className] else { return (expression, nil) }
            return (expression, try queries().bind(expression, to: table))
        } catch let error as QueryError {
            throw Realm.Error(.invalidInput, "Invalid predicate '\(text)': \(error.message) at offset \(error.position)")
        }
    }

    /// The plan of a built (type-safe) query; traps with the binder's message if it does not fit
    /// the table.
    func checkQuery(_ expression: QueryExpression, in table: Table) -> QueryPlan {
        do {
            return try queries().bind(expression, to: table)
        } catch {
            fatalError("Invalid query on '\(table.name)': \(error)")
        }
    }

    /// Traps with a precise message if `keyPath` is not a property path of `table` (sorting and
    /// distinct on a missing property are programmer errors in Realm).
    func checkKeyPath(_ keyPath: String, in table: Table) {
        do {
            _ = try queries().resolve(keyPath, in: table)
        } catch let error as QueryError {
            fatalError("Cannot sort or distinct on key path '\(keyPath)': \(error.message)")
        } catch {
            fatalError("\(error)")
        }
    }
}
