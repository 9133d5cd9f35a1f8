internal import RealmRuntime

/// A stream of changes computed by the file's notifier actor: an `AsyncSequence` whose
/// elements are `Sendable` snapshots, so it can be iterated on any actor or task.
///
/// Observation starts when iteration starts (for collections, when `.initial` is delivered:
/// every write committed after receiving it is reported) and ends when the loop ends, breaks or
/// its task is cancelled. A consumer slower than the commits gets one element covering all of
/// them: nothing is buffered per commit, only the newest state is kept.
public struct RealmChanges<Element: Sendable>: AsyncSequence, Sendable {
    /// Registers the observer with the notifier when iteration starts.
    let start: @Sendable () async -> Registration?
    /// The public form of one of the notifier's elements (nil ends the stream).
    let element: @Sendable (ChangeElement) -> Element?

    /// The same stream with each element transformed.
    func map<Other: Sendable>(_ transform: @escaping @Sendable (Element) -> Other) -> RealmChanges<Other> {
        let element = self.element
        return RealmChanges<Other>(start: start, element: { element($0).map(transform) })
    }

    /// An iterator; iterate with `for await`.
    public func makeAsyncIterator() -> Iterator { Iterator(start: start, element: element) }

    /// The iterator of ``RealmChanges``.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let start: @Sendable () async -> Registration?
        let element: @Sendable (ChangeElement) -> Element?
        var registration: Registration?
        var ended = false

        /// Registers with the notifier (if not yet) and returns the registration's id; nil if
        /// the file cannot be read.
        mutating func register() async -> UInt64? {
            if registration == nil && !ended { registration = await start() }
            return registration?.id
        }

        /// The next change; nil once the stream has ended. The form `for await` uses, so a loop
        /// on an actor (or the main actor) compiles without isolation errors; the waiting and
        /// computing happen on the notifier.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await next()
        }

        /// The next change; nil once the stream has ended.
        public mutating func next() async -> Element? {
            guard !ended else { return nil }
            if registration == nil { registration = await start() }
            guard let registration, let change = await registration.notifier.next(registration.id),
                  let element = element(change) else {
                ended = true
                registration = nil  // unregisters
                return nil
            }
            return element
        }
    }
}

/// An observer's registration with the notifier; dropping it (the iterator goes away, the loop
/// ended) unregisters the observer.
final class Registration: Sendable {
    let notifier: Notifier
    let id: UInt64

    init(notifier: Notifier, id: UInt64) {
        self.notifier = notifier
        self.id = id
    }

    deinit {
        Task { [notifier, id] in await notifier.unregister(id) }
    }
}
