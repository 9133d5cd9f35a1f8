import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OrderServiceApp
import RealmActors
import Synchronization
import ServiceLifecycle
import Testing

/// The example service on loopback (`.live`: a real HTTP server and client): orders written and
/// read, user predicates answered with 400, and change events streamed as server-sent events.
@Suite(.timeLimit(.minutes(2))) struct OrderServiceTests {
    final class TemporaryDirectory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("OrderServiceTests-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func application(_ directory: TemporaryDirectory) async throws -> some ApplicationProtocol {
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("orders.realm"), objectTypes: [Order.self])
        return try await buildApplication(configuration: configuration, port: 0, logger: Logger(label: "order-service-tests"))
    }

    static func json(_ order: OrderDTO) throws -> ByteBuffer {
        ByteBuffer(data: try JSONEncoder().encode(order))
    }

    @Test func ordersAreWrittenAndRead() async throws {
        let directory = try TemporaryDirectory()
        let app = try await Self.application(directory)
        try await app.test(.live) { client in
            for id in 1...5 {
                try await client.execute(uri: "/orders", method: .post, body: Self.json(OrderDTO(id: id, item: "tea", quantity: id))) { response in
                    #expect(response.status == .created)
                    let order = try JSONDecoder().decode(OrderDTO.self, from: Data(buffer: response.body))
                    #expect(order.id == id)
                }
            }
            try await client.execute(uri: "/orders/3", method: .get) { response in
                let order = try JSONDecoder().decode(OrderDTO.self, from: Data(buffer: response.body))
                #expect(order == OrderDTO(id: 3, item: "tea", quantity: 3))
            }
            try await client.execute(uri: "/orders/99", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/orders?filter=quantity%20%3E%203", method: .get) { response in
                let orders = try JSONDecoder().decode([OrderDTO].self, from: Data(buffer: response.body))
                #expect(orders.map(\.id) == [4, 5])
            }
            try await client.execute(uri: "/orders?limit=2", method: .get) { response in
                let orders = try JSONDecoder().decode([OrderDTO].self, from: Data(buffer: response.body))
                #expect(orders.count == 2)
            }
            // The user's own SORT, then the service's limit.
            try await client.execute(uri: "/orders?filter=quantity%20%3E%200%20SORT(quantity%20DESC)&limit=2", method: .get) { response in
                let orders = try JSONDecoder().decode([OrderDTO].self, from: Data(buffer: response.body))
                #expect(orders.map(\.id) == [5, 4])
            }
            // A duplicate id is the client's mistake.
            try await client.execute(uri: "/orders", method: .post, body: Self.json(OrderDTO(id: 1, item: "tea", quantity: 1))) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func malformedPredicatesAreBadRequests() async throws {
        let directory = try TemporaryDirectory()
        let app = try await Self.application(directory)
        try await app.test(.live) { client in
            for filter in ["quantity%20%3E", "nosuch%20==%201", String(repeating: "(", count: 5_000), "quantity%20==%20'x'"] {
                try await client.execute(uri: "/orders?filter=\(filter)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(filter.prefix(40))")
                    #expect(String(buffer: response.body).contains("predicate") || String(buffer: response.body).contains("property"),
                            "\(String(buffer: response.body))")
                }
                try await client.execute(uri: "/orders/events?filter=\(filter)", method: .get) { response in
                    #expect(response.status == .badRequest)
                }
            }
        }
    }

    @Test func changesArriveAsServerSentEvents() async throws {
        let directory = try TemporaryDirectory()
        let app = try await Self.application(directory)
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("orders.realm"), objectTypes: [Order.self])
        try await app.test(.live) { client in
            try await client.execute(uri: "/orders", method: .post, body: Self.json(OrderDTO(id: 1, item: "tea", quantity: 1)))
            // Another writer of the file, in this process (the one HTTP connection is busy with
            // the stream). It commits until the stream has delivered its two events: the
            // initial count, then an update — a commit made before observation began is in the
            // initial count only, so one commit is not enough to be sure.
            let writer = try await Realm.open(configuration: configuration)
            let received = Mutex(false)
            async let stream: String = client.execute(uri: "/orders/events?filter=item%20==%20'tea'&limit=2", method: .get) { response in
                #expect(response.headers[.contentType] == "text/event-stream")
                received.withLock { $0 = true }
                return String(buffer: response.body)
            }
            var id = 2
            while !received.withLock({ $0 }) {
                try await writer.asyncWrite { writer.add(Order(value: ["id": id, "item": "tea", "quantity": 1])) }
                id += 1
                await Task.yield()
            }
            let body = try await stream
            #expect(body.hasPrefix("event: initial\ndata: {\"count\":"), "\(body)")
            #expect(body.contains("event: update\ndata: {\"count\":"), "\(body)")
        }
    }
    /// A client that goes away ends its change stream at once: its observer is released without
    /// waiting for a commit that would have been sent to it (Hummingbird does not cancel a
    /// response body's task on disconnect by itself; `serverSentEvents(for:_:)` makes it).
    @Test func aClientThatDisconnectsReleasesItsObserverAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let app = try await Self.application(directory)
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("orders.realm"), objectTypes: [Order.self])
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let realm = try await Realm.open(configuration: configuration)
            #expect(realm.numberOfChangeObservers == 0)
            // A raw HTTP client on loopback: asks for the stream, reads until the first event,
            // then closes the connection.
            let received = try await RawHTTPClient.onThread { try RawHTTPClient.readFirstEventThenClose(port: port, path: "/orders/events") }
            #expect(received.contains("event: initial"))
            // No commit happens from here on: the observer must go by itself.
            let deadline = ContinuousClock.now + .seconds(20)
            while realm.numberOfChangeObservers > 0, ContinuousClock.now < deadline { await Task.yield() }
            #expect(realm.numberOfChangeObservers == 0)
        }
    }
}

