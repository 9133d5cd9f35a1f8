import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class MediumNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var body = ""
    @Persisted var tag = 0
}

/// Text bodies of 0–4,000 bytes (W13's rows), which the storage keeps in table leaves of up to
/// four pages: every value reads back whole, by primary key, by iteration, in the writing handle
/// and after a reopen.
@Suite struct MediumValueTests {
    static func body(_ id: Int) -> String {
        // The first 40 are short, so the first leaf is a one-page one; growing some of them later
        // moves it to a wider run.
        let length = id <= 40 ? id * 5 : (id &* 7_919) % 4_001
        let letter = Character(UnicodeScalar(UInt8(97 + id % 26)))
        return String(repeating: letter, count: length)
    }

    @Test func bodiesOfUpToFourKilobytesReadBackWhole() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("notes.realm"),
                                                objectTypes: [MediumNote.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for id in 1...3_000 { realm.add(MediumNote(value: ["id": id, "body": Self.body(id), "tag": id % 100])) }
            }
            var bytes = 0
            for note in realm.objects(MediumNote.self) { bytes += note.body.utf8.count }
            #expect(bytes == (1...3_000).reduce(0) { $0 + Self.body($1).utf8.count }, "read in the writing handle")
            // Grow and shrink some bodies, delete others: leaves split, merge and move.
            try realm.write {
                for id in stride(from: 5, through: 3_000, by: 7) { realm.object(ofType: MediumNote.self, forPrimaryKey: id)!.body = Self.body(id + 1_000) }
                for id in stride(from: 3, through: 3_000, by: 11) { realm.delete(realm.object(ofType: MediumNote.self, forPrimaryKey: id)!) }
            }
        }
        let realm = try Realm(configuration: configuration)
        func expected(_ id: Int) -> String? {
            if id % 11 == 3 { return nil }
            return id % 7 == 5 ? Self.body(id + 1_000) : Self.body(id)
        }
        var seen = 0
        for note in realm.objects(MediumNote.self) {
            #expect(note.body == expected(note.id), "note \(note.id)")
            seen += 1
        }
        #expect(seen == (1...3_000).filter { expected($0) != nil }.count)
        for id in [1, 2, 5, 1_500, 2_999] {
            #expect(realm.object(ofType: MediumNote.self, forPrimaryKey: id)?.body == expected(id))
        }
    }
}
