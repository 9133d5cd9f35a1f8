import Foundation

/// Text matching for queries: folding for `[c]`/`[d]`, substring search and `LIKE`.
package enum QueryText {
    /// `bytes` (UTF-8) case- and/or diacritic-folded. ASCII folds in place; anything else goes
    /// through Foundation's Unicode folding (every script, beyond Realm's Latin 0–591).
    package static func fold(_ bytes: [UInt8], _ options: QueryStringOptions) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive) else { return bytes }
            return bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return Array(String(decoding: bytes, as: UTF8.self).folding(options: folding, locale: nil).utf8)
    }

    /// Whether `needle` occurs in `haystack` (bytes; UTF-8 is self-synchronizing, so a byte
    /// match is a character-sequence match).
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    /// `LIKE`: `?` matches one character, `*` any run of characters (by Unicode scalar).
    static func like(_ text: [UInt8], pattern: [UInt8]) -> Bool {
        let text = Array(String(decoding: text, as: UTF8.self).unicodeScalars)
        let pattern = Array(String(decoding: pattern, as: UTF8.self).unicodeScalars)
        var (t, p) = (0, 0)
        var star: (pattern: Int, text: Int)?
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = (p, t)
                p += 1
            } else if let current = star {
                p = current.pattern + 1
                t = current.text + 1
                star = (current.pattern, current.text + 1)
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
