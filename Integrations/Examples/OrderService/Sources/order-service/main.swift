// An order service on RealmActors and Hummingbird: `swift run --package-path Integrations order-service`,
// then `curl -X POST localhost:8080/orders -d '{"id":1,"item":"tea","quantity":2,"status":"open"}'`,
// `curl 'localhost:8080/orders?filter=quantity%20%3E%201'`, `curl -N localhost:8080/orders/events`.
import Foundation
import Logging
import OrderServiceApp
import RealmActors

var logger = Logger(label: "order-service")
logger.logLevel = .info
let directory = FileManager.default.currentDirectoryPath
var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory).appendingPathComponent("orders.realm"),
                                        objectTypes: [Order.self])
let app = try await buildApplication(configuration: configuration, logger: logger)
try await app.runService()
