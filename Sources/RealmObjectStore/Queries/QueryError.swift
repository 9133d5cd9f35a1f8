import Foundation

/// A query that cannot be parsed or does not fit the schema: where and what was expected.
package struct QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Offset in the query string (0 for built queries).
    package var position: Int
    package var message: String

    package init(_ message: String, at position: Int) {
        self.message = message
        self.position = position
    }

    package var description: String { "\(message) (at offset \(position))" }
}
