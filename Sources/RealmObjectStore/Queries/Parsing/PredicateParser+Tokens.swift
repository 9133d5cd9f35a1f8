import Foundation

// The tokenizer: the next token of the predicate, scanned once and kept as the lookahead.
extension PredicateParser {
    mutating func peek() -> QueryToken { (try? scanned().token) ?? .end }
    mutating func peekPosition() -> Int { (try? scanned().start) ?? offset }

    mutating func scanned() throws -> (token: QueryToken, start: Int, end: Int) {
        if let lookahead { return lookahead }
        let result = try scan()
        lookahead = result
        return result
    }

    @discardableResult
    mutating func next() throws -> (token: QueryToken, start: Int) {
        let token = try scanned()
        offset = token.end
        lookahead = nil
        return (token.token, token.start)
    }

    /// Whether the next token is the keyword (case-insensitive) or symbol; consumes it if so.
    mutating func accept(_ words: String...) throws -> Bool {
        let token = try scanned().token
        let matches: Bool
        switch token {
        case .identifier(let name): matches = words.contains { $0.uppercased() == name.uppercased() }
        case .symbol(let symbol): matches = words.contains(symbol)
        default: matches = false
        }
        if matches { try next() }
        return matches
    }

    mutating func expect(_ symbol: String, _ context: String) throws {
        let (token, start) = (try scanned().token, try scanned().start)
        guard token == .symbol(symbol) else { throw QueryError("Expected '\(symbol)' \(context) but found \(token.description)", at: start) }
        try next()
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x24 || byte == 0x40 || byte >= 0x80
    }

    static func isIdentifierPart(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E
    }

