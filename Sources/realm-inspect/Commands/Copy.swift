import Foundation
import RealmActors

/// `realm-inspect copy FILE DEST`: a compacted copy of the newest version.
struct Copy: InspectorCommand {
    static let spec = CommandSpec(
        name: "copy", abstract: "Write a compacted copy of the file's newest version to a new file.",
        discussion: "The copy is encrypted with the same key as the file, if it is encrypted. DEST must not exist. A damaged file is refused (`recover` saves what it can).",
        positionals: [.init(name: "file", help: "The realm file."), .init(name: "dest", help: "The new file.")])

    let file: RealmFile
    let destination: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        destination = arguments[position: 1]!
    }

    func run() throws -> ExitStatus {
        let realm = try file.open()
        // A copy of a damaged page can fail for reasons that do not name it (two leaves holding
        // one key): the file is checked first, so damage is reported as damage, with its page.
        _ = try realm.checkIntegrity()
        try realm.writeCopy(toFile: URL(fileURLWithPath: destination), encryptionKey: file.encryptionKey)
        let output = OutputBuffer()
        output.write("copied \(file.path) (version \(realm.fileStatistics.version)) to \(destination)\n")
        output.flush()
        return .success
    }
}
