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
/// - Linux: the `aes` flag of `/proc/cpuinfo` — on x86-64 in the `flags` line (CPUID leaf 1,
///   ECX bit 25, shown only if the kernel and hypervisor expose it), on arm64 in the `Features`
///   line (HWCAP_AES). An unreadable file means no AES: the portable path is always correct.
/// - Apple arm64: every Apple silicon core has the ARMv8 AES instructions; `sysctl
///   hw.optional.arm.FEAT_AES` confirms it where the system has that name.
/// - Apple x86-64: `sysctl machdep.cpu.features`, a list of CPUID feature names including `AES`.
package enum CPUFeatures {
    /// Whether the CPU has AES instructions (AES-NI, or the ARMv8 Cryptography Extension).
    package static let hasAES: Bool = detectAES()

    private static func detectAES() -> Bool {
        #if os(Linux)
        guard let text = readFile("/proc/cpuinfo") else { return false }
        for line in text.split(separator: "\n") where line.hasPrefix("flags") || line.hasPrefix("Features") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].split(separator: " ").contains("aes")
        }
        return false
        #elseif canImport(Darwin) && arch(arm64)
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if sysctlbyname("hw.optional.arm.FEAT_AES", &value, &size, nil, 0) == 0 { return value != 0 }
        return true  // older systems lack the name; the instructions are in every Apple arm64 core
        #elseif canImport(Darwin) && arch(x86_64)
        var size = 0
        guard sysctlbyname("machdep.cpu.features", nil, &size, nil, 0) == 0, size > 0 else { return false }
        var buffer = [CChar](repeating: 0, count: size + 1)
        guard sysctlbyname("machdep.cpu.features", &buffer, &size, nil, 0) == 0 else { return false }
        let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").contains("AES")
        #else
        return false
        #endif
    }

    #if os(Linux)
    /// The whole of a small file (procfs reports no size), or nil.
    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 4 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif
}
