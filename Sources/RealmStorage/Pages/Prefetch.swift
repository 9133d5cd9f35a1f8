/// A software prefetch: a hint that the CPU should start loading a cache line now because it will
/// be read soon. The load does not block (the core goes on executing), it never faults (an address
/// that is not mapped is ignored), and it changes no memory, so it is safe on any address.
///
/// Swift has no prefetch function, so this binds LLVM's `llvm.prefetch` intrinsic by name; it
/// compiles to `prefetcht0` on x86-64 and `prfm pldl1keep` on arm64. Scans use it to overlap the
/// cache and TLB misses of the next leaves with the work on the current one.
enum Prefetch {
    /// Prefetches the line holding `address` into all cache levels, for reading.
    @inline(__always)
    static func read(_ address: UnsafeRawPointer) {
        llvmPrefetch(address, 0, 3, 1)  // read, high temporal locality, data cache
    }
}

/// `llvm.prefetch(ptr, rw, locality, cache type)`: the arguments must be constants, which the
/// single caller above guarantees.
@_silgen_name("llvm.prefetch.p0")
private func llvmPrefetch(_ address: UnsafeRawPointer, _ readWrite: Int32, _ locality: Int32, _ cacheType: Int32)
