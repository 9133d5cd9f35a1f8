import Foundation
import Testing
@testable import RealmRuntime

/// The tracker of `realm.changes` below the API: one element per new version, the newest when
/// several came since the last, none for a version every commit of which silenced it.
@Suite struct RealmChangeTrackerTests {
    static let classes = [ObjectSchemaInfo(className: "Item", properties: [PropertyInfo(name: "value", kind: .int)])]

    /// Commits an insert and advances `tracker` to it; returns the version and what `advance` said.
    static func commit(_ realm: TestRealmFile, advancing tracker: RealmChangeTracker, silent: Bool = false) async throws
        -> (version: TransactionID, pending: Bool) {
        let commit = try await realm.write { try $0.insert("Item") }.commit
        return (commit.transaction, tracker.advance(try realm.version(after: [commit]), silent: silent))
    }

    /// The version of the pending element, nil if none.
    static func taken(_ tracker: RealmChangeTracker) -> TransactionID? {
        guard let (element, isLast) = tracker.takeElement() else { return nil }
        guard case .realm(let version) = element, !isLast else {
            Issue.record("not a realm element: \(element)")
            return nil
        }
        return version.transaction
    }

    @Test func versionsSinceTheLastElementAreTheNewestOne() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let tracker = RealmChangeTracker(snapshot: try realm.newest())
        #expect(tracker.initialElement() == nil && tracker.takeElement() == nil)
        let first = try await Self.commit(realm, advancing: tracker)
        #expect(first.pending)
        let second = try await Self.commit(realm, advancing: tracker)
        #expect(Self.taken(tracker) == second.version, "one element, the newest version")
        #expect(tracker.takeElement() == nil, "taken")
        #expect(tracker.errorElement(RuntimeError(.fail, "gone")) == nil, "the stream just ends on an error")
    }

    @Test func aSilentVersionIsNotReported() async throws {
        let realm = try await TestRealmFile(Self.classes)
        let tracker = RealmChangeTracker(snapshot: try realm.newest())
        #expect(try await !Self.commit(realm, advancing: tracker, silent: true).pending)
        #expect(tracker.takeElement() == nil, "a silent version is not reported")
        let loud = try await Self.commit(realm, advancing: tracker)
        #expect(loud.pending && Self.taken(tracker) == loud.version)
    }
}
