import Testing
@testable import RealmStorage

@Suite struct StorageErrorTests {
    @Test func descriptionNamesTheFile() {
        let error = StorageError(.invalidDatabase, "Not a realm file", path: "/tmp/a.realm")
        #expect(error.description == "Not a realm file (/tmp/a.realm)")
        #expect(StorageError(.fail, "x").description == "x")
    }
}
