import Foundation
import NIOCore

/// A ``ColumnBinding`` as a field of `COPY … FROM STDIN (FORMAT text)`: the initial snapshot's
/// rows go to PostgreSQL this way, the batches' as bound parameters. Both must leave the same
/// value in the column, so each case is written as the text the column type's input function
/// reads back to what the parameter would have stored:
///
/// - text, jsonb, numeric (`.text`) — the same text the parameter carries (cast by the same
///   input function), escaped for COPY: `\\`, `\n`, `\r`, `\t`; null is `\N`;
/// - bigint, boolean (`t`/`f`), uuid — their canonical text;
/// - real and double precision — Swift's shortest round-tripping digits (which PostgreSQL reads
///   to the same float), `NaN`, `Infinity`, `-Infinity`;
/// - bytea — `\x` and hex digits;
/// - timestamptz — UTC, to the microsecond, truncated toward 2000-01-01 as postgres-nio's
///   binary `Date` encoding truncates.
extension ColumnBinding {
    func appendCopyText(to buffer: inout ByteBuffer) {
        switch self {
        case .null: buffer.writeStaticString("\\N")
        case .int(let value): buffer.writeString(String(value))
        case .bool(let value): buffer.writeStaticString(value ? "t" : "f")
        case .float(let value): Self.appendFloat(Double(value), description: value.description, to: &buffer)
        case .double(let value): Self.appendFloat(value, description: value.description, to: &buffer)
        case .text(let value): Self.appendEscaped(value, to: &buffer)
        case .bytes(let value):
            buffer.writeStaticString("\\\\x")  // `\x`, its backslash escaped
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            buffer.reserveCapacity(minimumWritableBytes: value.count * 2)
            for byte in value {
                buffer.writeInteger(digits[Int(byte >> 4)])
                buffer.writeInteger(digits[Int(byte & 0xf)])
            }
        case .date(let value): Self.appendTimestamp(value, to: &buffer)
        case .uuid(let value): buffer.writeString(value.uuidString)
        }
    }

    private static func appendFloat(_ value: Double, description: String, to buffer: inout ByteBuffer) {
        if value.isNaN {
            buffer.writeStaticString("NaN")
        } else if value.isInfinite {
            buffer.writeStaticString(value < 0 ? "-Infinity" : "Infinity")
        } else {
            buffer.writeString(description)
        }
    }

    /// `text` with COPY's escapes. The bytes are UTF-8, whose multi-byte sequences hold no
    /// ASCII byte, so escaping byte by byte is escaping character by character. (`withUTF8`'s
    /// buffer is read only inside its closure, where the string keeps it alive.)
    private static func appendEscaped(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() {
                let escape: UInt8
                switch byte {
                case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
                case UInt8(ascii: "\n"): escape = UInt8(ascii: "n")
                case UInt8(ascii: "\r"): escape = UInt8(ascii: "r")
                case UInt8(ascii: "\t"): escape = UInt8(ascii: "t")
                default: continue
                }
                buffer.writeBytes(bytes[start..<index])
                buffer.writeInteger(UInt8(ascii: "\\"))
                buffer.writeInteger(escape)
                start = index + 1
            }
            buffer.writeBytes(bytes[start...])
        }
    }

    /// 2000-01-01 00:00:00 UTC, postgres-nio's epoch for timestamps.
    private static let postgresEpoch = Date(timeIntervalSince1970: 946_684_800)

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00` (`… BC` before year 1). A date too far out for a 64-bit
    /// count of microseconds is written as `infinity`/`-infinity`, where the parameter path
    /// would trap.
    private static func appendTimestamp(_ date: Date, to buffer: inout ByteBuffer) {
        let microseconds = date.timeIntervalSince(postgresEpoch) * 1e6
        guard let since2000 = Int64(exactly: microseconds.rounded(.towardZero)) else {
            buffer.writeString(microseconds < 0 ? "-infinity" : "infinity")
            return
        }
        // Days and the microsecond of the day, flooring for dates before 2000.
        let perDay: Int64 = 86_400_000_000
        var days = since2000 / perDay, ofDay = since2000 % perDay
        if ofDay < 0 { days -= 1; ofDay += perDay }
        // Civil date from days since 1970-01-01 (Howard Hinnant's days_from_civil, inverted).
        let z = days + 10_957 + 719_468  // 10,957 days from 1970-01-01 to 2000-01-01
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let seconds = ofDay / 1_000_000
        var text = "\(padded(year > 0 ? year : 1 - year, 4))-\(padded(month, 2))-\(padded(day, 2)) "
        text += "\(padded(seconds / 3_600, 2)):\(padded(seconds / 60 % 60, 2)):\(padded(seconds % 60, 2)).\(padded(ofDay % 1_000_000, 6))+00"
        if year <= 0 { text += " BC" }
        buffer.writeString(text)
    }
}
