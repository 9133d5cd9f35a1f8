import Foundation
import RealmActors

/// The `realm-inspect` command line: picks the subcommand, parses its arguments, runs it, and
/// turns what went wrong into a message on standard error and an exit status (see
/// ``ExitStatus``). Nothing a user types or a file holds makes it crash: a usage error exits
/// with 2, a `Realm.Error` or ``InspectionError`` with 1.
package enum Inspector {
    static let version = "0.1.0"

    /// Every subcommand, in the order `--help` lists them.
    static let commands: [any InspectorCommand.Type] = [
        Info.self, SchemaCommand.self, Count.self, Query.self, Dump.self, Load.self, Check.self, Recover.self, Compact.self, Copy.self, Versions.self, DropSlot.self, ResyncSlot.self,
    ]

    static var help: String {
        var lines = [
            "OVERVIEW: Look into a RealmActors realm file: its schema, objects, size and integrity.", "",
            "USAGE: realm-inspect <subcommand> <file> [<arguments>] [<options>]", "",
            "Data goes to standard output, diagnostics to standard error. Exit status: 0 done, 1 problems",
            "found (a damaged file, a malformed predicate), 2 a usage error.", "",
            "OPTIONS:",
            CommandSpec.row("--version", "Show the version."),
            CommandSpec.row("-h, --help", "Show help information."), "",
            "SUBCOMMANDS:",
        ]
        for command in commands { lines.append(CommandSpec.row(command.spec.name, command.spec.abstract)) }
        lines += ["", "  See 'realm-inspect help <subcommand>' for detailed help."]
        return lines.joined(separator: "\n")
    }

    /// Runs the command line `arguments` (without the program's name) and returns the exit status.
    package static func run(_ arguments: [String]) -> ExitStatus {
        guard let first = arguments.first else {
            printError(help)
            return .usageError
        }
        switch first {
        case "-h", "--help":
            print(help)
            return .success
        case "--version":
            print(version)
            return .success
        case "help":
            guard let name = arguments.dropFirst().first else {
                print(help)
                return .success
            }
            guard let command = commands.first(where: { $0.spec.name == name }) else {
                printError("Error: Unknown subcommand '\(name)'\n\n\(help)")
                return .usageError
            }
            print(command.spec.help)
            return .success
        default:
            break
        }
        guard let type = commands.first(where: { $0.spec.name == first }) else {
            printError("Error: Unknown subcommand '\(first)'\n\n\(help)")
            return .usageError
        }
        let command: any InspectorCommand
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), for: type.spec)
            if parsed.wantsHelp {
                print(type.spec.help)
                return .success
            }
            command = try type.init(parsed)
        } catch {
            printError("Error: \(error.message)\nUsage: \(type.spec.usage)\n  See 'realm-inspect help \(type.spec.name)' for more.")
            return .usageError
        }
        do {
            return try command.run()
        } catch let error as Realm.Error {
            printError("Error: \(error.localizedDescription)")
        } catch {
            printError("Error: \(error)")
        }
        return .problemsFound
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
