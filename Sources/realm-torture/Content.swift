import Foundation
import RealmActors

// The classes every torture workload writes, and the values they hold.
//
// Every stored value is a pure function of a ``ValueSpec`` (a 64-bit key and a byte length), so
// the driver's model keeps 16 bytes and a hash per value instead of the value itself, and a
// checker can tell any changed byte from the hash.

/// An object with a text of 0 B – 64 KB: the insert/update/delete churn of `churn` and `actors`.
final class TortureItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    /// Updated alone by some commits: the fixed-width in-place update path.
    @Persisted var number = 0
}

/// An object with optional binary data (0 B – 64 KB).
final class TortureBlob: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var data: Data?
}

/// A graph node whose link and list are rewritten by `links`.
final class TortureNode: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var next: TortureNode?
    @Persisted var children: List<TortureNode>
}

/// How far lane `id` of the current run got: written in the same transaction as the lane's
/// changes, so the file says exactly which commits it holds.
final class TortureProgress: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var run = 0
    @Persisted var commit = 0
}

/// Incremented by every commit of every lane of `actors`: its value is the sum of the lanes'
/// commits, which checks that group-committed transactions are all-or-nothing together.
final class TortureCounter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}

let tortureTypes: [ObjectBase.Type] = [TortureItem.self, TortureBlob.self, TortureNode.self, TortureProgress.self, TortureCounter.self,
                                          TortureAccount.self]

/// SplitMix64: small, fast, and the same sequence everywhere.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }
}

/// Mixes numbers into one seed.
func mix(_ values: UInt64...) -> UInt64 {
    var random = SplitMix(0x243F_6A88_85A3_08D3)
    for value in values { random.state ^= value; _ = random.next() }
    return random.next()
}

/// A stored value, by what generates it.
struct ValueSpec: Hashable, Sendable {
    var key: UInt64
    var length: Int

    /// Value sizes of a mixed workload, 0 B – `maximum`: mostly small, many 1–4 KB (the medium
    /// values text and JSON bodies have), some large.
    static func random(_ random: inout SplitMix, maximum: Int) -> ValueSpec {
        let roll = random.below(100)
        let length = switch roll {
        case ..<40: random.below(200)
        case ..<75: 200 + random.below(3_800)
        case ..<93: 4_000 + random.below(12_000)
        default: 16_000 + random.below(48_001)
        }
        return ValueSpec(key: random.next(), length: min(length, maximum))
    }

    /// The bytes: pseudo-random, starting with the key and length when they fit, so a value
    /// moved to the wrong place shows.
    var data: Data {
        var bytes = [UInt8](repeating: 0, count: length)
        var random = SplitMix(key)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            if length >= 16 {
                buffer.storeBytes(of: key.littleEndian, toByteOffset: 0, as: UInt64.self)
                buffer.storeBytes(of: UInt64(length).littleEndian, toByteOffset: 8, as: UInt64.self)
                offset = 16
            }
            while offset + 8 <= length {
                buffer.storeBytes(of: random.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < length {
                buffer[offset] = UInt8(truncatingIfNeeded: random.next())
                offset += 1
            }
        }
        return Data(bytes)
    }

    /// Valid UTF-8 of exactly `length` bytes: mostly ASCII, with two- and three-byte characters.
    var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var random = SplitMix(key)
        let prefix = Array("\(key % 1_000_000):".utf8)
        if prefix.count <= length { bytes += prefix }
        while bytes.count < length {
            let room = length - bytes.count
            let roll = random.below(16)
            if roll == 0 && room >= 3 {
                bytes += [0xE2, 0x82, 0xAC]  // €
            } else if roll == 1 && room >= 2 {
                bytes += [0xC3, 0xA9]  // é
            } else {
                bytes.append(UInt8(97 + random.below(26)))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A 64-bit hash of bytes (word at a time; enough to tell any change).
func contentHash(_ buffer: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(buffer.count)
    var offset = 0
    while offset + 8 <= buffer.count {
        hash = (hash ^ buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x1000_0000_01B3
        hash ^= hash >> 29
        offset += 8
    }
    while offset < buffer.count {
        hash = (hash ^ UInt64(buffer[offset])) &* 0x1000_0000_01B3
        offset += 1
    }
    return hash ^ (hash >> 32)
}

func contentHash(_ data: Data) -> UInt64 { data.withUnsafeBytes { contentHash($0) } }

func contentHash(_ text: String) -> UInt64 {
    var text = text
    return text.withUTF8 { contentHash(UnsafeRawBufferPointer($0)) }
}
