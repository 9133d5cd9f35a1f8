#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the CPU can do, asked once per process.
///
/// Swift cannot run CPUID (no inline assembly; LLVM has no CPUID intrinsic), so the operating
/// system is asked instead; it has run CPUID (x86-64) or read the ID registers (arm64) for us:
///
/// - Linux: the feature names of `/proc/cpuinfo` — on x86-64 its `flags` line (`aes`: CPUID
///   leaf 1, ECX bit 25; `sha_ni`: leaf 7, EBX bit 29; shown only if the kernel and hypervisor
///   expose them), on arm64 its `Features` line (`aes`, `sha2`: HWCAP_AES, HWCAP_SHA2). An
///   unreadable file means neither: the portable paths are always correct.
/// - Apple arm64: every Apple silicon core has the ARMv8 AES and SHA-256 instructions; `sysctl
///   hw.optional.arm.FEAT_AES` / `FEAT_SHA256` confirm it where the system has those names.
/// - Apple x86-64: `sysctl machdep.cpu.features` (CPUID leaf 1 names, including `AES`) and
///   `machdep.cpu.leaf7_features` (including `SHA`).
package enum CPUFeatures {
    /// Whether the CPU has AES instructions (AES-NI, or the ARMv8 Cryptography Extension).
    package static let hasAES: Bool = {
        #if os(Linux)
        return linuxFeatures.contains("aes")
        #elseif canImport(Darwin) && arch(arm64)
        return sysctlFlag("hw.optional.arm.FEAT_AES") ?? true  // older systems lack the name
        #elseif canImport(Darwin) && arch(x86_64)
        return sysctlWords("machdep.cpu.features").contains("AES")
        #else
        return false
        #endif
    }()

    /// Whether the CPU has SHA-256 instructions (SHA-NI on x86-64, SHA2 of the ARMv8
    /// Cryptography Extension on arm64).
    package static let hasSHA256: Bool = {
        #if os(Linux) && arch(x86_64)
        return linuxFeatures.contains("sha_ni")
        #elseif os(Linux)
        return linuxFeatures.contains("sha2")
        #elseif canImport(Darwin) && arch(arm64)
        return sysctlFlag("hw.optional.arm.FEAT_SHA256") ?? true  // older systems lack the name
        #elseif canImport(Darwin) && arch(x86_64)
        return sysctlWords("machdep.cpu.leaf7_features").contains("SHA")
        #else
        return false
        #endif
    }()

    #if os(Linux)
    /// The feature names of the first `flags` (x86-64) or `Features` (arm64) line of
    /// `/proc/cpuinfo`; empty if the file cannot be read.
    private static let linuxFeatures: Set<Substring> = {
        guard let text = readFile("/proc/cpuinfo") else { return [] }
        for line in text.split(separator: "\n") where line.hasPrefix("flags") || line.hasPrefix("Features") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return Set(line[line.index(after: colon)...].split(separator: " "))
        }
        return []
    }()

    /// The whole of a small file (procfs reports no size), or nil.
    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 4 << 20 {
            // Safe: `read` writes at most `$0.count` bytes, into `chunk`'s own storage.
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif

    #if canImport(Darwin)
    /// A 0/1 `sysctl` value, or nil where the system does not have the name.
    private static func sysctlFlag(_ name: String) -> Bool? {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        // Safe: `value` is an Int32 and `size` says so; the kernel writes at most `size` bytes.
        guard sysctlbyname(name, &value, &size, nil, 0) == 0 else { return nil }
        return value != 0
    }

    /// The space-separated words of a string `sysctl` value (empty if there is none).
    private static func sysctlWords(_ name: String) -> [Substring] {
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return [] }
        var buffer = [CChar](repeating: 0, count: size + 1)
        // Safe: `buffer` has `size` bytes and one more for a terminator the kernel may omit.
        guard sysctlbyname(name, &buffer, &size, nil, 0) == 0 else { return [] }
        let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ")
    }
    #endif
}
