// CRealmPrefetch: the software prefetch RealmStorage's scans issue, which Swift has no function
// for. C has one, `__builtin_prefetch`, which compiles to `prefetcht0` on x86-64 and
// `prfm pldl1keep` on arm64. (Binding LLVM's `llvm.prefetch` intrinsic to a Swift function by
// name worked in plain builds but crashed the compiler under ThreadSanitizer.)
//
// `static inline` in the header, so the Swift code that calls it gets the single instruction
// inlined in an optimised build: no call, no symbol, nothing to link.
#ifndef CREALMPREFETCH_H
#define CREALMPREFETCH_H

/// Asks the CPU to start loading the cache line holding `address` into all cache levels, for
/// reading. It does not wait for the load, never faults (an unmapped address is ignored) and
/// changes no memory, so any address is safe — even one past a damaged page's end.
static inline __attribute__((always_inline)) void realm_prefetch_read(const void *address) {
    __builtin_prefetch(address, 0 /* read */, 3 /* high temporal locality: keep in all levels */);
}

#endif
