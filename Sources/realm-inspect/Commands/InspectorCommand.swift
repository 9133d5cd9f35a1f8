import Foundation
import RealmActors

/// A subcommand of `realm-inspect`: what it accepts (``spec``) and what it does.
///
/// `run` writes data to standard output and diagnostics to standard error, and returns how the
/// process should exit; a `Realm.Error` it throws (a damaged file, a malformed predicate, a
/// file open for writing elsewhere) is printed by ``Inspector`` and exits with status 1.
protocol InspectorCommand: Sendable {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run() throws -> ExitStatus
}

/// The inspector's exit statuses.
package enum ExitStatus: Int32 {
    /// Done; nothing wrong found.
    case success = 0
    /// Problems found: a damaged file, a malformed predicate, a file that cannot be opened.
    case problemsFound = 1
    /// The command line was wrong.
    case usageError = 2
}

/// A problem the inspector reports itself (exit status 1), beside the `Realm.Error`s it passes on.
struct InspectionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
