// An order service on RealmActors and Hummingbird: `swift run --package-path Integrations order-service`,
// then `curl -X POST localhost:8080/orders -d '{"id":1,"item":"tea","quantity":2,"status":"open"}'`,
// `curl 'localhost:8080/orders?filter=quantity%20%3E%201'`, `curl -N localhost:8080/orders/events`.
//
// Options: `--port N` (default 8080), `--directory PATH` (where orders.realm lives; default the
// current directory). SIGTERM or SIGINT stops it gracefully: the HTTP server stops accepting,
// open event streams end, and the writes in flight finish before the realm closes.
import Foundation
import Logging
import OrderServiceApp
import RealmActors

var logger = Logger(label: "order-service")
logger.logLevel = .info
var port = 8080
var directory = FileManager.default.currentDirectoryPath
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    switch option {
    case "--port":
        guard let value = arguments.popFirst().flatMap(Int.init) else { fatalError("--port needs a number") }
        port = value
    case "--directory":
        guard let value = arguments.popFirst() else { fatalError("--directory needs a path") }
        directory = value
    default:
        fatalError("Unknown option '\(option)' (use --port N, --directory PATH)")
    }
}
let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory).appendingPathComponent("orders.realm"),
                                        objectTypes: [Order.self])
let app = try await buildApplication(configuration: configuration, port: port, logger: logger)
try await app.runService()
