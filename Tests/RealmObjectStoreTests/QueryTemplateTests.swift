import Testing
@testable import RealmObjectStore

/// The parse cache (`QueryTemplateCache`): a predicate parsed once per text and argument shapes
/// must give exactly what parsing it anew gives, for any text and any arguments of those shapes.
@Suite struct QueryTemplateTests {
    /// Outcome of a parse, comparable: the tree, or the error's message and position.
    enum Outcome: Equatable {
        case parsed(ParsedPredicate)
        case failed(String, Int)

        init(_ body: () throws -> ParsedPredicate) {
            do { self = .parsed(try body()) } catch let error as QueryError {
                self = .failed(error.message, error.position)
            } catch {
                self = .failed("\(error)", -1)
            }
        }
    }

    /// Argument lists of several shapes; each has a twin of the same shapes and other values.
    static let argumentSets: [([QueryArgument], [QueryArgument])] = [
        ([.value(.int(1))], [.value(.int(99))]),
        ([.value(.string("a")), .value(.double(2.5))], [.value(.string("zz")), .value(.null)]),
        ([.values([.int(1), .int(2)]), .value(.int(3))], [.values([]), .value(.string("x"))]),
        ([.keyPath("name"), .values([.string("a")])], [.keyPath("name"), .values([.int(4), .int(5), .int(6)])]),
    ]

    /// Random predicates (the parser fuzzer's token soup plus real predicates), each through a
    /// small cache twice — a miss, then a hit with other values — against a fresh parse.
    @Test func aCachedParseEqualsAFreshOne() {
        let pieces = ["age", "name", ".", "@count", "(", ")", "{", "}", ",", "<", "==", "!", "AND", "OR", "NOT", "'", "\"",
                      "1", "-", "%@", "%@", "%K", "$0", "$1", "[c]", "BETWEEN", "IN", "SUBQUERY", "$x", "@", " ", "ANY", "ALL", "LIKE",
                      "{%@, 2}", "SUBQUERY(dogs, $d, $d.age > %@).@count > $0", "SORT(", "DISTINCT(", "LIMIT(", "ASC", "DESC"]
        let real = ["email == %@", "age > %@ AND name BEGINSWITH[c] %@", "age IN %@", "%@ IN tags", "ANY {1, %@} == scores",
                    "name == $0 OR name == $0", "NOT (age BETWEEN {%@, $1})", "SUBQUERY(dogs, $d, $d.age > %@).@count > 0",
                    "%K == %@", "age == ANY $0", "{%@} IN ages", "age > %@ SORT(name ASC, age DESC) DISTINCT(name) LIMIT(3)"]
        var state: UInt64 = 777
        var texts = real
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<(Int(state % 7) + 2) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                text += pieces[Int(state >> 33) % pieces.count] + (state & 1 == 0 ? " " : "")
            }
            texts.append(text)
        }
        let cache = QueryTemplateCache(capacity: 64)
        var hits = 0
        for text in texts {
            for (first, twin) in Self.argumentSets {
                for arguments in [first, twin] {
                    let fresh = Outcome { try QueryParser.parsePredicate(text, arguments: arguments) }
                    let cached = Outcome { try cache.predicate(for: text, arguments: arguments) }
                    #expect(cached == fresh, "'\(text)' with \(arguments)")
                    if case .parsed = fresh { hits += 1 }
                }
            }
        }
        #expect(hits > 50, "the corpus parses often enough to test something (\(hits))")
        #expect(cache.count <= 64)
    }

    /// Only parses that succeed are kept, `%K` texts are never kept, and a full cache drops its
    /// oldest template; an emptied cache fills again.
    @Test func whatIsKept() throws {
        let cache = QueryTemplateCache(capacity: 2)
        _ = try? cache.predicate(for: "age <", arguments: [])
        #expect(cache.count == 0)
        _ = try cache.predicate(for: "%K == %@", arguments: [.keyPath("age"), .value(.int(1))])
        #expect(cache.count == 0)
        _ = try cache.predicate(for: "age == %@", arguments: [.value(.int(1))])
        _ = try cache.predicate(for: "age == %@", arguments: [.values([.int(1)])])  // another shape
        #expect(cache.count == 2)
        _ = try cache.predicate(for: "age == 3", arguments: [])
        #expect(cache.count == 2)
        #expect(try cache.predicate(for: "age == %@", arguments: [.value(.int(5))])
                    == QueryParser.parsePredicate("age == %@", arguments: [.value(.int(5))]))

        // Emptied (what the query fuzz harness does after each input), it fills again.
        cache.removeAll()
        #expect(cache.count == 0)
        for text in ["age == 1", "age == 2", "age == 3"] {
            #expect(try cache.predicate(for: text, arguments: []) == QueryParser.parsePredicate(text, arguments: []))
        }
        #expect(cache.count == 2)
    }
}
