/// Parsed predicates by text and argument shapes (see ``QueryTemplate``), shared by every realm
/// of the process: parsing does not depend on a schema.
///
/// Holds at most ``capacity`` templates; when full, the oldest is dropped. Thread-safe: the
/// table is guarded by a mutex, held only to look up or insert (parsing runs outside it).
package final class QueryTemplateCache: Sendable {
    /// The cache `Realm`'s string predicates go through.
    package static let shared = QueryTemplateCache(capacity: 512)

    struct Key: Hashable, Sendable {
        var text: String
        var shapes: [QueryTemplate.Shape]
    }

    private struct Table {
        var templates: [Key: QueryTemplate] = [:]
        /// Keys in insertion order, oldest at `oldest`: a ring of `capacity` slots.
        var order: [Key] = []
        var oldest = 0
    }

    let capacity: Int
    private let table = Lock(Table())

    package init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// The number of templates held.
    package var count: Int { table.withLock { $0.templates.count } }

    /// Drops every template. The query fuzz harness calls it after each input: the templates'
    /// trees are indirect enums, whose boxes LeakSanitizer cannot trace through the tagged
    /// pointers the enum stores, so a template kept past an input reads as a leak.
    package func removeAll() {
        table.withLock { $0 = Table() }
    }

    /// `text` parsed with `arguments`: from its template if there is one, else parsed (and the
    /// template kept).
    ///
    /// - Throws: ``QueryError`` for a malformed predicate (never kept).
    package func predicate(for text: String, arguments: [QueryArgument]) throws -> ParsedPredicate {
        let key = Key(text: text, shapes: arguments.map(QueryTemplate.Shape.init))
        if let template = table.withLock({ $0.templates[key] }) { return template.filled(with: arguments) }
        guard let template = try QueryTemplate(parsing: text, arguments: arguments) else {
            return try QueryParser.parsePredicate(text, arguments: arguments)
        }
        table.withLock { table in
            guard table.templates[key] == nil else { return }  // another thread parsed it meanwhile
            if table.order.count < capacity {
                table.order.append(key)
            } else {
                table.templates[table.order[table.oldest]] = nil
                table.order[table.oldest] = key
                table.oldest = (table.oldest + 1) % capacity
            }
            table.templates[key] = template
        }
        return template.filled(with: arguments)
    }
}
