import Foundation

// The sides of a comparison: key paths (with subscripts and aggregates), literals, arguments
// and `SUBQUERY(…)`.
extension PredicateParser {
    mutating func parseOperand() throws -> QueryOperand {
        let (token, start) = (try scanned().token, try scanned().start)
        switch token {
        case .symbol("{"):
            try next()
            var values: [QueryValue] = []
            if try scanned().token != .symbol("}") {
                repeat {
                    guard case .value(let value) = try parseOperand() else {
                        throw QueryError("Expected a value in the list", at: try scanned().start)
                    }
                    values.append(value)
                } while try accept(",")
            }
            try expect("}", "to close the list opened at offset \(start)")
            return .values(values)
        case .identifier(let word):
            switch word.uppercased() {
            case "TRUE", "YES": try next(); return .value(.bool(true))
            case "FALSE", "NO": try next(); return .value(.bool(false))
            case "NIL", "NULL": try next(); return .value(.null)
            case "INF", "INFINITY": try next(); return .value(.double(.infinity))
            case "NAN": try next(); return .value(.double(.nan))
            case "SUBQUERY": return try parseSubquery()
            // `oid(…)` and `uuid(…)` are literals; the word alone is a property of that name.
            case "OID" where opensParenthesis(after: word, at: start): return try parseWrapped(name: "oid", start: start) { text in
                    let bytes = Self.hexBytes(text)
                    guard let bytes, bytes.count == 12 else { return nil }
                    return .objectId(bytes)
                }
            case "UUID" where opensParenthesis(after: word, at: start): return try parseWrapped(name: "uuid", start: start) { text in
                    guard let uuid = UUID(uuidString: text) else { return nil }
                    return .uuid(withUnsafeBytes(of: uuid.uuid) { Array($0) })
                }
            case "B64":
                try next()
                guard case .string(let encoded) = try next().token, let data = Data(base64Encoded: encoded) else {
                    throw QueryError("Expected a base64 string after B64", at: start)
                }
                return .value(.data(Array(data)))
            case "AND", "OR", "NOT", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "ANY", "ALL", "NONE", "SOME":
                throw QueryError("Expected a property or a value but found the keyword '\(word)'", at: start)
            default:
                try next()
                var parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                var text = word
                while try scanned().token == .symbol("[") {
                    let component = try parseSubscript().component
                    parts.append(component)
                    text += component
                    if case .identifier(let more) = try scanned().token, more.hasPrefix(".") {
                        try next()
                        parts += more.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                        text += more
                    }
                }
                return try keyPath(parts: parts, text: text, at: start)
            }
        case .integer(let value): try next(); return .value(.int(value))
        case .number(let value): try next(); return .value(.double(value))
        case .string(let value): try next(); return .value(.string(value))
        case .date(let seconds):
            try next()
            return .value(.date(seconds))
        case .argument(let placeholder):
            try next()
            return try argument(placeholder, at: start)
        case .end:
            throw QueryError("Expected a property or a value but found the end of the predicate", at: start)
        default:
            throw QueryError("Expected a property or a value but found \(token.description)", at: start)
        }
    }

    /// Whether `(` follows `word` (written at `start`), spaces aside.
    func opensParenthesis(after word: String, at start: Int) -> Bool {
        var index = start + word.utf8.count
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
        return index < bytes.count && bytes[index] == 0x28
    }

