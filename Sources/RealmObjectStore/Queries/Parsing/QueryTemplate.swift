/// A parsed predicate with its arguments left as slots: what ``QueryTemplateCache`` keeps, so a
/// predicate string used again with new arguments (`filter("email == %@", email)` in a loop) is
/// parsed once — what SQLite's prepared-statement cache does for SQL.
///
/// The parser never looks inside an argument's value, only at its *shape* (a value, a list of
/// values, or a key path given where a value is expected): the same text with arguments of the
/// same shapes always parses to the same tree. A template is that tree with
/// ``QueryValue/argument(_:)`` where each argument's value goes; ``filled(with:)`` puts the
/// values in. `%K` arguments change the tree itself (they are key paths), so a text that uses
/// `%K` is not made a template (``init(parsing:arguments:)`` returns nil).
package struct QueryTemplate: Sendable {
    /// What the parser built, with `.argument(i)` for argument *i*'s value (descriptors take no
    /// arguments).
    let parsed: ParsedPredicate

    /// The shape of an argument: what the parser's tree depends on.
    enum Shape: Hashable, Sendable {
        case value
        case values
        /// A key path where a value is expected: the parser puts its text in the tree.
        case keyPath(String)

        init(_ argument: QueryArgument) {
            switch argument {
            case .value: self = .value
            case .values: self = .values
            case .keyPath(let path): self = .keyPath(path)
            }
        }
    }

    /// Parses `text` with slots for `arguments`; nil if the text uses `%K`.
    ///
    /// - Throws: the ``QueryError`` that parsing `text` with `arguments` would throw.
    package init?(parsing text: String, arguments: [QueryArgument]) throws {
        guard !Self.usesKeyPathArguments(text) else { return nil }
        let slots = arguments.enumerated().map { index, argument -> QueryArgument in
            switch argument {
            case .value: .value(.argument(index))
            case .values: .values([.argument(index)])
            case .keyPath: argument  // its text is part of the key (see `Shape.keyPath`)
            }
        }
        parsed = try QueryParser.parsePredicate(text, arguments: slots)
    }

    /// Whether `text` has a `%K` placeholder (or bytes that might be read as one).
    static func usesKeyPathArguments(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == 0x25, byte == 0x4B { return true }  // "%K"
            previous = byte
        }
        return false
    }

    /// The predicate with `arguments` — of the shapes the template was parsed with — in its slots.
    ///
    /// - Complexity: O(size of the tree).
    package func filled(with arguments: [QueryArgument]) -> ParsedPredicate {
        ParsedPredicate(expression: Self.fill(parsed.expression, arguments), ordering: parsed.ordering)
    }

    private static func fill(_ expression: QueryExpression, _ arguments: [QueryArgument]) -> QueryExpression {
        switch expression {
        case .constant: expression
        case .and(let operands): .and(operands.map { fill($0, arguments) })
        case .or(let operands): .or(operands.map { fill($0, arguments) })
        case .not(let operand): .not(fill(operand, arguments))
        case .comparison(var comparison):
            {
                comparison.left = fill(comparison.left, arguments)
                comparison.right = fill(comparison.right, arguments)
                return .comparison(comparison)
            }()
        }
    }

    private static func fill(_ operand: QueryOperand, _ arguments: [QueryArgument]) -> QueryOperand {
        switch operand {
        case .keyPath: operand
        case .value(.argument(let index)):
            switch arguments[index] {
            case .value(let value): .value(value)
            case .values(let values): .values(values)  // not reached: shapes match
            case .keyPath(let path): .value(.string(path))
            }
        case .value: operand
        case .values(let values):
            .values(values.flatMap { value -> [QueryValue] in
                guard case .argument(let index) = value else { return [value] }
                switch arguments[index] {
                case .value(let value): return [value]
                case .values(let values): return values
                case .keyPath(let path): return [.string(path)]
                }
            })
        case .subqueryCount(let collection, let variable, let predicate, let position):
            .subqueryCount(collection: collection, variable: variable, predicate: fill(predicate, arguments), position: position)
        }
    }
}
