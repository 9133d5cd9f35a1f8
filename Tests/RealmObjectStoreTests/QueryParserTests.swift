import Testing
import RealmObjectStore
import RealmTestSupport

@Suite struct QueryParserTests {
    static func key(_ path: String, _ aggregate: QueryAggregate? = nil, at position: Int = 0) -> QueryOperand {
        .keyPath(path.split(separator: ".").map(String.init), aggregate: aggregate, position: position)
    }

    static func compare(_ left: QueryOperand, _ op: QueryOperator, _ right: QueryOperand,
                        options: QueryStringOptions = [], modifier: QueryCollectionModifier? = nil, at position: Int = 0) -> QueryExpression {
        .comparison(QueryComparison(left, op, right, options: options, modifier: modifier, position: position))
    }

    @Test func comparisonsAndLiterals() throws {
        #expect(try QueryParser.parse("age < 2") == Self.compare(Self.key("age"), .less, .value(.int(2))))
        #expect(try QueryParser.parse("age = 2") == Self.compare(Self.key("age"), .equal, .value(.int(2))))
        #expect(try QueryParser.parse("age <> 2") == Self.compare(Self.key("age"), .notEqual, .value(.int(2))))
        #expect(try QueryParser.parse("age =< -0x10") == Self.compare(Self.key("age"), .lessOrEqual, .value(.int(-16))))
        #expect(try QueryParser.parse("score => 1.5e2") == Self.compare(Self.key("score"), .greaterOrEqual, .value(.double(150))))
        #expect(try QueryParser.parse("3 < age") == Self.compare(Self.key("age", at: 4), .greater, .value(.int(3))))
        #expect(try QueryParser.parse("name == 'it\\'s'") == Self.compare(Self.key("name"), .equal, .value(.string("it's"))))
        #expect(try QueryParser.parse("name == \"\\u00e9\"") == Self.compare(Self.key("name"), .equal, .value(.string("é"))))
        #expect(try QueryParser.parse("flag == TRUE") == Self.compare(Self.key("flag"), .equal, .value(.bool(true))))
        #expect(try QueryParser.parse("owner == nil") == Self.compare(Self.key("owner"), .equal, .value(.null)))
        #expect(try QueryParser.parse("owner.name == NULL") == Self.compare(Self.key("owner.name"), .equal, .value(.null)))
        #expect(try QueryParser.parse("TRUEPREDICATE") == .constant(true))
        #expect(try QueryParser.parse("falsepredicate") == .constant(false))
        #expect(try QueryParser.parse("id == oid(507f1f77bcf86cd799439011)")
                == Self.compare(Self.key("id"), .equal, .value(.objectId([0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11]))))
        // The words alone are properties of those names (the reference tests query an `oid`).
        #expect(try QueryParser.parse("oid == oid (507f1f77bcf86cd799439011)")
                == Self.compare(Self.key("oid"), .equal, .value(.objectId([0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11]))))
        #expect(try QueryParser.parse("uuid != nil") == Self.compare(Self.key("uuid"), .notEqual, .value(.null)))
        #expect(try QueryParser.parse("d > T0:0") == Self.compare(Self.key("d"), .greater, .value(.date(-978_307_200))))
        #expect(try QueryParser.parse("d > 2001-01-01@00:00:01") == Self.compare(Self.key("d"), .greater, .value(.date(1))))
        #expect(try QueryParser.parse("data == B64\"AAE=\"") == Self.compare(Self.key("data"), .equal, .value(.data([0, 1]))))
    }

    @Test func operatorsOptionsAndCollections() throws {
        #expect(try QueryParser.parse("name BEGINSWITH[c] 'r'") == Self.compare(Self.key("name"), .beginsWith, .value(.string("r")), options: .caseInsensitive))
        #expect(try QueryParser.parse("name like[cd] 'r?x*'") == Self.compare(Self.key("name"), .like, .value(.string("r?x*")), options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(try QueryParser.parse("name ==[d] 'e'") == Self.compare(Self.key("name"), .equal, .value(.string("e")), options: .diacriticInsensitive))
        #expect(try QueryParser.parse("age BETWEEN {1, 3}") == Self.compare(Self.key("age"), .between, .values([.int(1), .int(3)])))
        #expect(try QueryParser.parse("age IN {1, 2.5, 'x'}") == Self.compare(Self.key("age"), .in, .values([.int(1), .double(2.5), .string("x")])))
        #expect(try QueryParser.parse("'x' IN tags") == Self.compare(.value(.string("x")), .in, Self.key("tags", at: 7)))
        #expect(try QueryParser.parse("dogs.@count > 1") == Self.compare(Self.key("dogs", .count), .greater, .value(.int(1))))
        #expect(try QueryParser.parse("dogs.@avg.age > 1") == Self.compare(Self.key("dogs.age", .average), .greater, .value(.int(1))))
        #expect(try QueryParser.parse("dogs.age.@max > 1") == Self.compare(Self.key("dogs.age", .max), .greater, .value(.int(1))))
        #expect(try QueryParser.parse("ALL dogs.age > 1") == Self.compare(Self.key("dogs.age", at: 4), .greater, .value(.int(1)), modifier: .all))
        #expect(try QueryParser.parse("NONE dogs.age > 1") == Self.compare(Self.key("dogs.age", at: 5), .greater, .value(.int(1)), modifier: QueryCollectionModifier.none))
        let subquery = try QueryParser.parse("SUBQUERY(dogs, $d, $d.age > 2 AND $d.name == 'x').@count == 1")
        guard case .comparison(let comparison) = subquery, case .subqueryCount(let collection, let variable, let predicate, _) = comparison.left else {
            Issue.record("not a subquery: \(subquery)")
            return
        }
        #expect(collection == ["dogs"] && variable == "$d" && comparison.op == .equal && comparison.right == .value(.int(1)))
        guard case .and(let parts) = predicate else { Issue.record("\(predicate)"); return }
        #expect(parts.count == 2)
    }

    @Test func logicAndPrecedence() throws {
        let a = Self.compare(Self.key("a"), .equal, .value(.int(1)))
        let parsed = try QueryParser.parse("a == 1 OR NOT a == 1 AND a == 1")
        guard case .or(let operands) = parsed, operands.count == 2, case .and(let conjunction) = operands[1],
              case .not = conjunction[0] else {
            Issue.record("wrong precedence: \(parsed)")
            return
        }
        #expect(operands[0] == a)
        guard case .and(let grouped) = try QueryParser.parse("(a == 1 || a == 1) && !(a == 1)"), grouped.count == 2,
              case .or = grouped[0], case .not = grouped[1] else {
            Issue.record("parentheses not honoured")
            return
        }
    }

    @Test func arguments() throws {
        let parsed = try QueryParser.parse("age > %@ AND %K == %d AND score < $0",
                                           arguments: [.value(.int(2)), .keyPath("name"), .value(.int(7))])
        #expect(parsed == .and([
            Self.compare(Self.key("age"), .greater, .value(.int(2))),
            Self.compare(Self.key("name", at: 13), .equal, .value(.int(7)), at: 13),
            Self.compare(Self.key("score", at: 26), .less, .value(.int(2)), at: 26),
        ]))
    }

    /// Malformed predicates: each throws a QueryError whose message says what was expected.
    @Test(arguments: [
        ("", "end of the predicate"), ("age", "operator"), ("age <", "after '<'"), ("age < ", "after '<'"),
        ("age << 2", "Expected a property or a value"), ("age =~ 2", "Unexpected character '~'"), ("age ?? 2", "Unexpected character"),
        ("(age < 2", "Expected ')' to close '('"), ("age < 2)", "end of the predicate"), ("age < 2 AND", "end of the predicate"),
        ("AND age < 2", "keyword 'AND'"), ("age < 2 OR OR age > 3", "keyword 'OR'"), ("name == 'abc", "Unterminated string"),
        ("name == \"abc", "Unterminated string"), ("name == 'a\\u12'", "\\u escape"), ("age < 99999999999999999999", "does not fit 64 bits"),
        ("age < 0xZZ", "hexadecimal"), ("age < 1e999", "Invalid number"), ("age BETWEEN 1, 2", "Expected '{' after BETWEEN"),
        ("age IN {1, 2", "Expected '}'"), ("age IN {1 2}", "Expected '}'"), ("age IN {a}", "Expected a value in the list"),
        ("name BEGINSWITH[x] 'a'", "string options"), ("name BEGINSWITH[c 'a'", "to close the options"), ("name BEGINSWITH[] 'a'", "string options"),
        ("age < %@", "Not enough arguments"), ("age < $3", "Not enough arguments"), ("%K < 2", "Not enough arguments"),
        ("age < %x", "placeholder"), ("dogs.@bogus > 1", "Unknown aggregate"), ("dogs.@count.@max > 1", "Two aggregates"),
        ("dogs..age > 1", "Empty component"), ("@count > 1", "Expected a property before"), ("SUBQUERY(dogs, d, d.age > 1).@count > 0", "$variable"),
        ("SUBQUERY(dogs, $d, $d.age > 1) > 0", "'.@count'"), ("SUBQUERY(dogs $d, $d.age > 1).@count > 0", "Expected ','"),
        ("id == oid(123)", "Invalid oid literal"), ("id == uuid(nope)", "Invalid uuid literal"), ("id == oid 12", "end of the predicate"),
        ("d > T12", "timestamp"), ("d > 2020-13-45@00:00:00", "Invalid date literal"), ("d > 2020-01-01", "Invalid date literal"),
        ("3 BEGINSWITH name", "must be a property"), ("age < 2 age > 3", "end of the predicate"), ("NOT", "end of the predicate"),
        ("age BEGINSWITH", "after 'BEGINSWITH'"),
    ] as [(String, String)])
    func malformedPredicatesThrowWithAPosition(predicate: String, expected: String) {
        do {
            let parsed = try QueryParser.parse(predicate)
            Issue.record("'\(predicate)' parsed as \(parsed)")
        } catch let error as QueryError {
            #expect(error.message.contains(expected), "'\(predicate)': \(error.message)")
            #expect(error.position >= 0 && error.position <= predicate.utf8.count)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Random token soup never crashes the parser: it parses or throws QueryError, and nothing
    /// else (an error of another type would reach the API as a generic failure, without the
    /// position). Both outcomes must occur, or the soup tests nothing.
    @Test func fuzzedInputNeverCrashes() {
        let pieces = ["age", "name", ".", "@count", "(", ")", "{", "}", ",", "<", "==", "!", "AND", "OR", "NOT", "'", "\"", "\\",
                      "1", "0x", "1e", "-", "%@", "%K", "$0", "[c]", "[", "]", "BETWEEN", "IN", "SUBQUERY", "$x", "oid(", "T1:", "2020-",
                      "@", "B64", "é", " ", "TRUEPREDICATE", "nil", "ANY", "LIKE"]
        var random = SplitMix64(seed: 12345)
        var (parsed, rejected) = (0, 0)
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<Int.random(in: 1...9, using: &random) {
                text += pieces.randomElement(using: &random)!
                if Bool.random(using: &random) { text += " " }
            }
            do {
                _ = try QueryParser.parse(text, arguments: [.value(.int(1))])
                parsed += 1
            } catch let error as QueryError {
                #expect(error.position >= 0 && error.position <= text.utf8.count, "'\(text)': \(error)")
                rejected += 1
            } catch {
                Issue.record("'\(text)' threw \(type(of: error)), not QueryError: \(error)")
            }
        }
        #expect(parsed > 0 && rejected > 0, "parsed \(parsed), rejected \(rejected)")
    }
}

