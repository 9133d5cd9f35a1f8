import Foundation

/// A token of the Realm Query Language, as ``PredicateParser`` scans it (with where it starts).
enum QueryToken: Equatable {
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
