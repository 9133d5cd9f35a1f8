// `public` imports: the inlinable bodies below name their types, so the modules above see them.
#if REALM_PTHREAD_LOCKS
#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif
#else
public import Synchronization
#endif

/// The package's one lock: a value that is read and changed only inside ``withLock(_:)``, by one
/// thread at a time — the API of `Synchronization.Mutex`, which it is in a normal build.
///
/// Built with `-Xswiftc -DREALM_PTHREAD_LOCKS` (what `Scripts/sanitize.sh thread` does), it is a
/// `pthread_mutex_t` instead. `Mutex` on Linux is a raw futex that ThreadSanitizer does not know
/// about, so TSan sees no happens-before between two critical sections of the same `Mutex` and
/// reports every guarded access as a race; TSan intercepts `pthread_mutex_lock`, so with this
/// flag a report is a real unguarded access. The pthread mutex also checks for errors: locking
/// it again on the thread that holds it traps instead of deadlocking.
///
/// `public @inlinable` (like `ClusterLeaf`'s read accessors) only so that `withLock` inlines into
/// the layers above: `@inlinable` on a `package` declaration does not cross modules with this
/// toolchain. RealmStorage is not a product, so users never see it.
@frozen
public struct Lock<Value>: ~Copyable {
    #if REALM_PTHREAD_LOCKS
    @usableFromInline let storage: PthreadLockStorage<Value>
    #else
    @usableFromInline let mutex: Mutex<Value>
    #endif

    /// A lock guarding `initialValue`, which is from now on reached only through ``withLock(_:)``.
    @inlinable
    public init(_ initialValue: consuming sending Value) {
        #if REALM_PTHREAD_LOCKS
        storage = PthreadLockStorage(initialValue)
        #else
        mutex = Mutex(initialValue)
        #endif
    }

    /// Runs `body` with exclusive access to the guarded value, blocking while another thread holds
    /// the lock, and returns what `body` returns. The lock is released when `body` returns or
    /// throws. Locking again from inside `body` is a programmer error (a trap, or a deadlock).
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if REALM_PTHREAD_LOCKS
        try storage.withLock(body)
        #else
        try mutex.withLock(body)
        #endif
    }
}

// Sendable like `Mutex`, whatever `Value` is: the value only ever moves in and out as `sending`
// (a region no other code holds), and is reached only under the lock.
extension Lock: Sendable {}

#if REALM_PTHREAD_LOCKS
/// A `pthread_mutex_t` and the value it guards, for ``Lock`` in a sanitizer build. A class
/// because a pthread mutex must not move while in use: its address is fixed at allocation.
///
/// The value lives in its own allocation too, not in a stored property: with a stored property,
/// a lock guarding nothing (`Lock(())`, which serializes a section) made ThreadSanitizer report
/// a "Swift access race" on every contended `withLock`. TSan records the `inout` access to a
/// zero-sized property at the object's own address, and `withLock` reads the object's first word
/// (its class metadata, for the generic property's offset) before taking the mutex: a race
/// between an access to no bytes and a read of a word nothing ever writes. Reproduced outside
/// the project (a generic class with a pthread mutex and a `Void` property, 4 threads: 1 report;
/// with an `Int` property, or with the value behind a pointer, none). Behind a pointer, TSan
/// still sees every access to the value's bytes, and the `inout` access itself is still checked
/// (a thread bypassing the mutex is reported).
// @unchecked Sendable: `value`'s pointee is read and written only between `pthread_mutex_lock`
// and `pthread_mutex_unlock` of `mutex` (in `withLock`), and enters and leaves only as `sending`.
@usableFromInline
final class PthreadLockStorage<Value>: @unchecked Sendable {
    // The mutex lives in its own allocation, at a fixed address for the object's lifetime.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Initialized from `init` to `deinit`, guarded by `mutex` (see the class's comment).
    @usableFromInline let value: UnsafeMutablePointer<Value>

    @usableFromInline
    init(_ initialValue: consuming sending Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    @inlinable
    func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "Lock.withLock: pthread_mutex_lock failed with \(status) (EDEADLK: the lock is already held by this thread)")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
#endif