/// SIGTERM's path without the signal: the service in a `ServiceGroup`, a client with an events
/// stream open, then a graceful shutdown. The group must finish — the stream ending with it — not
/// wait for the stream, which no commit would ever end (the hang the issue reported).
@Suite(.timeLimit(.minutes(2))) struct OrderServiceShutdownTests {
    @Test func gracefulShutdownEndsOpenEventStreams() async throws {
        let directory = try OrderServiceTests.TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("orders.realm"), objectTypes: [Order.self])
        let logger = Logger(label: "order-service-shutdown-tests")
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try await buildApplication(configuration: configuration, port: 0, logger: logger) { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let running = Task { try await group.run() }
        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())
        let (events, eventContinuation) = AsyncStream.makeStream(of: String.self)
        let client = Task {
            try await RawHTTPClient.onThread {
                try RawHTTPClient.readUntilEnd(port: port, path: "/orders/events") { eventContinuation.yield($0) }
            }
        }
        var eventIterator = events.makeAsyncIterator()
        let first = try #require(await eventIterator.next())
        #expect(first.contains("event: initial"))
        let began = ContinuousClock.now
        await group.triggerGracefulShutdown()
        // The group must finish by itself; after 20 s it is cancelled and the test fails (a
        // guard against hanging the suite, not a synchronization).
        let finished = await withTaskGroup(of: Bool.self) { waiting in
            waiting.addTask { (try? await running.value) != nil }
            waiting.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await waiting.next() ?? false
            if !first { running.cancel() }
            waiting.cancelAll()
            return first
        }
        #expect(finished, "the service group did not finish within 20 s of a graceful shutdown")
        #expect(ContinuousClock.now - began < .seconds(10))
        // The response ended (its last chunk came): the stream did not outlive the service.
        let received = try await client.value
        #expect(received.contains("event: initial"))
        #expect(received.hasSuffix("\r\n0\r\n\r\n"))
    }
}

/// A minimal blocking HTTP/1.1 client over a POSIX socket, for the disconnect and shutdown tests.
enum RawHTTPClient {
    /// Runs a blocking client on a thread of its own. Never on the concurrency pool (not in
    /// `Task.detached` either): on a 2-core machine the pool has two threads, and two clients
    /// blocked in `recv` there left none for the server that was to answer them — CI hung so.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Sends `GET path`, calls `firstEvent` with what was received once a whole event came, and
    /// reads on until the response ends (the last chunk of a chunked body) or the server closes
    /// the connection; returns everything received.
    static func readUntilEnd(port: Int, path: String, firstEvent: (String) -> Void) throws -> String {
        let descriptor = try connected(port: port, path: path)
        defer { close(descriptor) }
        var received = ""
        var reported = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
            if !reported, received.contains("event:"), received.contains("\n\n") {
                reported = true
                firstEvent(received)
            }
            if received.hasSuffix("\r\n0\r\n\r\n") { break }
        }
        return received
    }

    /// A socket connected to the port on loopback, with `GET path` sent.
    static func connected(port: Int, path: String) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
        return descriptor
    }

    /// Sends `GET path`, reads until the first whole event, then closes the connection.
    static func readFirstEventThenClose(port: Int, path: String) throws -> String {
        let descriptor = try connected(port: port, path: path)
        defer { close(descriptor) }
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains("\n\n") || !received.contains("event:") {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return received
    }
}