    /// `name(…)`: the text between the parentheses, converted.
    mutating func parseWrapped(name: String, start: Int, _ convert: (String) -> QueryValue?) throws -> QueryOperand {
        try next()
        let open = try scanned()
        guard open.token == .symbol("(") else { throw QueryError("Expected '(' after \(name)", at: open.start) }
        guard let close = bytes[open.end...].firstIndex(of: 0x29) else {
            throw QueryError("Expected ')' to close \(name)(", at: open.start)
        }
        let text = String(decoding: bytes[open.end..<close], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard let value = convert(text) else { throw QueryError("Invalid \(name) literal '\(text)'", at: start) }
        offset = close + 1
        lookahead = nil
        return .value(value)
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...(index + 1)], as: UTF8.self), radix: 16) else { return nil }
            result.append(byte)
        }
        return result
    }

    /// `[FIRST]`, `[LAST]`, `[SIZE]`, `[*]`, `[n]` or `['key']` after a key path.
    mutating func parseSubscript() throws -> QuerySubscript {
        let open = try next().start
        let (token, position) = try next()
        let result: QuerySubscript
        switch token {
        case .identifier(let word) where word.uppercased() == "FIRST": result = .first
        case .identifier(let word) where word.uppercased() == "LAST": result = .last
        case .identifier(let word) where word.uppercased() == "SIZE": result = .size
        case .symbol("*"): result = .all
        case .integer(let index) where index >= 0 && index <= Int64(Int32.max): result = .index(Int(index))
        case .string(let key): result = .key(key)
        default:
            throw QueryError("Expected FIRST, LAST, SIZE, *, an index or a key in '[…]' but found \(token.description)", at: position)
        }
        try expect("]", "to close the subscript opened at offset \(open)")
        return result
    }

    /// A key path token: components split at dots, an aggregate (`@count`…) lifted out.
    func keyPath(_ text: String, at position: Int) throws -> QueryOperand {
        try keyPath(parts: text.split(separator: ".", omittingEmptySubsequences: false).map(String.init), text: text, at: position)
    }

    /// A key path from its parts (names, subscript components, `@keys`, an aggregate).
    func keyPath(parts: [String], text: String, at position: Int) throws -> QueryOperand {
        var components: [String] = []
        var aggregate: QueryAggregate?
        for part in parts {
            guard !part.isEmpty else { throw QueryError("Empty component in key path '\(text)'", at: position) }
            if part == QuerySubscript.size.component {  // `children[SIZE]` is `children.@count`
                guard aggregate == nil else { throw QueryError("Two aggregates in key path '\(text)'", at: position) }
                aggregate = .count
                continue
            }
            if part.lowercased() == "@keys" || part.lowercased() == "@values" {
                components.append(part.lowercased())
                continue
            }
            if part.hasPrefix("@") {
                guard aggregate == nil else { throw QueryError("Two aggregates in key path '\(text)'", at: position) }
                switch part.lowercased() {
                case "@count", "@size": aggregate = .count
                case "@min": aggregate = .min
                case "@max": aggregate = .max
                case "@sum": aggregate = .sum
                case "@avg": aggregate = .average
                case "@type": aggregate = .type
                default: throw QueryError("Unknown aggregate '\(part)' in key path '\(text)'", at: position)
                }
                continue
            }
            components.append(String(part))
        }
        guard !components.isEmpty else { throw QueryError("Expected a property before '\(text)'", at: position) }
        return .keyPath(components, aggregate: aggregate, position: position)
    }

    mutating func argument(_ placeholder: String, at position: Int) throws -> QueryOperand {
        let index: Int
        if placeholder.hasPrefix("$") {
            guard let positional = Int(placeholder.dropFirst()) else { throw QueryError("Invalid argument '\(placeholder)'", at: position) }
            index = positional
        } else {
            index = nextArgument
            nextArgument += 1
        }
        guard index < arguments.count else {
            throw QueryError("Not enough arguments: \(placeholder) number \(index + 1) has no value", at: position)
        }
        switch (placeholder, arguments[index]) {
        case ("%K", .keyPath(let path)), ("%K", .value(.string(let path))): return try keyPath(path, at: position)
        case ("%K", .value), ("%K", .values): throw QueryError("%K needs a key path argument (a String)", at: position)
        case (_, .value(let value)): return .value(value)
        case (_, .values(let values)): return .values(values)
        case (_, .keyPath(let path)): return .value(.string(path))
        }
    }

    mutating func parseSubquery() throws -> QueryOperand {
        let start = try next().start
        try enterNesting(at: start)
        defer { depth -= 1 }
        try expect("(", "after SUBQUERY")
        let (collectionToken, collectionStart) = try next()
        guard case .identifier(let collectionText) = collectionToken,
              case .keyPath(let collection, nil, _) = try keyPath(collectionText, at: collectionStart) else {
            throw QueryError("Expected a collection key path as SUBQUERY's first argument", at: collectionStart)
        }
        try expect(",", "after SUBQUERY's collection")
        let (variableToken, variableStart) = try next()
        guard case .identifier(let variable) = variableToken, variable.hasPrefix("$"), variable.count > 1 else {
            throw QueryError("Expected a $variable as SUBQUERY's second argument", at: variableStart)
        }
        try expect(",", "after SUBQUERY's variable")
        let predicate = try parseOr()
        try expect(")", "to close SUBQUERY(")
        let (aggregateToken, aggregateStart) = try next()
        guard case .identifier(let suffix) = aggregateToken, [".@count", ".@size"].contains(suffix.lowercased()) else {
            throw QueryError("Expected '.@count' after SUBQUERY(…)", at: aggregateStart)
        }
        return .subqueryCount(collection: collection, variable: variable, predicate: predicate, position: start)
    }
}
