import Foundation
import PostgresNIO
import RealmActors

/// Every `Sample` against its row, and every row against an object, by the sink's documented
/// mapping (PostgresReplicationSink's **Mapping** and **Values**) — written out here rather than
/// taken from the sink, so that a mistake in the sink's encoding shows:
///
/// - `String` text, its NUL characters U+FFFD;
/// - `Int` bigint (`Int64.min` and `.max` included), `Bool` boolean, `UUID` uuid, `Data` bytea;
/// - `Double` double precision and `Float` real, NaN and ±infinity as they are;
/// - `Date` timestamptz to the microsecond; before 4713 BC `-infinity`, after 294276 AD `infinity`;
/// - `Decimal128` numeric; NaN `NaN`, ±infinity `±Infinity`.
enum SampleComparison {
    /// timestamptz's range, in seconds since 1970: 4714-11-24 00:00 BC to 294276-12-31 23:59:59.999999.
    static let earliestDate = -210_866_803_200.0, latestDate = 9_224_318_016_000.0

    /// Prints `compare: N objects, M rows, K differ` (and the first differences); true if K is 0.
    @MainActor static func run() async throws -> Bool {
        let realm = try Realm(configuration: samplesConfiguration)
        var rows: [Int: Row] = [:]
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            let result = try await postgres.query("""
                SELECT id, name, amount, score, ratio, flag, extract(epoch FROM moment)::float8, encode(payload, 'hex'),
                       price::text, token::text, note FROM "Sample"
                """, logger: logger)
            for try await (id, name, amount, score, ratio, flag, moment, payload, price, token, note)
                in result.decode((Int, String, Int, Double, Float, Bool, Double, String, String, String, String?).self) {
                rows[id] = Row(name: name, amount: amount, score: score, ratio: ratio, flag: flag, moment: moment,
                               payload: payload, price: price, token: token, note: note)
            }
            group.cancelAll()
        }
        let rowCount = rows.count
        var differ = 0, objects = 0
        for sample in realm.objects(Sample.self) {
            objects += 1
            guard let row = rows.removeValue(forKey: sample.id) else {
                differ += 1
                if differ <= 5 { print("missing: sample \(sample.id) has no row") }
                continue
            }
            let differences = differences(sample, row)
            if !differences.isEmpty {
                differ += 1
                if differ <= 5 { print("mismatch: sample \(sample.id): \(differences.joined(separator: "; "))") }
            }
        }
        if !rows.isEmpty { print("rows without an object: \(rows.keys.sorted().prefix(10))") }
        differ += rows.count
        print("compare: \(objects) objects, \(rowCount) rows, \(differ) differ")
        return differ == 0
    }

    struct Row {
        var name: String, amount: Int, score: Double, ratio: Float, flag: Bool, moment: Double
        var payload: String, price: String, token: String, note: String?
    }

    /// What differs between the object and its row, column by column (long values abbreviated).
    static func differences(_ sample: Sample, _ row: Row) -> [String] {
        var found: [String] = []
        func check(_ column: String, _ same: Bool, _ expected: @autoclosure () -> String, _ actual: @autoclosure () -> String) {
            if !same { found.append("\(column): expected \(expected().prefix(60)) (\(expected().count) characters), row \(actual().prefix(60))") }
        }
        check("name", row.name == text(sample.name), text(sample.name), row.name)
        check("amount", row.amount == sample.amount, "\(sample.amount)", "\(row.amount)")
        check("score", same(row.score, sample.score), "\(sample.score)", "\(row.score)")
        check("ratio", same(Double(row.ratio), Double(sample.ratio)), "\(sample.ratio)", "\(row.ratio)")
        check("flag", row.flag == sample.flag, "\(sample.flag)", "\(row.flag)")
        let moment = epoch(sample.moment)
        check("moment", moment.isFinite ? abs(row.moment - moment) <= 1e-6 + abs(moment) * 1e-15 : row.moment == moment, "\(moment)", "\(row.moment)")
        check("payload", row.payload == sample.payload.map { String(format: "%02x", $0) }.joined(), "\(sample.payload.count) bytes", "\(row.payload.count / 2) bytes")
        check("price", same(row.price, sample.price), "\(sample.price)", row.price)
        check("token", row.token == sample.token.uuidString.lowercased(), sample.token.uuidString, row.token)
        check("note", row.note == sample.note.map(text), sample.note.map(text) ?? "null", row.note ?? "null")
        return found
    }

    /// A string as text holds it: NUL characters U+FFFD.
    static func text(_ string: String) -> String { string.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") }

    /// NaN equals NaN; otherwise equal.
    static func same(_ row: Double, _ value: Double) -> Bool { row.isNaN ? value.isNaN : row == value }

    /// A date's seconds since 1970, as the row holds them: ±infinity outside timestamptz's range.
    static func epoch(_ date: Date) -> Double {
        let seconds = date.timeIntervalSince1970
        return seconds < earliestDate ? -.infinity : seconds > latestDate ? .infinity : seconds
    }

    /// numeric's text against a Decimal128: `NaN`, `Infinity`, `-Infinity`, or the same number.
    static func same(_ row: String, _ value: Decimal128) -> Bool {
        if value.isNaN { return row == "NaN" }
        if value.isInfinite { return row == (value < .zero ? "-Infinity" : "Infinity") }
        return (try? Decimal128(string: row)) == value
    }
}
