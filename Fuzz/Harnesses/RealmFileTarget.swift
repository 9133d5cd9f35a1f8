import Foundation
import RealmActors
import RealmInspector

/// `file`: a realm file's bytes (pages resealed after the mutation, see ``PageSealing``),
/// opened read-only through the public API with no model classes.
///
/// What must hold: opening throws or succeeds; `checkIntegrity()` throws or succeeds; and a file
/// the integrity check passes reads whole — every object of every class, every property,
/// following links and collections, as `realm-inspect dump` reads them — without a trap. (The
/// non-throwing accessors trap on damage they meet, by design; the Files article tells servers
/// to check a file first, which is the promise tested here.)
final class RealmFileTarget: FuzzTarget {
    private let scratch = ScratchDirectory("file")

    func run(_ input: Data) -> String {
        do {
            let realm = try Self.openChecked([UInt8](input), in: scratch)
            return "read \(RealmReading.readEverything(realm))"
        } catch {
            return "refused: \(error)"  // the answer to a damaged file
        }
    }

    /// Reseals the pages of `bytes`, writes them to `fuzz.realm` in `scratch` (emptied first),
    /// opens that file read-only with no model classes, and checks it (`checkIntegrity()`):
    /// a realm the non-throwing accessors may read, or the error that refuses the file.
    static func openChecked(_ bytes: [UInt8], in scratch: ScratchDirectory) throws -> Realm {
        var bytes = bytes
        PageSealing.sealPages(&bytes)
        scratch.clear()
        let path = scratch.write(bytes, to: "fuzz.realm")
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), readOnly: true)
        configuration.objectTypes = nil
        let realm = try Realm(configuration: configuration)
        _ = try realm.checkIntegrity()
        return realm
    }
}

/// Reads every value of a realm through the dynamic API.
enum RealmReading {
    /// Returns how many objects and characters of JSON were read, as a phrase.
    @discardableResult
    static func readEverything(_ realm: Realm) -> String {
        var characters = 0, objects = 0
        for objectSchema in realm.schema.objectSchema where !objectSchema.isEmbedded {
            for object in realm.dynamicObjects(objectSchema.className) {
                // Linking objects are not read: the dynamic subscript does not serve them.
                characters += ValueText.objectJSON(object, properties: objectSchema.properties).utf8.count
                objects += 1
            }
        }
        return "\(objects) objects, \(characters) characters"
    }
}
