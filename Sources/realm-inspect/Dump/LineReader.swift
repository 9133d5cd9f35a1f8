import Foundation

/// The lines of a file, read in 1 MiB blocks: a dump of millions of objects is never held whole.
struct LineReader {
    private let handle: FileHandle
    /// Bytes read and not yet returned start at `start`; the consumed prefix is dropped when a
    /// block is appended (so each byte is copied at most once more).
    private var buffer = [UInt8]()
    private var start = 0
    private var atEnd = false
    /// The number of the line `next()` returned last (from 1).
    private(set) var lineNumber = 0

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw InspectionError("\(path): cannot be read") }
        self.handle = handle
    }

    /// The next line without its newline (nor a carriage return before it), or nil at the end.
    mutating func next() throws -> Data? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = Data(buffer[start..<end])
                start = newline + 1
                lineNumber += 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                lineNumber += 1
                return Data(buffer[start...])
            }
            let block = try handle.read(upToCount: 1 << 20) ?? Data()
            if block.isEmpty {
                atEnd = true
            } else {
                buffer.removeFirst(start)
                start = 0
                buffer.append(contentsOf: block)
            }
        }
    }
}
