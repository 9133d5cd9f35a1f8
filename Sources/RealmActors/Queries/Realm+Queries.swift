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

    /// `body` run on ``queries()``; damage it finds traps (naming the file, and `table`, the
    /// class being read), as reads that cannot throw do.
    func query<T>(_ table: Table? = nil, _ body: (QueryContext) throws -> T) -> T {
        do {
            return try body(queries())
        } catch {
            guard let table else { fileIsDamaged(error) }
            fileIsDamaged(error, reading: table.name)
        }
    }

    /// `body`'s value; a ``Realm/Error`` it throws (a predicate or key path written in the
    /// program that does not fit the schema) traps with its message, as Realm raises.
    static func trappingInvalidInput<T>(_ body: () throws -> T) -> T {
        do {
            return try body()
        } catch let error as Realm.Error {
            fatalError(error.message)
        } catch {
            fatalError("\(error)")
        }
    }

    /// Parses a Realm Query Language predicate (once per text and argument shapes: see
    /// `QueryTemplateCache`) and checks it against the class's table — the predicate and the key
    /// paths of the `SORT`/`DISTINCT` descriptors after it; returns its plan too (nil while the
    /// class has no table).
    func parseQuery(_ text: String, arguments: [Any], className: String) throws -> (ParsedPredicate, QueryPlan?) {
        do {
            let parsed = try QueryTemplateCache.shared.predicate(for: text, arguments: try arguments.map(QueryArguments.argument))
            guard let table = catalog.tables[className] else { return (parsed, nil) }
            let plan = try queries().bind(parsed.expression, to: table)
            for descriptor in parsed.ordering {
                switch descriptor {
                case .sort(let keys): for key in keys { try validateKeyPath(key.keyPath, in: table, for: .sort) }
                case .distinct(let paths): for path in paths { try validateKeyPath(path, in: table, for: .distinct) }
                case .limit: break
                }
            }
            return (parsed, plan)
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

    /// What a key path is checked for: ordering results (`sort`) or keeping one object per
    /// value (`distinct`), as the error names it.
    enum KeyPathUse: String {
        case sort, distinct
    }

    /// Throws ``Realm/Error/Code/invalidInput`` if `keyPath` does not name a property of `table`
    /// or of an object it reaches through to-one links (a path into or through a collection has
    /// no single value to sort or distinct by).
    func validateKeyPath(_ keyPath: String, in table: Table, for use: KeyPathUse) throws {
        do {
            _ = try queries().resolveOrdering(keyPath, in: table)
        } catch let error as QueryError {
            throw Realm.Error(.invalidInput, "Cannot \(use.rawValue) on key path '\(keyPath)': \(error.message)")
        }
    }
}