    mutating func scan() throws -> (token: QueryToken, start: Int, end: Int) {
        var index = offset
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        let start = index
        guard index < bytes.count else { return (.end, start, index) }
        let byte = bytes[index]
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        // Strings.
        if byte == 0x22 || byte == 0x27 { return try scanString(from: start, quote: byte) }
        // Arguments: %@ %K %d %i %f and $0…
        if byte == 0x25 {
            guard index + 1 < bytes.count, [0x40, 0x4B, 0x64, 0x69, 0x66].contains(bytes[index + 1]) else {
                throw QueryError("Unknown argument placeholder '\(text(start..<min(start + 2, bytes.count)))'", at: start)
            }
            return (.argument(text(start..<(start + 2))), start, start + 2)
        }
        if byte == 0x24, index + 1 < bytes.count, bytes[index + 1] >= 0x30 && bytes[index + 1] <= 0x39 {
            index += 1
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
            return (.argument(text(start..<index)), start, index)
        }
        // Numbers (a sign belongs to the number when a digit follows).
        let isDigit = { (value: UInt8) in value >= 0x30 && value <= 0x39 }
        if isDigit(byte) || ((byte == 0x2D || byte == 0x2B) && index + 1 < bytes.count && (isDigit(bytes[index + 1]) || bytes[index + 1] == 0x2E)) {
            return try scanNumber(from: start)
        }
        // Signed infinity and NaN (`-inf`, `+Infinity`, `-NaN`): the unsigned forms are keywords.
        if byte == 0x2D || byte == 0x2B {
            var end = index + 1
            while end < bytes.count, Self.isIdentifierPart(bytes[end]), bytes[end] != 0x2E { end += 1 }
            switch text((index + 1)..<end).lowercased() {
            case "inf", "infinity": return (.number(byte == 0x2D ? -.infinity : .infinity), start, end)
            case "nan": return (.number(.nan), start, end)
            default: break
            }
        }
        // Date literals T<seconds>:<nanoseconds>.
        if byte == 0x54, index + 1 < bytes.count, isDigit(bytes[index + 1]) || bytes[index + 1] == 0x2D {
            return try scanTimestamp(from: start)
        }
        // Identifiers, keywords and key paths (and `.@count` after SUBQUERY(…), `.name` after a
        // subscript).
        if Self.isIdentifierStart(byte) || (byte == 0x2E && index + 1 < bytes.count && Self.isIdentifierStart(bytes[index + 1])) {
            index += 1
            while index < bytes.count, Self.isIdentifierPart(bytes[index]) { index += 1 }
            return (.identifier(text(start..<index)), start, index)
        }
        // Symbols, longest first.
        for symbol in ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "=", "<", ">", "!", "(", ")", "{", "}", ",", "[", "]", "*"] {
            let symbolBytes = Array(symbol.utf8)
            if index + symbolBytes.count <= bytes.count, Array(bytes[index..<(index + symbolBytes.count)]) == symbolBytes {
                return (.symbol(symbol), start, index + symbolBytes.count)
            }
        }
        throw QueryError("Unexpected character '\(text(start..<(start + 1)))'", at: start)
    }

    func scanString(from start: Int, quote: UInt8) throws -> (token: QueryToken, start: Int, end: Int) {
        var index = start + 1
        var result: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote { return (.string(String(decoding: result, as: UTF8.self)), start, index + 1) }
            if byte == 0x5C {  // backslash
                guard index + 1 < bytes.count else { break }
                let escaped = bytes[index + 1]
                switch escaped {
                case 0x6E: result.append(0x0A)
                case 0x74: result.append(0x09)
                case 0x72: result.append(0x0D)
                case 0x30: result.append(0x00)
                case 0x62: result.append(0x08)  // \b
                case 0x66: result.append(0x0C)  // \f
                case 0x22, 0x27, 0x2F, 0x5C: result.append(escaped)  // \" \' \/ \\
                case 0x75:  // \uXXXX
                    guard index + 5 < bytes.count, bytes[(index + 2)...(index + 5)].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                          let code = UInt32(String(decoding: bytes[(index + 2)...(index + 5)], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw QueryError("Invalid \\u escape in a string literal", at: index)
                    }
                    result += Array(String(Character(scalar)).utf8)
                    index += 6
                    continue
                default:
                    // As realm-core's lexer: only \" \' \/ \\ \b \f \n \r \t \0 and \uXXXX.
                    let shown = String(decoding: bytes[index...min(index + 1, bytes.count - 1)], as: UTF8.self)
                    throw QueryError("Invalid escape sequence '\(shown)' in a string literal", at: index)
                }
                index += 2
                continue
            }
            result.append(byte)
            index += 1
        }
        throw QueryError("Unterminated string literal", at: start)
    }

    func scanNumber(from start: Int) throws -> (token: QueryToken, start: Int, end: Int) {
        var index = start
        if bytes[index] == 0x2D || bytes[index] == 0x2B { index += 1 }
        // Hexadecimal.
        if index + 1 < bytes.count, bytes[index] == 0x30, bytes[index + 1] == 0x78 || bytes[index + 1] == 0x58 {
            var end = index + 2
            while end < bytes.count, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || ((bytes[end] | 0x20) >= 0x61 && (bytes[end] | 0x20) <= 0x66) { end += 1 }
            let digits = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
            guard let magnitude = UInt64(digits, radix: 16), magnitude <= UInt64(Int64.max) else {
                throw QueryError("Invalid hexadecimal number '\(String(decoding: bytes[start..<end], as: UTF8.self))'", at: start)
            }
            let value = Int64(magnitude)
            return (.integer(bytes[start] == 0x2D ? -value : value), start, end)
        }
        var end = index
        var isFloat = false
        while end < bytes.count {
            let byte = bytes[end]
            if byte >= 0x30 && byte <= 0x39 { end += 1; continue }
            if byte == 0x2E, !isFloat { isFloat = true; end += 1; continue }
            if byte == 0x65 || byte == 0x45 {  // exponent
                isFloat = true
                end += 1
                if end < bytes.count, bytes[end] == 0x2D || bytes[end] == 0x2B { end += 1 }
                continue
            }
            break
        }
        let literal = String(decoding: bytes[start..<end], as: UTF8.self)
        // A date literal YYYY-MM-DD@HH:MM:SS[:NANOS].
        if end < bytes.count, bytes[end] == 0x2D, !isFloat { return try scanDate(from: start) }
        if !isFloat, let value = Int64(literal) { return (.integer(value), start, end) }
        if !isFloat { throw QueryError("Integer literal '\(literal)' does not fit 64 bits", at: start) }
        guard let value = Double(literal), value.isFinite else { throw QueryError("Invalid number '\(literal)'", at: start) }
        return (.number(value), start, end)
    }

    /// `T<seconds since 1970>:<nanoseconds>`.
    func scanTimestamp(from start: Int) throws -> (token: QueryToken, start: Int, end: Int) {
        var end = start + 1
        while end < bytes.count, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || bytes[end] == 0x2D || bytes[end] == 0x3A { end += 1 }
        let parts = String(decoding: bytes[(start + 1)..<end], as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = Int64(parts[0]), let nanoseconds = Int64(parts[1]),
              nanoseconds.magnitude < 1_000_000_000 else {
            throw QueryError("Invalid timestamp literal, expected T<seconds>:<nanoseconds>", at: start)
        }
        // As realm-core: the nanoseconds carry the sign of the seconds (T-1:-1 is before the
        // epoch by a second and a nanosecond); T-1:1 and T1:-1 are ambiguous, so rejected.
        guard (seconds >= 0 && nanoseconds >= 0) || (seconds <= 0 && nanoseconds <= 0) else {
            throw QueryError("Invalid timestamp literal '\(String(decoding: bytes[start..<end], as: UTF8.self))': seconds and nanoseconds must have the same sign", at: start)
        }
        return (.date(Double(seconds) - 978_307_200 + Double(nanoseconds) / 1e9), start, end)
    }

    /// `YYYY-MM-DD@HH:MM:SS[:NANOS]`, UTC.
    func scanDate(from start: Int) throws -> (token: QueryToken, start: Int, end: Int) {
        var end = start
        while end < bytes.count, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || [0x2D, 0x40, 0x3A, 0x54].contains(bytes[end]) { end += 1 }
        let literal = String(decoding: bytes[start..<end], as: UTF8.self)
        let halves = literal.split(separator: "@").flatMap { $0.split(separator: "T") }
        let date = halves.first?.split(separator: "-").compactMap { Int($0) } ?? []
        let time = halves.count > 1 ? halves[1].split(separator: ":").compactMap { Int($0) } : []
        guard halves.count == 2, date.count == 3, time.count == 3 || time.count == 4 else {
            throw QueryError("Invalid date literal '\(literal)', expected YYYY-MM-DD@HH:MM:SS", at: start)
        }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (date[0], date[1], date[2])
        (components.hour, components.minute, components.second) = (time[0], time[1], time[2])
        // Every field in range, as realm-core's: DateComponents would carry 25:00 into the next
        // day and February 30 into March; negative nanoseconds are rejected.
        let nanosecondRange = 0..<1_000_000_000
        guard (1...12).contains(date[1]), (1...31).contains(date[2]), (0...23).contains(time[0]),
              (0...59).contains(time[1]), (0...59).contains(time[2]), time.count == 3 || nanosecondRange.contains(time[3]),
              let value = components.date,
              Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: value).day == date[2] else {
            throw QueryError("Invalid date literal '\(literal)', expected YYYY-MM-DD@HH:MM:SS[:NANOSECONDS] with every field in range", at: start)
        }
        let nanoseconds = time.count == 4 ? Double(time[3]) / 1e9 : 0
        return (.date(value.timeIntervalSinceReferenceDate + nanoseconds), start, end)
    }
}
