import Foundation

/// The Realm Query Language parser: NSPredicate-style strings into a ``QueryExpression``.
///
/// A hand-written tokenizer and recursive-descent parser over the UTF-8 bytes (offsets in errors
/// are byte offsets). Precedence, lowest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, then a
/// comparison or a parenthesized predicate. Keywords are case-insensitive. A comparison whose
/// left side is a constant and right side a key path is turned around (`3 < age` is
/// `age > 3`), except `value IN keyPath` (membership). Everything malformed throws a
/// ``QueryError`` saying where and what was expected; nothing in the input can trap.
///
/// After the predicate may come Realm's descriptors, applied in the order written (see
/// ``QueryDescriptor``): `SORT(keyPath ASC|DESC, …)` (also `ASCENDING`, `DESCENDING`),
/// `DISTINCT(keyPath, …)` and `LIMIT(n)` with `n` a non-negative integer. Their key paths are
/// checked against a schema by the caller, as a predicate's are by the binder.
package enum QueryParser {
    /// A predicate with no descriptors after it (a descriptor throws).
    package static func parse(_ text: String, arguments: [QueryArgument] = []) throws -> QueryExpression {
        let parsed = try parsePredicate(text, arguments: arguments)
        guard parsed.ordering.isEmpty else {
            throw QueryError("SORT, DISTINCT and LIMIT are not allowed in this predicate", at: 0)
        }
        return parsed.expression
    }

    /// A predicate and the descriptors written after it.
    package static func parsePredicate(_ text: String, arguments: [QueryArgument] = []) throws -> ParsedPredicate {
        var parser = Parser(bytes: Array(text.utf8), arguments: arguments)
        let expression = try parser.parseOr()
        let ordering = try parser.parseDescriptors()
        guard parser.peek() == .end else {
            throw QueryError("Expected the end of the predicate but found \(parser.peek().description)", at: parser.peekPosition())
        }
        return ParsedPredicate(expression: expression, ordering: ordering)
    }
}

/// What ``QueryParser/parsePredicate(_:arguments:)`` reads: the predicate, and the descriptors
/// after it in the order written.
package struct ParsedPredicate: Sendable, Equatable {
    package var expression: QueryExpression
    package var ordering: [QueryDescriptor]

    package init(expression: QueryExpression, ordering: [QueryDescriptor] = []) {
        self.expression = expression
        self.ordering = ordering
    }
}

/// A token and where it starts.
private enum Token: Equatable {
    case identifier(String)  // key paths, keywords, $variables, @aggregates (dots included)
    case integer(Int64)
    case number(Double)
    case string(String)
    /// A date literal, as seconds since 2001.
    case date(Double)
    case symbol(String)  // operators and punctuation
    case argument(String)  // %@, %K, %d, %i, %f, $0…
    case end

    var description: String {
        switch self {
        case .identifier(let name): "'\(name)'"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "string \"\(value)\""
        case .date: "a date"
        case .symbol(let symbol): "'\(symbol)'"
        case .argument(let argument): "'\(argument)'"
        case .end: "the end of the predicate"
        }
    }
}

private struct Parser {
    let bytes: [UInt8]
    let arguments: [QueryArgument]
    var offset = 0
    var nextArgument = 0
    /// The token after `offset`, with its start, when already scanned.
    var lookahead: (token: Token, start: Int, end: Int)?
    /// How many parentheses, NOTs and SUBQUERYs enclose the current position.
    var depth = 0

    /// The deepest nesting of parentheses, NOTs and SUBQUERYs a predicate may have. The parser
    /// (and the binder and evaluator after it) recurse once per level; a limit keeps a hostile
    /// predicate (`((((…` ten thousand deep) from overflowing the stack of the thread parsing
    /// it, which for a task is the cooperative pool's small one. Realistic predicates nest a
    /// handful of levels.
    static let maximumDepth = 100

