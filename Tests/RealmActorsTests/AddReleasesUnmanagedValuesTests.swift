import Foundation
import Testing
import RealmActors

final class ARNode: Object {
    @Persisted var name = ""
    @Persisted var next: ARNode?
    @Persisted var nodes: List<ARNode>
    @Persisted var nodeSet: MutableSet<ARNode>
    @Persisted var nodeMap: Map<String, ARNode?>
    @Persisted var value: AnyRealmValue
    @Persisted var place: ARPlace?
}

final class ARPlace: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var resident: ARNode?
}

/// An unmanaged object holds its values, links included, in its `@Persisted` wrappers, so
/// unmanaged objects that link to each other in a cycle keep each other alive (as in Realm
/// Swift). Once `add` has stored them, the objects are managed and read the realm: the wrappers
/// must let go of what they held, or the cycle outlives every reference the user has (found by
/// LeakSanitizer). Each test builds a cycle, adds it, drops its own references and expects
/// every object of it to be freed while the realm stays open.
@Suite struct AddReleasesUnmanagedValuesTests {
    private func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                     objectTypes: [ARNode.self, ARPlace.self]))
    }

    /// Weak references to objects that `build` makes (and links) and that are then added to
    /// `realm` in one write; nothing else references them once this returns.
    private func weaklyAdded(to realm: Realm, _ build: () -> [ARNode]) throws -> [() -> ARNode?] {
        let nodes = build()
        try realm.write { realm.add(nodes) }
        #expect(nodes.allSatisfy { !$0.isInvalidated && $0.realm != nil })
        return nodes.map { node in { [weak node] in node } }
    }

    private func node(_ name: String) -> ARNode {
        let node = ARNode()
        node.name = name
        return node
    }

    private func expectAllFreed(_ references: [() -> ARNode?], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(references.allSatisfy { $0() == nil }, "still alive: \(references.compactMap { $0()?.name })",
                sourceLocation: sourceLocation)
    }

    @Test func anObjectWithoutACycleIsFreed() throws {
        // The control: what the other tests expect is possible at all.
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let a = node("a")
            return [a]
        })
        #expect(realm.objects(ARNode.self).count == 1)
    }

    @Test func anObjectLinkingToItselfIsFreed() throws {
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let a = node("a")
            a.next = a
            return [a]
        })
        let stored = realm.objects(ARNode.self)
        #expect(stored.count == 1 && stored[0].next?.name == "a")
    }

    @Test func twoObjectsLinkingToEachOtherAreFreed() throws {
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let (a, b) = (node("a"), node("b"))
            a.next = b
            b.next = a
            return [a]  // b is added through a's link
        })
        let a = try #require(realm.objects(ARNode.self).where { $0.name == "a" }.first)
        #expect(a.next?.name == "b" && a.next?.next?.name == "a")
    }

    @Test func objectsInEachOthersListsAreFreed() throws {
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let (a, b) = (node("a"), node("b"))
            a.nodes.append(objectsIn: [a, b])
            b.nodes.append(a)
            return [a, b]
        })
        let a = try #require(realm.objects(ARNode.self).where { $0.name == "a" }.first)
        #expect(a.nodes.map(\.name) == ["a", "b"] && a.nodes[1].nodes.map(\.name) == ["a"])
    }

    @Test func objectsInEachOthersSetsAndMapsAreFreed() throws {
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let (a, b) = (node("a"), node("b"))
            a.nodeSet.insert(b)
            b.nodeSet.insert(a)
            a.nodeMap["self"] = a
            b.nodeMap["other"] = a
            return [a, b]
        })
        let a = try #require(realm.objects(ARNode.self).where { $0.name == "a" }.first)
        #expect(a.nodeSet.first?.name == "b" && a.nodeMap["self"]??.name == "a")
    }

    @Test func anObjectInItsOwnMixedValueIsFreed() throws {
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let a = node("a")
            a.value = .object(a)
            return [a]
        })
        let stored = realm.objects(ARNode.self)
        #expect(stored.count == 1 && (stored[0].value.object(ARNode.self))?.name == "a")
    }

    @Test func anObjectLinkedFromItsEmbeddedObjectIsFreed() throws {
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let a = node("a")
            let place = ARPlace()
            place.city = "Oslo"
            place.resident = a
            a.place = place
            return [a]
        })
        let stored = realm.objects(ARNode.self)
        #expect(stored.count == 1 && stored[0].place?.resident?.name == "a")
    }

    @Test func objectsCreatedByNameWithACycleAreFreed() throws {
        // Values given by name (`Object(value:)`) go through the dictionary path of `add`.
        let realm = try realm()
        expectAllFreed(try weaklyAdded(to: realm) {
            let a = ARNode(value: ["name": "a"])
            a.next = a
            a.nodes.append(a)
            return [a]
        })
        let stored = realm.objects(ARNode.self)
        #expect(stored.count == 1 && stored[0].next?.name == "a" && stored[0].nodes.count == 1)
    }
}
