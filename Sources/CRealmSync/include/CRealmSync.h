// CRealmSync: what RealmStorage needs to share a lock file between processes and that Swift cannot
// call directly — `fcntl(2)` is variadic, and the open-file-description lock commands exist only
// as `_GNU_SOURCE` macros — plus atomic accesses to words of a `MAP_SHARED` mapping, which Swift's
// `Atomic` does not promise to order between processes (C11 atomics on a lock-free width are
// address-free: the same instructions order memory between processes mapping one file as between
// threads).
//
// `static inline` in the header, as `CRealmPrefetch`: nothing to link, and each call inlines.
#ifndef CREALMSYNC_H
#define CREALMSYNC_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#elif defined(__APPLE__)
#include <os/os_sync_wait_on_address.h>
#endif

#if defined(__linux__)
// Open-file-description ("OFD") locks, Linux 3.15+: owned by the open file description, not by the
// process, so (unlike POSIX record locks) closing another descriptor of the file does not drop
// them, two descriptions in one process conflict like two processes, and any thread may release
// them. The values are the kernel's ABI (include/uapi/asm-generic/fcntl.h).
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif
#define REALM_LOCK_GET F_OFD_GETLK
#define REALM_LOCK_SET F_OFD_SETLK
#define REALM_LOCK_SET_WAIT F_OFD_SETLKW
#else
// Darwin has no public OFD locks: POSIX record locks belong to the process and are all dropped
// when the process closes *any* descriptor of the file, and never conflict within a process. The
// library therefore opens a lock file once per process (its registry keeps one database per
// file) and never closes another descriptor of it while attached.
#define REALM_LOCK_GET F_GETLK
#define REALM_LOCK_SET F_SETLK
#define REALM_LOCK_SET_WAIT F_SETLKW
#endif

/// A lock request of `type` (`F_WRLCK`, `F_RDLCK`, `F_UNLCK`) on the one byte at `offset`. The
/// zeroed `l_pid` is what OFD lock requests require.
static inline struct flock realm_byte_range(short type, int64_t offset) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = (off_t)offset;
    lock.l_len = 1;
    return lock;
}

/// Locks the one byte at `offset` of the file open as `descriptor`: exclusively (a write lock; the
/// descriptor must be open for writing) or shared, waiting for a conflicting lock to go if `wait`.
/// Returns 0, or the errno (`EAGAIN`/`EACCES`: held elsewhere and not waiting; `EINTR` is retried).
/// The kernel releases the lock when the description's last descriptor closes — when the
/// process dies, too.
static inline int realm_lock_byte(int descriptor, int64_t offset, int exclusive, int wait) {
    struct flock lock = realm_byte_range(exclusive ? F_WRLCK : F_RDLCK, offset);
    for (;;) {
        if (fcntl(descriptor, wait ? REALM_LOCK_SET_WAIT : REALM_LOCK_SET, &lock) == 0) return 0;
        if (errno != EINTR) return errno;
    }
}

/// Releases this description's lock on the byte at `offset` (none held: nothing happens).
static inline int realm_unlock_byte(int descriptor, int64_t offset) {
    struct flock lock = realm_byte_range(F_UNLCK, offset);
    return fcntl(descriptor, REALM_LOCK_SET, &lock) == 0 ? 0 : errno;
}

/// Whether another description (another process, or on Linux another open of the file in this
/// one) holds a lock on the byte at `offset` that an exclusive lock would conflict with: 1 yes,
/// 0 no, or minus the errno.
static inline int realm_byte_is_locked(int descriptor, int64_t offset) {
    struct flock lock = realm_byte_range(F_WRLCK, offset);
    if (fcntl(descriptor, REALM_LOCK_GET, &lock) != 0) return -errno;
    return lock.l_type == F_UNLCK ? 0 : 1;
}

/// Sequentially consistent load and store of an aligned 64-bit word of shared memory.
static inline uint64_t realm_shared_load(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_SEQ_CST);
}

static inline void realm_shared_store(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_SEQ_CST);
}

/// Waits until the 32-bit word of shared memory at `address` may have changed from `expected`, or
/// `timeout_ns` passed: returns at once if it already differs. Spurious returns happen; callers
/// re-read the word. Shared between processes (no "private" flag): the kernel keys the wait by the
/// mapped file's page, not by this process's address.
static inline void realm_shared_wait(void *address, uint32_t expected, uint64_t timeout_ns) {
#if defined(__linux__)
    struct timespec timeout = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
    (void)syscall(SYS_futex, (uint32_t *)address, FUTEX_WAIT, expected, &timeout, NULL, 0);
#elif defined(__APPLE__)
    (void)os_sync_wait_on_address_with_timeout(address, expected, 4, OS_SYNC_WAIT_ON_ADDRESS_SHARED,
                                               OS_CLOCK_MACH_ABSOLUTE_TIME, timeout_ns);
#else
    (void)address; (void)expected; (void)timeout_ns;
#endif
}

/// Wakes every thread, in any process, waiting on the 32-bit word at `address`.
static inline void realm_shared_wake_all(void *address) {
#if defined(__linux__)
    (void)syscall(SYS_futex, (uint32_t *)address, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
#elif defined(__APPLE__)
    (void)os_sync_wake_by_address_all(address, 4, OS_SYNC_WAKE_BY_ADDRESS_SHARED);
#else
    (void)address;
#endif
}

/// Sequentially consistent load, store and add of an aligned 32-bit word of shared memory (the
/// width waits and wakes work on).
static inline uint32_t realm_shared_load32(const void *address) {
    return __atomic_load_n((const uint32_t *)address, __ATOMIC_SEQ_CST);
}

static inline uint32_t realm_shared_add32(void *address, uint32_t value) {
    return __atomic_add_fetch((uint32_t *)address, value, __ATOMIC_SEQ_CST);
}

static inline uint32_t realm_shared_sub32(void *address, uint32_t value) {
    return __atomic_sub_fetch((uint32_t *)address, value, __ATOMIC_SEQ_CST);
}

#endif