    /// Enters one level of nesting at `start`; the caller leaves it (`depth -= 1`) when done.
    mutating func enterNesting(at start: Int) throws {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw QueryError("The predicate nests parentheses, NOT and SUBQUERY more than \(Self.maximumDepth) levels deep", at: start)
        }
    }

    init(bytes: [UInt8], arguments: [QueryArgument]) {
        self.bytes = bytes
        self.arguments = arguments
    }

    // MARK: Tokens

    mutating func peek() -> Token { (try? scanned().token) ?? .end }
    mutating func peekPosition() -> Int { (try? scanned().start) ?? offset }

    mutating func scanned() throws -> (token: Token, start: Int, end: Int) {
        if let lookahead { return lookahead }
        let result = try scan()
        lookahead = result
        return result
    }

    @discardableResult
    mutating func next() throws -> (token: Token, start: Int) {
        let token = try scanned()
        offset = token.end
        lookahead = nil
        return (token.token, token.start)
    }

    /// Whether the next token is the keyword (case-insensitive) or symbol; consumes it if so.
    mutating func accept(_ words: String...) throws -> Bool {
        let token = try scanned().token
        let matches: Bool
        switch token {
        case .identifier(let name): matches = words.contains { $0.uppercased() == name.uppercased() }
        case .symbol(let symbol): matches = words.contains(symbol)
        default: matches = false
        }
        if matches { try next() }
        return matches
    }

    mutating func expect(_ symbol: String, _ context: String) throws {
        let (token, start) = (try scanned().token, try scanned().start)
        guard token == .symbol(symbol) else { throw QueryError("Expected '\(symbol)' \(context) but found \(token.description)", at: start) }
        try next()
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x24 || byte == 0x40 || byte >= 0x80
    }

    static func isIdentifierPart(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E
    }

    mutating func scan() throws -> (token: Token, start: Int, end: Int) {
        var index = offset
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        let start = index
        guard index < bytes.count else { return (.end, start, index) }
        let byte = bytes[index]
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        // Strings.
        if byte == 0x22 || byte == 0x27 { return try scanString(from: start, quote: byte) }
        // Arguments: %@ %K %d %i %f and $0…
        if byte == 0x25 {
            guard index + 1 < bytes.count, [0x40, 0x4B, 0x64, 0x69, 0x66].contains(bytes[index + 1]) else {
                throw QueryError("Unknown argument placeholder '\(text(start..<min(start + 2, bytes.count)))'", at: start)
            }
            return (.argument(text(start..<(start + 2))), start, start + 2)
        }
        if byte == 0x24, index + 1 < bytes.count, bytes[index + 1] >= 0x30 && bytes[index + 1] <= 0x39 {
            index += 1
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
            return (.argument(text(start..<index)), start, index)
        }
        // Numbers (a sign belongs to the number when a digit follows).
        let isDigit = { (value: UInt8) in value >= 0x30 && value <= 0x39 }
        if isDigit(byte) || ((byte == 0x2D || byte == 0x2B) && index + 1 < bytes.count && (isDigit(bytes[index + 1]) || bytes[index + 1] == 0x2E)) {
            return try scanNumber(from: start)
        }
        // Signed infinity and NaN (`-inf`, `+Infinity`, `-NaN`): the unsigned forms are keywords.
        if byte == 0x2D || byte == 0x2B {
            var end = index + 1
            while end < bytes.count, Self.isIdentifierPart(bytes[end]), bytes[end] != 0x2E { end += 1 }
            switch text((index + 1)..<end).lowercased() {
            case "inf", "infinity": return (.number(byte == 0x2D ? -.infinity : .infinity), start, end)
            case "nan": return (.number(.nan), start, end)
            default: break
            }
        }
        // Date literals T<seconds>:<nanoseconds>.
        if byte == 0x54, index + 1 < bytes.count, isDigit(bytes[index + 1]) || bytes[index + 1] == 0x2D {
            return try scanTimestamp(from: start)
        }
        // Identifiers, keywords and key paths (and `.@count` after SUBQUERY(…), `.name` after a
        // subscript).
        if Self.isIdentifierStart(byte) || (byte == 0x2E && index + 1 < bytes.count && Self.isIdentifierStart(bytes[index + 1])) {
            index += 1
            while index < bytes.count, Self.isIdentifierPart(bytes[index]) { index += 1 }
            return (.identifier(text(start..<index)), start, index)
        }
        // Symbols, longest first.
        for symbol in ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "=", "<", ">", "!", "(", ")", "{", "}", ",", "[", "]", "*"] {
            let symbolBytes = Array(symbol.utf8)
            if index + symbolBytes.count <= bytes.count, Array(bytes[index..<(index + symbolBytes.count)]) == symbolBytes {
                return (.symbol(symbol), start, index + symbolBytes.count)
            }
        }
        throw QueryError("Unexpected character '\(text(start..<(start + 1)))'", at: start)
    }

    func scanString(from start: Int, quote: UInt8) throws -> (token: Token, start: Int, end: Int) {
        var index = start + 1
        var result: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote { return (.string(String(decoding: result, as: UTF8.self)), start, index + 1) }
            if byte == 0x5C {  // backslash
                guard index + 1 < bytes.count else { break }
                let escaped = bytes[index + 1]
                switch escaped {
                case 0x6E: result.append(0x0A)
                case 0x74: result.append(0x09)
                case 0x72: result.append(0x0D)
                case 0x30: result.append(0x00)
                case 0x62: result.append(0x08)  // \b
                case 0x66: result.append(0x0C)  // \f
                case 0x22, 0x27, 0x2F, 0x5C: result.append(escaped)  // \" \' \/ \\
                case 0x75:  // \uXXXX
                    guard index + 5 < bytes.count, bytes[(index + 2)...(index + 5)].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                          let code = UInt32(String(decoding: bytes[(index + 2)...(index + 5)], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw QueryError("Invalid \\u escape in a string literal", at: index)
                    }
                    result += Array(String(Character(scalar)).utf8)
                    index += 6
                    continue
                default:
                    // As realm-core's lexer: only \" \' \/ \\ \b \f \n \r \t \0 and \uXXXX.
                    let shown = String(decoding: bytes[index...min(index + 1, bytes.count - 1)], as: UTF8.self)
                    throw QueryError("Invalid escape sequence '\(shown)' in a string literal", at: index)
                }
                index += 2
                continue
            }
            result.append(byte)
            index += 1
        }
        throw QueryError("Unterminated string literal", at: start)
    }

    func scanNumber(from start: Int) throws -> (token: Token, start: Int, end: Int) {
        var index = start
        if bytes[index] == 0x2D || bytes[index] == 0x2B { index += 1 }
        // Hexadecimal.
        if index + 1 < bytes.count, bytes[index] == 0x30, bytes[index + 1] == 0x78 || bytes[index + 1] == 0x58 {
            var end = index + 2
            while end < bytes.count, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || ((bytes[end] | 0x20) >= 0x61 && (bytes[end] | 0x20) <= 0x66) { end += 1 }
            let digits = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
            guard let magnitude = UInt64(digits, radix: 16), magnitude <= UInt64(Int64.max) else {
                throw QueryError("Invalid hexadecimal number '\(String(decoding: bytes[start..<end], as: UTF8.self))'", at: start)
            }
            let value = Int64(magnitude)
            return (.integer(bytes[start] == 0x2D ? -value : value), start, end)
        }
        var end = index
        var isFloat = false
        while end < bytes.count {
            let byte = bytes[end]
            if byte >= 0x30 && byte <= 0x39 { end += 1; continue }
            if byte == 0x2E, !isFloat { isFloat = true; end += 1; continue }
            if byte == 0x65 || byte == 0x45 {  // exponent
                isFloat = true
                end += 1
                if end < bytes.count, bytes[end] == 0x2D || bytes[end] == 0x2B { end += 1 }
                continue
            }
            break
        }
        let literal = String(decoding: bytes[start..<end], as: UTF8.self)
        // A date literal YYYY-MM-DD@HH:MM:SS[:NANOS].
        if end < bytes.count, bytes[end] == 0x2D, !isFloat { return try scanDate(from: start) }
        if !isFloat, let value = Int64(literal) { return (.integer(value), start, end) }
        if !isFloat { throw QueryError("Integer literal '\(literal)' does not fit 64 bits", at: start) }
        guard let value = Double(literal), value.isFinite else { throw QueryError("Invalid number '\(literal)'", at: start) }
        return (.number(value), start, end)
    }

    /// `T<seconds since 1970>:<nanoseconds>`.
    func scanTimestamp(from start: Int) throws -> (token: Token, start: Int, end: Int) {
        var end = start + 1
        while end < bytes.count, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || bytes[end] == 0x2D || bytes[end] == 0x3A { end += 1 }
        let parts = String(decoding: bytes[(start + 1)..<end], as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = Int64(parts[0]), let nanoseconds = Int64(parts[1]),
              nanoseconds.magnitude < 1_000_000_000 else {
            throw QueryError("Invalid timestamp literal, expected T<seconds>:<nanoseconds>", at: start)
        }
        // As realm-core: the nanoseconds carry the sign of the seconds (T-1:-1 is before the
        // epoch by a second and a nanosecond); T-1:1 and T1:-1 are ambiguous, so rejected.
        guard (seconds >= 0 && nanoseconds >= 0) || (seconds <= 0 && nanoseconds <= 0) else {
            throw QueryError("Invalid timestamp literal '\(String(decoding: bytes[start..<end], as: UTF8.self))': seconds and nanoseconds must have the same sign", at: start)
        }
        return (.date(Double(seconds) - 978_307_200 + Double(nanoseconds) / 1e9), start, end)
    }

    /// `YYYY-MM-DD@HH:MM:SS[:NANOS]`, UTC.
    func scanDate(from start: Int) throws -> (token: Token, start: Int, end: Int) {
        var end = start
        while end < bytes.count, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || [0x2D, 0x40, 0x3A, 0x54].contains(bytes[end]) { end += 1 }
        let literal = String(decoding: bytes[start..<end], as: UTF8.self)
        let halves = literal.split(separator: "@").flatMap { $0.split(separator: "T") }
        let date = halves.first?.split(separator: "-").compactMap { Int($0) } ?? []
        let time = halves.count > 1 ? halves[1].split(separator: ":").compactMap { Int($0) } : []
        guard halves.count == 2, date.count == 3, time.count == 3 || time.count == 4 else {
            throw QueryError("Invalid date literal '\(literal)', expected YYYY-MM-DD@HH:MM:SS", at: start)
        }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (date[0], date[1], date[2])
        (components.hour, components.minute, components.second) = (time[0], time[1], time[2])
        // Every field in range, as realm-core's: DateComponents would carry 25:00 into the next
        // day and February 30 into March; negative nanoseconds are rejected.
        let nanosecondRange = 0..<1_000_000_000
        guard (1...12).contains(date[1]), (1...31).contains(date[2]), (0...23).contains(time[0]),
              (0...59).contains(time[1]), (0...59).contains(time[2]), time.count == 3 || nanosecondRange.contains(time[3]),
              let value = components.date,
              Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: value).day == date[2] else {
            throw QueryError("Invalid date literal '\(literal)', expected YYYY-MM-DD@HH:MM:SS[:NANOSECONDS] with every field in range", at: start)
        }
        let nanoseconds = time.count == 4 ? Double(time[3]) / 1e9 : 0
        return (.date(value.timeIntervalSinceReferenceDate + nanoseconds), start, end)
    }

    // MARK: Grammar

    // MARK: Descriptors

    /// `SORT(…)`, `DISTINCT(…)` and `LIMIT(…)` after the predicate, in order (none if the next
    /// token is not one of them followed by `(`).
    mutating func parseDescriptors() throws -> [QueryDescriptor] {
        var ordering: [QueryDescriptor] = []
        while case .identifier(let name) = try scanned().token {
            let keyword = name.uppercased()
            guard ["SORT", "DISTINCT", "LIMIT"].contains(keyword) else { break }
            let start = try next().start
            try expect("(", "after \(keyword)")
            switch keyword {
            case "SORT":
                var keys: [SortKey] = []
                repeat {
                    let path = try descriptorKeyPath(keyword)
                    let (direction, at) = (try scanned().token, try scanned().start)
                    if try accept("ASC", "ASCENDING") {
                        keys.append(SortKey(keyPath: path, ascending: true))
                    } else if try accept("DESC", "DESCENDING") {
                        keys.append(SortKey(keyPath: path, ascending: false))
                    } else {
                        throw QueryError("Expected ASC or DESC after '\(path)' in SORT but found \(direction.description)", at: at)
                    }
                } while try accept(",")
                ordering.append(.sort(keys))
            case "DISTINCT":
                var paths: [String] = []
                repeat { paths.append(try descriptorKeyPath(keyword)) } while try accept(",")
                ordering.append(.distinct(paths))
            default:
                let (token, at) = (try scanned().token, try scanned().start)
                guard case .integer(let count) = token, count >= 0, count <= Int64(Int.max) else {
                    throw QueryError("Expected a non-negative integer in LIMIT but found \(token.description)", at: at)
                }
                try next()
                ordering.append(.limit(Int(count)))
            }
            try expect(")", "to close \(keyword) at offset \(start)")
        }
        return ordering
    }

    /// A key path in a descriptor (a property name, or a path through to-one links).
    mutating func descriptorKeyPath(_ keyword: String) throws -> String {
        let (token, start) = (try scanned().token, try scanned().start)
        guard case .identifier(let path) = token, !path.hasPrefix("$"), !path.hasPrefix("@") else {
            throw QueryError("Expected a key path in \(keyword) but found \(token.description)", at: start)
        }
        try next()
        return path
    }

    // MARK: Predicates

    mutating func parseOr() throws -> QueryExpression {
        var operands = [try parseAnd()]
        while try accept("OR", "||") { operands.append(try parseAnd()) }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd() throws -> QueryExpression {
        var operands = [try parseNot()]
        while try accept("AND", "&&") { operands.append(try parseNot()) }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseNot() throws -> QueryExpression {
        let start = try scanned().start
        if try accept("NOT", "!") {
            try enterNesting(at: start)
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws -> QueryExpression {
        let (token, start) = (try scanned().token, try scanned().start)
        if token == .symbol("(") {
            try enterNesting(at: start)
            defer { depth -= 1 }
            try next()
            let inner = try parseOr()
            let closing = try scanned()
            guard closing.token == .symbol(")") else {
                throw QueryError("Expected ')' to close '(' at offset \(start) but found \(closing.token.description)", at: closing.start)
            }
            try next()
            return inner
        }
        if try accept("TRUEPREDICATE") { return .constant(true) }
        if try accept("FALSEPREDICATE") { return .constant(false) }
        return .comparison(try parseComparison())
    }

    mutating func parseComparison() throws -> QueryComparison {
        let start = try scanned().start
        let modifier = try parseModifier()
        let left = try parseOperand()
        let (opToken, opStart) = try next()
        let op: QueryOperator
        switch opToken {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .identifier(let word):
            switch word.uppercased() {
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "CONTAINS": op = .contains
            case "LIKE": op = .like
            case "IN": op = .in
            case "BETWEEN": op = .between
            default: throw QueryError("Unknown operator \(opToken.description)", at: opStart)
            }
        case .end: throw QueryError("Expected an operator after the left side but found the end of the predicate", at: opStart)
        default: throw QueryError("Expected an operator but found \(opToken.description)", at: opStart)
        }
        let options = try parseOptions()
        let rightModifier = try parseModifier()
        let afterOperator = try scanned()
        if afterOperator.token == .end {
            throw QueryError("Expected a value after '\(op.rawValue)' but found the end of the predicate", at: afterOperator.start)
        }
        if op == .between && afterOperator.token != .symbol("{") {
            throw QueryError("Expected '{' after BETWEEN but found \(afterOperator.token.description)", at: afterOperator.start)
        }
        let right = try parseOperand()
        switch (left, right) {
        case (.values, .keyPath):
            // `ANY {1, 2} == age`, `ALL {5.5, 4} IN prices`: the list's modifier stays the outer one.
            return QueryComparison(right, try Self.turnedAround(op, at: start, allowing: true), left, options: options,
                                   modifier: rightModifier, valuesModifier: modifier, valuesFirst: true, position: start)
        case (.value, .keyPath) where op != .in:
            // A constant on the left and a key path on the right: turned around.
            if let modifier { throw QueryError("The keypath following '\(modifier.rawValue)' must contain a list", at: start) }
            return QueryComparison(right, try Self.turnedAround(op, at: start, allowing: false), left, options: options,
                                   modifier: rightModifier, position: start)
        case (.value, _) where modifier != nil, (.subqueryCount, _) where modifier != nil:
            throw QueryError("'\(modifier!.rawValue)' must be followed by a key path to a list", at: start)
        case (_, .keyPath):
            // `value IN ALL list` or `a == ANY b`: the modifier applies to the right key path.
            return QueryComparison(left, op, right, options: options, modifier: modifier ?? rightModifier, position: start)
        default:
            if rightModifier != nil, case .value = right {
                throw QueryError("'\(rightModifier!.rawValue)' must be followed by a list of values or a key path", at: afterOperator.start)
            }
            return QueryComparison(left, op, right, options: options, modifier: modifier, valuesModifier: rightModifier, position: start)
        }
    }

    /// `ANY`/`SOME`/`ALL`/`NONE`, if next.
    mutating func parseModifier() throws -> QueryCollectionModifier? {
        if try accept("ANY", "SOME") { return .any }
        if try accept("ALL") { return .all }
        if try accept("NONE") { return QueryCollectionModifier.none }
        return nil
    }

    /// The operator with its sides swapped (`3 < age` is `age > 3`); `IN` after a list of values
    /// (`{1, 2} IN ages`) becomes equality, quantified over the list.
    static func turnedAround(_ op: QueryOperator, at start: Int, allowing listMembership: Bool) throws -> QueryOperator {
        switch op {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        case .equal, .notEqual: return op
        case .in where listMembership: return .equal
        default: throw QueryError("The left side of \(op.rawValue) must be a property", at: start)
        }
    }

    mutating func parseOptions() throws -> QueryStringOptions {
        guard try scanned().token == .symbol("[") else { return [] }
        let start = try next().start
        let (token, position) = try next()
        guard case .identifier(let letters) = token, !letters.isEmpty,
              letters.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
            throw QueryError("Expected string options [c], [d] or [cd] but found \(token.description)", at: position)
        }
        try expect("]", "to close the options opened at offset \(start)")
        var options: QueryStringOptions = []
        if letters.lowercased().contains("c") { options.insert(.caseInsensitive) }
        if letters.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
        return options
    }

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
