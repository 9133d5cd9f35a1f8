import Foundation
import RealmActors

/// Writes objects to standard output in one of the `query` formats, as they come (nothing is
/// collected first, so a query over millions of objects streams), through a buffered writer.
///
/// - `table`: a header and aligned columns; the widths come from the first 100 objects (longer
///   cells are cut with `…`), so the table streams too.
/// - `json`: one array of objects.
/// - `jsonl`: one JSON object per line, its keys the property names.
/// - `csv`: RFC 4180, a header line of property names.
struct ObjectWriter {
    enum Format: String, CaseIterable {
        case table, json, jsonl, csv
    }

    let format: Format
    let properties: [Property]
    private var output: OutputBuffer
    private var written = 0
    /// `table`: rows held until the column widths are known.
    private var pendingRows: [[String]] = []
    private var widths: [Int]?

    /// How many rows `table` looks at to size its columns, and the widest a column grows.
    static let sizingRows = 100
    static let maximumWidth = 40

    init(format: Format, properties: [Property], output: OutputBuffer) {
        self.format = format
        self.properties = properties
        self.output = output
        switch format {
        case .json: output.write("[")
        case .csv: output.write(properties.map { Self.csvField($0.name) }.joined(separator: ",") + "\r\n")
        case .table, .jsonl: break
        }
    }

    /// Writes one object.
    mutating func write(_ object: ObjectBase) {
        switch format {
        case .json:
            output.write((written == 0 ? "\n" : ",\n") + ValueText.objectJSON(object, properties: properties))
        case .jsonl:
            output.write(ValueText.objectJSON(object, properties: properties) + "\n")
        case .csv:
            output.write(properties.map { Self.csvField(ValueText.cell(object[$0.name])) }.joined(separator: ",") + "\r\n")
        case .table:
            let row = properties.map { Self.singleLine(ValueText.cell(object[$0.name])) }
            if widths == nil {
                pendingRows.append(row)
                if pendingRows.count == Self.sizingRows { flushPendingRows() }
            } else {
                writeTableRow(row)
            }
        }
        written += 1
    }

    /// Ends the output (closes the JSON array; writes a short table's rows).
    mutating func finish() {
        switch format {
        case .json: output.write(written == 0 ? "]\n" : "\n]\n")
        case .table: if widths == nil { flushPendingRows() }
        case .jsonl, .csv: break
        }
        output.flush()
    }

    private mutating func flushPendingRows() {
        let names = properties.map(\.name)
        let widths = names.indices.map { column in
            min(Self.maximumWidth, max(names[column].count, pendingRows.map { $0[column].count }.max() ?? 0))
        }
        self.widths = widths
        writeTableRow(names)
        output.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
        for row in pendingRows { writeTableRow(row) }
        pendingRows = []
    }

    private func writeTableRow(_ row: [String]) {
        guard let widths else { return }
        let cells = row.indices.map { column -> String in
            let cell = row[column]
            let width = widths[column]
            if cell.count > width { return String(cell.prefix(width - 1)) + "…" }
            return column == row.count - 1 ? cell : cell + String(repeating: " ", count: width - cell.count)
        }
        output.write(cells.joined(separator: "  ") + "\n")
    }

    /// A cell on one line: line breaks and tabs shown as spaces.
    static func singleLine(_ text: String) -> String {
        text.contains(where: { $0.isNewline || $0 == "\t" })
            ? String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 }) : text
    }

    /// A CSV field, quoted if it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Standard output, written in 64 KiB blocks rather than a `print` per line.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    private let descriptor: Int32

    init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    deinit { flush() }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                break  // a closed pipe (`| head`): nothing more can be written
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
