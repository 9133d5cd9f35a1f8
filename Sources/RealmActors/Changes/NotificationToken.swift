import Dispatch
internal import RealmRuntime
import Synchronization

/// Keeps a notification block registered; ``invalidate()`` (or releasing every reference to
/// the token) stops it. Returned by the `observe(…)` methods, which are Realm Swift's callback
/// API over the same notifier as the ``RealmChanges`` streams.
public final class NotificationToken: Sendable {
    /// The observer's registration with the notifier (for `write(withoutNotifying:)`); 0 until
    /// a queue-delivered observer has registered (it registers asynchronously).
    var registrationID: UInt64 { registration.load(ordering: .acquiring) }
    private let registration: Atomic<UInt64>
    /// The delivery loop; guarded by its own lock, so `invalidate()` and `run(_:)` may race.
    private let task: Lock<Task<Void, Never>?>
    private let invalidated = Atomic<Bool>(false)

    init(registrationID: UInt64) {
        registration = Atomic(registrationID)
        task = Lock(nil)
    }

    /// Records the registration of an observer that registered after its token was returned.
    func registered(as id: UInt64) {
        registration.store(id, ordering: .releasing)
    }

    deinit { invalidate() }

    /// Stops notifications: no block call starts after this returns, and the observer is
    /// unregistered.
    public func invalidate() {
        invalidated.store(true, ordering: .releasing)
        task.withLock { $0?.cancel() }
    }

    var isInvalidated: Bool { invalidated.load(ordering: .acquiring) }

    /// Runs `body` (the delivery loop) until invalidated.
    func run(_ body: @escaping @Sendable () async -> Void) {
        task.withLock { task in
            task = Task { await body() }
            if isInvalidated { task?.cancel() }
        }
    }
}

extension RealmChanges {
    /// Registers with the notifier now, calls `block` on `actor` with each element (the first
    /// one before returning, for streams that have one), and returns the token that stops it.
    /// Traps if the file can no longer be read (the stream is of a live handle's file).
    func observe<A: Actor>(on actor: A, firstElement: Bool,
                           _ block: @escaping @Sendable (isolated A, Element) -> Void) async -> NotificationToken {
        var iterator = makeAsyncIterator()
        guard let id = await iterator.register() else { fatalError("The realm file can no longer be read") }
        let token = NotificationToken(registrationID: id)
        if firstElement, let first = await iterator.next() {
            await Self.deliver(first, to: block, on: actor, unless: token)
        }
        token.run { [iterator, weak token] in
            var iterator = iterator
            while let element = await iterator.next() {
                guard let token else { return }
                await Self.deliver(element, to: block, on: actor, unless: token)
            }
        }
        return token
    }

    /// Calls `block` on `queue` with each element, in order, from a registration made in the
    /// background: the token is returned at once, and the first element (for streams that have
    /// one) arrives on the queue like the others. Each call finishes before the next starts.
    /// Without a queue, elements are delivered on a serial queue of the token's own.
    func observe(on queue: DispatchQueue?, _ block: @escaping @Sendable (Element) -> Void) -> NotificationToken {
        let token = NotificationToken(registrationID: 0)
        let queue = queue ?? DispatchQueue(label: "RealmActors.observe")
        token.run { [weak token] in
            var iterator = makeAsyncIterator()
            guard let id = await iterator.register() else { return }
            token?.registered(as: id)
            while let element = await iterator.next() {
                guard let token, !token.isInvalidated else { return }
                await withCheckedContinuation { (delivered: CheckedContinuation<Void, Never>) in
                    queue.async {
                        if !token.isInvalidated { block(element) }
                        delivered.resume()
                    }
                }
            }
        }
        return token
    }

    private static func deliver<A: Actor>(_ element: Element, to block: @Sendable (isolated A, Element) -> Void,
                                          on actor: isolated A, unless token: NotificationToken) {
        guard !token.isInvalidated else { return }
        block(actor, element)
    }
}
