import Foundation

/// A subscript in a key path (`scores[FIRST]`, `dogs[2].name`, `prices['eur']`, `dogs[SIZE]`),
/// carried in the path as a component of its own (``component``): property names never start
/// with `[`, so nothing else reads as one.
package enum QuerySubscript: Equatable, Sendable {
    /// `[FIRST]`: the first element of a list.
    case first
    /// `[LAST]`: the last element of a list.
    case last
    /// `[n]`: the element at `n` of a list (none when out of range).
    case index(Int)
    /// `[SIZE]`: the number of elements (`@count`).
    case size
    /// `[*]`: every element (what the path means without a subscript).
    case all
    /// `['key']`: a map's value for the key.
    case key(String)

    /// The subscript as a key path component.
    package var component: String {
        switch self {
        case .first: "[FIRST]"
        case .last: "[LAST]"
        case .index(let index): "[\(index)]"
        case .size: "[SIZE]"
        case .all: "[*]"
        case .key(let key): "['\(key)']"
        }
    }

    /// The subscript a component stands for, if it is one.
    package init?(component: String) {
        guard component.hasPrefix("["), component.hasSuffix("]"), component.count >= 2 else { return nil }
        switch component {
        case "[FIRST]": self = .first
        case "[LAST]": self = .last
        case "[SIZE]": self = .size
        case "[*]": self = .all
        default:
            if component.hasPrefix("['"), component.hasSuffix("']"), component.count >= 4 {
                self = .key(String(component.dropFirst(2).dropLast(2)))
            } else if let index = Int(component.dropFirst().dropLast()), index >= 0 {
                self = .index(index)
            } else {
                return nil
            }
        }
    }
}
