import Foundation
public import Hummingbird
public import Logging
public import NIOCore
public import RealmActors
import RealmHummingbird
import RealmServiceLifecycle

/// An order, as the service stores it.
public final class Order: Object {
    @Persisted(primaryKey: true) public var id = 0
    @Persisted(indexed: true) public var item = ""
    @Persisted public var quantity = 0
    @Persisted public var status = "open"
}

/// An order as the API reads and writes it.
public struct OrderDTO: ResponseCodable, Equatable, Sendable {
    public var id: Int
    public var item: String
    public var quantity: Int
    public var status: String

    public init(id: Int, item: String, quantity: Int, status: String = "open") {
        self.id = id
        self.item = item
        self.quantity = quantity
        self.status = status
    }

    init(_ order: Frozen<Order>) {
        self.init(id: order.id, item: order.item, quantity: order.quantity, status: order.status)
    }
}

/// The one writer of the service's realm (RealmActors' pattern for servers: one writer actor,
/// frozen snapshots for readers; see the "Using RealmActors in a Server" article).
public actor OrderStore {
    private var realm: Realm!

    public init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// Stores a new order; a duplicate id fails the write with `invalidInput`.
    public func place(_ order: OrderDTO) async throws -> OrderDTO {
        let placed = try await realm.asyncWrite {
            realm.create(Order.self, value: ["id": order.id, "item": order.item, "quantity": order.quantity, "status": order.status])
        }
        return OrderDTO(placed.freeze())
    }

    /// The newest version, for readers.
    public func snapshot() -> FrozenRealm { realm.freeze() }

    /// Changes of the orders matching `filter` (a user's predicate, checked), for a stream.
    public func changes(filter: String?) throws -> RealmChanges<RealmCollectionChange<FrozenResults<Order>>> {
        var orders = realm.objects(Order.self)
        if let filter { orders = try orders.filter(validating: filter) }
        return orders.changes
    }
}

/// The routes:
/// - `POST /orders` (JSON `OrderDTO`) → 201 and the order; 400 for a duplicate id or bad JSON.
/// - `GET /orders?filter=RQL&limit=N` → the matching orders (at most `limit`, default 100, at
///   most 1,000; by id unless the filter has a `SORT`); 400 with the parser's message for a
///   malformed predicate.
/// - `GET /orders/{id}` → the order, or 404.
/// - `GET /orders/events?filter=RQL&limit=N` → server-sent events: `initial` with the count, then
///   `update` per commit that changes the matching orders; ends after `limit` events if given,
///   and when the client disconnects.
public func buildRouter(store: OrderStore) -> Router<BasicRequestContext> {
    let router = Router()
    router.post("orders") { request, context -> EditedResponse<OrderDTO> in
        let order = try await request.decode(as: OrderDTO.self, context: context)
        do {
            return EditedResponse(status: .created, response: try await store.place(order))
        } catch let error as Realm.Error {
            throw HTTPError(error)
        }
    }
    router.get("orders") { request, _ -> [OrderDTO] in
        let limit = min(max(0, request.uri.queryParameters.get("limit", as: Int.self) ?? 100), 1_000)
        let orders = await store.snapshot().objects(Order.self)
        guard let filter = request.uri.queryParameters.get("filter") else { return orders.prefix(limit).map(OrderDTO.init) }
        do {
            // The limit goes into the query: the scan stops after `limit` matches (unless the
            // user's own SORT comes first), so a broad filter costs no more than a page of it.
            return try orders.filter(validating: "\(filter) LIMIT(\(limit))").map(OrderDTO.init)
        } catch let error as Realm.Error {
            throw HTTPError(error)
        }
    }
    router.get("orders/events") { request, _ -> Response in
        let limit = request.uri.queryParameters.get("limit", as: Int.self)
        let changes: RealmChanges<RealmCollectionChange<FrozenResults<Order>>>
        do {
            changes = try await store.changes(filter: request.uri.queryParameters.get("filter"))
        } catch let error as Realm.Error {
            throw HTTPError(error)
        }
        let events = changes.map { change -> ServerSentEvent in
            switch change {
            case .initial(let orders): ServerSentEvent(event: "initial", data: "{\"count\":\(orders.count)}")
            case .update(let orders, let deletions, let insertions, let modifications):
                ServerSentEvent(event: "update", data: "{\"count\":\(orders.count),\"deletions\":\(deletions),\"insertions\":\(insertions),\"modifications\":\(modifications)}")
            case .error(let error): ServerSentEvent(event: "error", data: "\(error)")
            }
        }
        if let limit { return .serverSentEvents(for: request, events.prefix(max(0, limit))) }
        return .serverSentEvents(for: request, events)
    }
    router.get("orders/{id}") { _, context -> OrderDTO in
        let id = try context.parameters.require("id", as: Int.self)
        guard let order = await store.snapshot().object(ofType: Order.self, forPrimaryKey: id) else {
            throw HTTPError(.notFound)
        }
        return OrderDTO(order)
    }
    return router
}

/// The service: the realm (owned by a `RealmService`, which drains writes at shutdown) and the
/// HTTP server, in one service group.
/// `onServerRunning` is called once the server listens (with its channel: the port it got
/// when asked for port 0).
public func buildApplication(configuration: Realm.Configuration, host: String = "127.0.0.1", port: Int = 8080,
                             logger: Logger,
                             onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) async throws -> some ApplicationProtocol {
    let realms = RealmService(configurations: [configuration], logger: logger)
    let store = try await OrderStore(configuration: configuration)
    return Application(router: buildRouter(store: store), configuration: .init(address: .hostname(host, port: port)),
                       services: [realms], onServerRunning: onServerRunning, logger: logger)
}
