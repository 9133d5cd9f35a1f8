// realm-schema-process: the other process of the API's tests of migrations beside other
// processes (Tests/RealmActorsTests/MigratingProcessesTests.swift).
//
//     realm-schema-process open <path> <model> <schemaVersion>
//         opens the realm at <path> with the classes of <model> — `v1` (MXItem: id, value: Int,
//         note), `added` (v1 plus `extra`, and MXMigration) or `retyped` (MXItem: id,
//         value: String; and MXMigration) — at <schemaVersion>, migrating if the file is older,
//         and exits. The migration block records itself as an MXMigration object (so the test
//         counts the migrations that ran) and fills the new properties: `extra = "migrated"`,
//         `value = "v<old value>"`.
//
// Protocol (stdout, a line each, unbuffered):
//
//     migrating <old version>                   the migration block runs, in this process
//     opened items=<n> migrations=<m> values=<a,b,…>   open; the objects' values by id
//                                               (`extra` for `added`, `value` otherwise)
//     error <code> <message>                    the open threw (exit status 1)
import Foundation
import RealmActors

final class MXItemV1: Object {
    override class func className() -> String { "MXItem" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
    @Persisted var note = ""
}

final class MXItemAdded: Object {
    override class func className() -> String { "MXItem" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
    @Persisted var note = ""
    @Persisted var extra = ""
}

final class MXItemRetyped: Object {
    override class func className() -> String { "MXItem" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = ""
}

/// One per migration block that ran.
final class MXMigration: Object {
    @Persisted var pid = 0
}

/// A line on stdout at once (the test reads them as they come).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 5, arguments[1] == "open", let schemaVersion = UInt64(arguments[4]),
      ["v1", "added", "retyped"].contains(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: realm-schema-process open <path> v1|added|retyped <schemaVersion>\n".utf8))
    exit(2)
}
let model = arguments[3]
var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: arguments[2]))
configuration.schemaVersion = schemaVersion
switch model {
case "v1": configuration.objectTypes = [MXItemV1.self]
case "added": configuration.objectTypes = [MXItemAdded.self, MXMigration.self]
default: configuration.objectTypes = [MXItemRetyped.self, MXMigration.self]
}
configuration.migrationBlock = { migration, oldVersion in
    emit("migrating \(oldVersion)")
    migration.enumerateObjects(ofType: "MXItem") { old, new in
        if model == "added" { new!["extra"] = "migrated" }
        if model == "retyped" { new!["value"] = "v\(old!["value"] as! Int)" }
    }
    migration.create("MXMigration", value: ["pid": Int(getpid())])
}
do {
    let realm = try Realm(configuration: configuration)
    let values: [String] = switch model {
    case "v1": realm.objects(MXItemV1.self).sorted(byKeyPath: "id").map { "\($0.value)" }
    case "added": realm.objects(MXItemAdded.self).sorted(byKeyPath: "id").map(\.extra)
    default: realm.objects(MXItemRetyped.self).sorted(byKeyPath: "id").map(\.value)
    }
    let migrations = model == "v1" ? 0 : realm.objects(MXMigration.self).count
    emit("opened items=\(values.count) migrations=\(migrations) values=\(values.joined(separator: ","))")
} catch let error as Realm.Error {
    emit("error \(error.code) \(error.message.replacingOccurrences(of: "\n", with: " "))")
    exit(1)
}
