/// What a subcommand accepts: its positional arguments and options, which both the parser and
/// the help text read, so they cannot disagree. The conventions are swift-argument-parser's:
/// long options (`--format json` or `--format=json`), flags (`--quiet`), `-h`/`--help` on every
/// subcommand, `--` ending the options.
struct CommandSpec {
    /// A positional argument, in order.
    struct Positional {
        let name: String
        let help: String
        var isOptional = false
    }

    /// A long option; `valueName` nil makes it a flag.
    struct Option {
        let name: String
        let valueName: String?
        let help: String
        /// The values accepted, if only some are (checked by the parser).
        var choices: [String]? = nil
        /// The value when the option is absent.
        var defaultValue: String? = nil
    }

    let name: String
    let abstract: String
    /// More explanation for `--help`, after the abstract.
    var discussion: String = ""
    var positionals: [Positional] = []
    var options: [Option] = []

    /// Options every subcommand accepts.
    static let commonOptions = [
        Option(name: "encryption-key-file", valueName: "path",
               help: "Read the 64-byte encryption key of an encrypted realm from this file (raw bytes, or 128 hex digits)."),
        Option(name: "quiet", valueName: nil, help: "No progress line on standard error."),
    ]

    var allOptions: [Option] { options + Self.commonOptions }

    /// `realm-inspect NAME <file> [<class>] [--format <format>] …`
    var usage: String {
        var parts = ["realm-inspect", name]
        for positional in positionals { parts.append(positional.isOptional ? "[<\(positional.name)>]" : "<\(positional.name)>") }
        for option in options {
            parts.append("[--\(option.name)\(option.valueName.map { " <\($0)>" } ?? "")]")
        }
        return parts.joined(separator: " ")
    }

    /// The text `realm-inspect NAME --help` prints.
    var help: String {
        var lines = ["OVERVIEW: \(abstract)", ""]
        if !discussion.isEmpty { lines += [discussion, ""] }
        lines += ["USAGE: \(usage)", ""]
        if !positionals.isEmpty {
            lines.append("ARGUMENTS:")
            for positional in positionals { lines.append(Self.row("<\(positional.name)>", positional.help)) }
            lines.append("")
        }
        lines.append("OPTIONS:")
        for option in allOptions {
            var help = option.help
            if let choices = option.choices { help += " One of: \(choices.joined(separator: ", "))." }
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            lines.append(Self.row("--\(option.name)\(option.valueName.map { " <\($0)>" } ?? "")", help))
        }
        lines.append(Self.row("-h, --help", "Show help information."))
        return lines.joined(separator: "\n")
    }

    /// A two-column help row: the name, then its help aligned at column 26.
    static func row(_ name: String, _ help: String) -> String {
        let indented = "  " + name
        guard indented.count < 25 else { return indented + "\n" + String(repeating: " ", count: 26) + help }
        return indented + String(repeating: " ", count: 26 - indented.count) + help
    }
}
