#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a child process wrote to the driver, as whole lines: read from a descriptor that never
/// blocks (a non-blocking pipe, or a file the child appends to), the tail of an unfinished line
/// kept for the next read.
struct ChildLines {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The whole lines written since the last call.
    mutating func take() -> [String] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
        }
        var lines: [String] = []
        while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[..<end], as: UTF8.self))
            buffer.removeSubrange(...end)
        }
        return lines
    }

    /// Makes `path` an empty file, for a child to write its lines (or its errors) to: fresh
    /// for each start.
    static func emptyFile(_ path: String) {
        unlink(path)
        close(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644))
    }
}
