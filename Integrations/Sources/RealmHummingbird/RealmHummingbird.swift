public import Hummingbird
import NIOCore
import ServiceLifecycle
public import RealmActors

extension HTTPError {
    /// The HTTP error for a `Realm.Error`: `400 Bad Request` with the error's message for bad
    /// input from the client (a malformed predicate, a value of the wrong type or too large, a
    /// duplicate primary key); `507 Insufficient Storage` for a full disk; `503 Service
    /// Unavailable` when too many versions are pinned; `500` otherwise, without the message (it
    /// names files and internals a client need not see).
    public init(_ error: Realm.Error) {
        switch error.code {
        case .invalidInput: self.init(.badRequest, message: error.message)
        case .outOfDiskSpace: self.init(.init(code: 507, reasonPhrase: "Insufficient Storage"))
        case .maximumActiveVersionsExceeded: self.init(.serviceUnavailable)
        default: self.init(.internalServerError)
        }
    }
}

/// One server-sent event: `event:` (optional), `id:` (optional) and `data:` lines.
public struct ServerSentEvent: Sendable {
    public var event: String?
    public var id: String?
    public var data: String

    public init(event: String? = nil, id: String? = nil, data: String) {
        self.event = event
        self.id = id
        self.data = data
    }

    /// The event as the `text/event-stream` format writes it (a blank line ends it).
    var text: String {
        var text = ""
        if let event { text += "event: \(event)\n" }
        if let id { text += "id: \(id)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }
}

extension Response {
    /// A `text/event-stream` response writing each element of `events` as it comes — say, a
    /// realm change stream mapped to events. The stream ends, and a `changes` stream's observer
    /// is removed, at once rather than at the next commit it would have reported:
    /// - when the client disconnects: it is iterated in a task that is cancelled then
    ///   (Hummingbird's `consumeWithCancellationOnInboundClose`);
    /// - when the service shuts down gracefully (SIGTERM in a `ServiceGroup`): it is iterated
    ///   with swift-service-lifecycle's `cancelOnGracefulShutdown()`. Without it the server
    ///   would wait for the response to finish, which a stream of changes never does on its own.
    public static func serverSentEvents<Events: AsyncSequence & Sendable>(
        for request: Request, _ events: Events
    ) -> Response where Events.Element == ServerSentEvent {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        for try await event in events.cancelOnGracefulShutdown() {
                            try await writer.write(ByteBuffer(string: event.text))
                        }
                    }
                } catch is CancellationError {
                    // The client went away.
                }
                try await writer.finish(nil)
            })
    }
}
