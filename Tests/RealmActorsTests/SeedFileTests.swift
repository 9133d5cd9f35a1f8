import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class SFCity: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var population = 0
}

/// `Configuration.seedFilePath`: a bundled realm copied on first open, never over an existing file.
@Suite struct SeedFileTests {
    @Test func theFirstOpenCopiesTheSeedAndLaterOpensKeepTheFile() async throws {
        let directory = try TemporaryDirectory()
        let seedURL = directory.url.appendingPathComponent("seed.realm")
        do {
            let seed = try Realm(configuration: Realm.Configuration(fileURL: seedURL, objectTypes: [SFCity.self]))
            try seed.write { seed.add(SFCity(value: ["name": "Oslo", "population": 700_000])) }
        }
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("app/cities.realm"), objectTypes: [SFCity.self])
        configuration.seedFilePath = seedURL
        do {
            let realm = try await Realm.open(configuration: configuration)
            #expect(realm.object(ofType: SFCity.self, forPrimaryKey: "Oslo")?.population == 700_000)
            try await realm.asyncWrite { realm.add(SFCity(value: ["name": "Bergen", "population": 290_000])) }
        }
        do {
            let realm = try await Realm.open(configuration: configuration)
            #expect(realm.objects(SFCity.self).count == 2, "the seed is not copied over the file again")
        }
        let seed = try Realm(configuration: Realm.Configuration(fileURL: seedURL, objectTypes: [SFCity.self]))
        #expect(seed.objects(SFCity.self).count == 1, "the seed itself is untouched")
        #expect(!FileManager.default.fileExists(atPath: configuration.fileURL!.path + ".seeding"))
    }

    @Test func aMissingSeedIsAnError() throws {
        let directory = try TemporaryDirectory()
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("cities.realm"))
        configuration.seedFilePath = directory.url.appendingPathComponent("missing.realm")
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: configuration) }
        #expect(error.code == .fileNotFound)
        #expect(!FileManager.default.fileExists(atPath: configuration.fileURL!.path))
    }

    @Test func aForeignSeedIsRefusedAtOpen() throws {
        let directory = try TemporaryDirectory()
        let seedURL = directory.url.appendingPathComponent("seed.realm")
        try Data(repeating: 7, count: 9_000).write(to: seedURL)
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("cities.realm"))
        configuration.seedFilePath = seedURL
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: configuration) }
        #expect(error.code == .invalidDatabase)
    }
}
