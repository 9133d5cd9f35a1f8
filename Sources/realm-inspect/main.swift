// realm-inspect: look into a realm file from the shell, as sqlite3, mdb_stat and Realm Studio
// do for theirs. `realm-inspect --help` lists the subcommands; `Inspector` runs them.
import Foundation
import RealmInspector

exit(Inspector.run(Array(CommandLine.arguments.dropFirst())).rawValue)
