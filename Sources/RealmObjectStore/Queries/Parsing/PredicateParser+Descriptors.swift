import Foundation

// `SORT(…)`, `DISTINCT(…)` and `LIMIT(…)` after a predicate.
extension PredicateParser {
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
}
