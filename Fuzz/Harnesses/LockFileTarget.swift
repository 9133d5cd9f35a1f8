#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import RealmStorage

/// `lockfile`: the words of the shared lock file (`LockFile`, FORMAT.md "Lock file"), which every
/// process attached to a realm reads and which anything able to write the file can change: the
/// header a joiner checks, the slots whose pins a writer reads, the published versions a
/// follower adopts.
///
/// Each run: a writing `Database` opens a small file (it is first: a valid lock file), the input
/// is applied to the lock file's mapping as patches — 10 bytes each, a little-endian 16-bit word
/// index into the first 4096 + 4 slots' bytes and a 64-bit value — and, if the input's first byte
/// is odd, the published buffers are resealed (their checksums recomputed, as ``PageSealing``
/// does for pages: so mutations reach the adopting code). Then a read-only process joins (a
/// second open: OFD locks make it another process), begins a read and reads every row; the writer
/// commits (reading every slot's pins) and publishes; the follower begins again; both close.
///
/// What must hold: each step succeeds or throws — no trap, no read past the file's end.
final class LockFileTarget: FuzzTarget {
    private let scratch = ScratchDirectory("lockfile")
    private static let layout = [ColumnSpec(.int)]
    /// The bytes the patches may reach: the header and published versions, and the first slots.
    private static let reach = LockFileLayout.slotsOffset + 4 * LockFileLayout.slotSize

    func run(_ input: Data) -> String {
        scratch.clear()
        let path = "\(scratch.path)/lock.realm"
        let bytes = [UInt8](input)
        do {
            let writer = try Database.open(path: path, options: DatabaseOptions(durability: .none))
            defer { try? writer.close() }
            let table = try Self.populate(writer)
            try Self.patch(lockFile: path + ".lock", with: bytes)
            var outcome: [String] = []
            var follower: Database?
            do {
                follower = try Database.open(path: path, options: DatabaseOptions(readOnly: true, durability: .none))
                outcome.append("joined")
                outcome.append(try Self.readAll(follower!, table))
            } catch {
                outcome.append("follower refused")
            }
            do {
                let write = try writer.beginWrite()
                try write.updateValue(table, key: 1, column: 0, value: .int(7), layout: Self.layout)
                try write.commit()
                outcome.append("committed")
            } catch {
                outcome.append("commit refused")
            }
            if let follower {
                outcome.append((try? Self.readAll(follower, table)) ?? "read refused")
                try? follower.close()
            }
            return outcome.joined(separator: ", ")
        } catch {
            return "refused: \(error)"
        }
    }

    /// Seed inputs: a flag byte (odd: reseal), then patches of (word index, value).
    static func seeds() -> [(String, [UInt8])] {
        func patch(_ offset: Int, _ value: UInt64) -> [UInt8] {
            let index = offset / 8
            return [UInt8(index & 0xFF), UInt8(index >> 8)] + (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let slot = LockFileLayout.slotsOffset + LockFileLayout.slotSize
        return [
            ("none", [0]),
            ("resealed", [1]),
            ("session", [0] + patch(LockFileLayout.sessionOffset, 0)),
            ("counter", [0] + patch(LockFileLayout.publishedCounterOffset, 5)),
            ("page-count", [1] + patch(LockFileLayout.publishedBuffersOffset + 16, 1 << 20)
                + patch(LockFileLayout.publishedBuffersOffset + LockFileLayout.publishedBufferSize + 16, 1 << 20)),
            ("slot", [0] + patch(slot + LockFileLayout.slotStateOffset, 1) + patch(slot + LockFileLayout.slotExactPinsOffset, 3)
                + patch(LockFileLayout.slotHighWaterOffset, 2)),
        ]
    }

    private static func populate(_ database: Database) throws -> TreeID {
        let write = try database.beginWrite()
        let table = try write.createTree()
        for key in 0..<UInt64(300) { try write.insertRow(table, key: key, values: [.int(Int64(key))], layout: layout) }
        try write.commit()
        return table
    }

    /// Reads every row of the newest version: the pages it reaches must be the file's.
    private static func readAll(_ database: Database, _ table: TreeID) throws -> String {
        let read = try database.beginRead()
        var rows = 0
        let root = try read.root(of: table)
        try read.forEachCluster(in: root) { leaf in
            rows += leaf.count
            return true
        }
        return "\(rows) rows at \(read.transaction)"
    }

    /// Applies the patches to the lock file through a mapping of its own (as another process
    /// would write it), resealing the published buffers if the first byte is odd.
    private static func patch(lockFile: String, with bytes: [UInt8]) throws {
        let descriptor = open(lockFile, O_RDWR)
        guard descriptor >= 0 else { throw StorageError(.fail, "no lock file") }
        defer { close(descriptor) }
        guard let mapping = mmap(nil, LockFileLayout.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
              mapping != MAP_FAILED else { throw StorageError(.fail, "cannot map the lock file") }
        defer { munmap(mapping, LockFileLayout.size) }
        var offset = 1
        while offset + 10 <= bytes.count {
            let index = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 2 + $1]) << (8 * $1) }
            let word = (index * 8) % reach
            mapping.storeBytes(of: value, toByteOffset: word, as: UInt64.self)
            offset += 10
        }
        if bytes.first.map({ $0 & 1 == 1 }) ?? false {
            for buffer in 0..<2 {
                let start = LockFileLayout.publishedBuffersOffset + buffer * LockFileLayout.publishedBufferSize
                var words = [UInt64](repeating: 0, count: LockFileLayout.publishedWords)  // a zero word, then 18
                for index in 0..<(LockFileLayout.publishedWords - 1) {
                    words[index + 1] = mapping.load(fromByteOffset: start + 8 * index, as: UInt64.self)
                }
                let checksum = words.withUnsafeBytes { PageChecksum.compute($0.baseAddress!, length: $0.count) }
                mapping.storeBytes(of: checksum, toByteOffset: start + 8 * (LockFileLayout.publishedWords - 1), as: UInt64.self)
            }
        }
    }
}