/// The forms added for Realm's behaviour: modifiers on lists of values, subscripts, map keys,
/// infinity and NaN, array arguments.
extension QueryParserTests {
    @Test func listsOfValuesWithModifiers() throws {
        // A list written first is turned around and keeps its modifier as the outer one.
        #expect(try QueryParser.parse("ANY {1, 2} == age")
                == .comparison(QueryComparison(Self.key("age", at: 14), .equal, .values([.int(1), .int(2)]),
                                               valuesModifier: .any, valuesFirst: true)))
        #expect(try QueryParser.parse("ALL {1} < age")
                == .comparison(QueryComparison(Self.key("age", at: 10), .greater, .values([.int(1)]), valuesModifier: .all, valuesFirst: true)))
        #expect(try QueryParser.parse("age == NONE {1}")
                == .comparison(QueryComparison(Self.key("age"), .equal, .values([.int(1)]), valuesModifier: QueryCollectionModifier.none)))
        #expect(try QueryParser.parse("5 IN ALL scores")
                == .comparison(QueryComparison(.value(.int(5)), .in, Self.key("scores", at: 9), modifier: .all)))
        #expect(try QueryParser.parse("age IN $0", arguments: [.values([.int(1)])])
                == Self.compare(Self.key("age"), .in, .values([.int(1)])))
        #expect(throws: QueryError.self) { try QueryParser.parse("ANY 5 IN scores") }
        #expect(throws: QueryError.self) { try QueryParser.parse("ANY 'x' == name") }
    }

    @Test func subscriptsAndMapKeys() throws {
        #expect(try QueryParser.parse("dogs[FIRST].name == 'a'")
                == Self.compare(.keyPath(["dogs", "[FIRST]", "name"], aggregate: nil, position: 0), .equal, .value(.string("a"))))
        #expect(try QueryParser.parse("scores[last] > 1")
                == Self.compare(.keyPath(["scores", "[LAST]"], aggregate: nil, position: 0), .greater, .value(.int(1))))
        #expect(try QueryParser.parse("scores[2][*] > 1")
                == Self.compare(.keyPath(["scores", "[2]", "[*]"], aggregate: nil, position: 0), .greater, .value(.int(1))))
        #expect(try QueryParser.parse("dogs[SIZE] == 2") == Self.compare(Self.key("dogs", .count), .equal, .value(.int(2))))
        #expect(try QueryParser.parse("prices['a.b'] == 2")
                == Self.compare(.keyPath(["prices", "['a.b']"], aggregate: nil, position: 0), .equal, .value(.int(2))))
        #expect(try QueryParser.parse("prices.@keys == 'a'") == Self.compare(Self.key("prices.@keys"), .equal, .value(.string("a"))))
        #expect(QuerySubscript(component: QuerySubscript.key("x']").component) == .key("x']"))
        #expect(QuerySubscript(component: "name") == nil)
        #expect(throws: QueryError.self) { try QueryParser.parse("dogs[] == 1") }
        #expect(throws: QueryError.self) { try QueryParser.parse("dogs[FIRST == 1") }
    }

    @Test func infinityNaNAndRejectedLiterals() throws {
        #expect(try QueryParser.parse("x < inf") == Self.compare(Self.key("x"), .less, .value(.double(.infinity))))
        #expect(try QueryParser.parse("x > -Infinity") == Self.compare(Self.key("x"), .greater, .value(.double(-.infinity))))
        guard case .comparison(let nan) = try QueryParser.parse("x == -NaN"), case .value(.double(let value)) = nan.right else {
            Issue.record("-NaN did not parse as a double")
            return
        }
        #expect(value.isNaN)
        for bad in ["d == T1:-1", "d == T-1:1", "d == 2001-02-29@00:00:00", "d == 2001-01-01@24:00:00", "d == 2001-01-01@00:00:00:-1",
                    "s == '\\x'", "s == '\\u00g0'"] {
            #expect(throws: QueryError.self, "\(bad)") { try QueryParser.parse(bad) }
        }
        #expect(try QueryParser.parse("d == T-1:-1") == Self.compare(Self.key("d"), .equal, .value(.date(-1 - 978_307_200 - 1e-9))))
    }
    /// Nesting is bounded so that a hostile predicate cannot overflow the parsing thread's stack
    /// (found by `realm-inspect`'s tests: 10,000 '(' crashed the process).
    @Test func nestingDeeperThanTheLimitThrowsInsteadOfOverflowingTheStack() throws {
        let depth = 100
        let parenthesized = String(repeating: "(", count: depth) + "age < 2" + String(repeating: ")", count: depth)
        _ = try QueryParser.parse(parenthesized)
        #expect(throws: QueryError.self) { try QueryParser.parse("(" + parenthesized + ")") }
        _ = try QueryParser.parse(String(repeating: "NOT ", count: depth) + "age < 2")
        #expect(throws: QueryError.self) { try QueryParser.parse(String(repeating: "NOT ", count: depth + 1) + "age < 2") }
        #expect(throws: QueryError.self) { try QueryParser.parse(String(repeating: "!", count: 100_000) + "age < 2") }
        #expect(throws: QueryError.self) { try QueryParser.parse(String(repeating: "(", count: 100_000)) }
        var subqueries = "$x.age < 2"
        for level in 0..<(depth + 1) { subqueries = "SUBQUERY(items, $x\(level), \(subqueries)).@count > 0" }
        #expect(throws: QueryError.self) { try QueryParser.parse(subqueries) }
    }
}
