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
        var bytes = [UInt8](input)
        PageSealing.sealPages(&bytes)
        scratch.clear()
        let path = scratch.write(bytes, to: "fuzz.realm")
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), readOnly: true)
        configuration.objectTypes = nil
        do {
            let realm = try Realm(configuration: configuration)
            _ = try realm.checkIntegrity()
            return "read \(RealmReading.readEverything(realm))"
        } catch {
            return "refused: \(error)"  // the answer to a damaged file
        }
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
