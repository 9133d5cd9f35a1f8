import CRealmPrefetch

/// A software prefetch: a hint that the CPU should start loading a cache line now because it will
/// be read soon. The load does not block (the core goes on executing), it never faults (an address
/// that is not mapped is ignored), and it changes no memory, so it is safe on any address.
///
/// Swift has no prefetch function, so this calls C's `__builtin_prefetch` through the small C
/// target `CRealmPrefetch` (a `static inline` function, inlined into the scan loops of an
/// optimised build: one `prefetcht0` on x86-64, `prfm pldl1keep` on arm64). Scans use it to
/// overlap the cache and TLB misses of the next leaves with the work on the current one.
enum Prefetch {
    /// Prefetches the line holding `address` into all cache levels, for reading.
    @inline(__always)
    static func read(_ address: UnsafeRawPointer) {
        realm_prefetch_read(address)
    }
}
