import Foundation

/// A value guarded by a lock, for the few process-wide settings (such as the default
/// configuration) that any thread may read or replace.
///
/// `@unchecked Sendable` is sound because every access to `value` happens inside `withLock`,
/// under `lock`.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
