/// A usage error: what was wrong with the command line. The tool prints it with the
/// subcommand's usage and exits with status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A subcommand's arguments after parsing against its ``CommandSpec``.
struct ParsedArguments {
    /// Positional arguments in order (optional ones absent at the end).
    let positionals: [String]
    /// Option values by option name (defaults filled in); flags map to "".
    let options: [String: String]
    /// Whether `-h` or `--help` was given.
    let wantsHelp: Bool

    /// Parses `arguments` (after the subcommand's name).
    ///
    /// - Throws: ``UsageError`` for an unknown option, a missing or unexpected value, a value
    ///   outside an option's choices, too many or too few positional arguments.
    init(_ arguments: [String], for spec: CommandSpec) throws(UsageError) {
        var positionals: [String] = []
        var options: [String: String] = [:]
        var wantsHelp = false
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError("Unknown option '\(argument)'") }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inlineValue = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            guard let option = spec.allOptions.first(where: { $0.name == name }) else {
                throw UsageError("Unknown option '--\(name)'")
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw UsageError("The flag '--\(name)' takes no value") }
                options[name] = ""
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw UsageError("Missing value for '--\(name) <\(valueName)>'")
            }
            if let choices = option.choices, !choices.contains(value) {
                throw UsageError("The value '\(value)' is invalid for '--\(name) <\(valueName)>'; use one of: \(choices.joined(separator: ", "))")
            }
            options[name] = value
        }
        for option in spec.allOptions where options[option.name] == nil {
            if let defaultValue = option.defaultValue { options[option.name] = defaultValue }
        }
        if !wantsHelp {
            let required = spec.positionals.filter { !$0.isOptional }.count
            if positionals.count < required {
                throw UsageError("Missing expected argument '<\(spec.positionals[positionals.count].name)>'")
            }
            if positionals.count > spec.positionals.count {
                throw UsageError("Unexpected argument '\(positionals[spec.positionals.count])'")
            }
        }
        self.positionals = positionals
        self.options = options
        self.wantsHelp = wantsHelp
    }

    /// The positional argument at `index`, if given.
    subscript(position index: Int) -> String? { index < positionals.count ? positionals[index] : nil }

    /// Whether the flag `name` was given.
    func flag(_ name: String) -> Bool { options[name] != nil }

    /// The value of option `name` as a non-negative integer, if given.
    func count(_ name: String) throws(UsageError) -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), value >= 0 else { throw UsageError("The value '\(text)' is invalid for '--\(name)': expected a whole number ≥ 0") }
        return value
    }
}
