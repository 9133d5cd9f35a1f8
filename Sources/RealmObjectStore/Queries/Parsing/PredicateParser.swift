import Foundation

/// The Realm Query Language's recursive-descent parser over a predicate's UTF-8 bytes (see
/// ``QueryParser``, its entry): its state, the nesting limit, and the grammar of predicates. The
/// tokenizer is in `PredicateParser+Tokens.swift`, operands (key paths, literals, arguments,
/// subqueries) in `PredicateParser+Operands.swift`, and `SORT`/`DISTINCT`/`LIMIT` in
/// `PredicateParser+Descriptors.swift`.
///
/// (Private to one file, as `Parser`, while the parser was one file; internal now only so that
/// its files share it. Only ``QueryParser`` makes one.)
struct PredicateParser {
    let bytes: [UInt8]
    let arguments: [QueryArgument]
    var offset = 0
    var nextArgument = 0
    /// The token after `offset`, with its start, when already scanned.
    var lookahead: (token: QueryToken, start: Int, end: Int)?
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
}
