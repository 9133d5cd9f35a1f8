import Foundation
import Testing
import RealmActors
import RealmTestSupport

enum ValueTypesStatus: Int, PersistableEnum {
    case active = 1, paused = 5, done = 9
}

enum ValueTypesColor: String, PersistableEnum {
    case red, green, blue
}

final class ValueTypesObject: Object {
    @Persisted(primaryKey: true) var id = ObjectId.generate()
    @Persisted var objectId = ObjectId()
    @Persisted var optionalObjectId: ObjectId?
    @Persisted var decimal = Decimal128()
    @Persisted var optionalDecimal: Decimal128?
    @Persisted var status: ValueTypesStatus
    @Persisted var optionalStatus: ValueTypesStatus?
    @Persisted var color = ValueTypesColor.blue
    @Persisted var optionalColor: ValueTypesColor?
}

/// Stores under the same class name as `ValueTypesEnumHolder`, with the enum's raw type.
final class ValueTypesRawHolder: Object {
    override class func className() -> String { "ValueTypesEnumHolder" }
    @Persisted var status = 0
}

final class ValueTypesEnumHolder: Object {
    @Persisted var status: ValueTypesStatus
}

/// The 16 stored bytes of a decimal (little-endian BID), read through a UUID's identical storage.
private func storedBytes(_ value: Decimal128) -> [UInt8] {
    let uuid = UUID._rlmFromValue(value._rlmValue)!.uuid
    return withUnsafeBytes(of: uuid) { Array($0) }
}

/// The decimal stored as these 16 bytes.
private func decimal(storedBytes bytes: [UInt8]) -> Decimal128 {
    let uuid = UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
    return Decimal128._rlmFromValue(uuid._rlmValue)!
}

/// Little-endian bytes of the 128-bit integer `high << 64 | low`.
private func bytes(high: UInt64, low: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * $0)) }
}

private func dec(_ string: String) -> Decimal128 { try! Decimal128(string: string) }

@Suite struct ValueTypeTests {
    // MARK: ObjectId

    @Test func objectIdZeroAndGenerated() {
        #expect(ObjectId().stringValue == "000000000000000000000000")
        #expect(ObjectId() == ObjectId())
        let before = Date().timeIntervalSince1970.rounded(.down)
        let a = ObjectId.generate(), b = ObjectId.generate()
        let after = Date().timeIntervalSince1970
        #expect(a != b && a != ObjectId())
        #expect(a.timestamp.timeIntervalSince1970 >= before && a.timestamp.timeIntervalSince1970 <= after)
        // The 5 random bytes are the process's own, the same in every generated id.
        let (sa, sb) = (a.stringValue, b.stringValue)
        #expect(sa.dropFirst(8).prefix(10) == sb.dropFirst(8).prefix(10))
        #expect(sa.count == 24 && sa == sa.lowercased())
    }

    @Test func objectIdGenerationIsUniqueAcrossThreads() async {
        let ids = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in ObjectId.generate() } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 16_000 && Set(ids).count == 16_000)
    }

    @Test func objectIdStrings() throws {
        let id = try ObjectId(string: "5F3A9C0E1B2D3E4F5A6B7C8D")
        #expect(id.stringValue == "5f3a9c0e1b2d3e4f5a6b7c8d" && id.description == id.stringValue)
        #expect(try ObjectId(string: id.stringValue) == id)
        #expect(ObjectId("5f3a9c0e1b2d3e4f5a6b7c8d") == id)
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x5F3A_9C0E))
        for bad in ["", "5f3a9c0e1b2d3e4f5a6b7c8", "5f3a9c0e1b2d3e4f5a6b7c8d0", "5f3a9c0e1b2d3e4f5a6b7c8g", " f3a9c0e1b2d3e4f5a6b7c8d",
                    "5f3a9c0e1b2d3e4f5a6b7cé"] {
            do {
                _ = try ObjectId(string: bad)
                Issue.record("'\(bad)' parsed")
            } catch let error as Realm.Error {
                #expect(error.code == .invalidInput && error.message == "Invalid ObjectId string '\(bad)'")
            }
        }
    }

    @Test func objectIdFromParts() {
        let date = Date(timeIntervalSince1970: 0x0102_0304 + 0.75)
        let id = ObjectId(timestamp: date, machineId: 0x0A0B_0C, processId: 0x0D0E)
        #expect(id.stringValue.hasPrefix("01020304" + "0c0b0a" + "0e0d"))
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x0102_0304))
    }

    @Test func objectIdOrderHashAndCodable() throws {
        let ids = try ["ff0000000000000000000000", "000000000000000000000001", "000000000000000000000100",
                   "0000000000000000000000ff", "00000000000000ff00000000"].map { try ObjectId(string: $0) }
        #expect(ids.sorted().map(\.stringValue) == ["000000000000000000000001", "0000000000000000000000ff",
                                                   "000000000000000000000100", "00000000000000ff00000000",
                                                   "ff0000000000000000000000"])
        #expect(Set(ids + ids).count == 5)
        let data = try JSONEncoder().encode(ids)
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("[\"ff0000000000000000000000\""))
        #expect(try JSONDecoder().decode([ObjectId].self, from: data) == ids)
        #expect(throws: (any Error).self) { try JSONDecoder().decode([ObjectId].self, from: Data("[\"xyz\"]".utf8)) }
    }

    // MARK: Decimal128 parsing and printing

    @Test(arguments: [
        ("123.456", "123.456"), ("-0.0001", "-0.0001"), ("1E+10", "1E+10"), ("1e10", "1E+10"), ("0", "0"),
        ("-0", "-0"), ("0.00", "0.00"), ("1.00", "1.00"), (".5", "0.5"), ("5.", "5"), ("+7", "7"),
        ("0.000001", "0.000001"), ("0.0000001", "1E-7"), ("00012.50", "12.50"), ("100", "100"), ("1.23E+6", "1.23E+6"),
        ("123E4", "1.23E+6"), ("-1.5e-3", "-0.0015"), ("1E-0", "1"), ("0E+3", "0E+3"),
        ("1234567890123456789012345678901234", "1234567890123456789012345678901234"),
        // More than 34 digits: rounded half to even.
        ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
        ("12345678901234567890123456789012355", "1.234567890123456789012345678901236E+34"),
        ("1234567890123456789012345678901234.500000000000000000000000000001", "1234567890123456789012345678901235"),
        ("0.99999999999999999999999999999999999", "1.000000000000000000000000000000000"),
        // Range limits: clamping, overflow, gradual underflow.
        ("9999999999999999999999999999999999E+6111", "9.999999999999999999999999999999999E+6144"),
        ("1E+6112", "1.0E+6112"), ("1E+6144", "1.000000000000000000000000000000000E+6144"), ("1E+6145", "Infinity"),
        ("-1E+999999999", "-Infinity"), ("0E+999999", "0E+6111"), ("1E-6176", "1E-6176"), ("1E-6177", "0E-6176"),
        ("5E-6177", "0E-6176"), ("6E-6177", "1E-6176"), ("15E-6177", "2E-6176"), ("-0E-9999", "-0E-6176"),
        ("NaN", "NaN"), ("nan", "NaN"), ("-NaN", "NaN"), ("Inf", "Infinity"), ("+inf", "Infinity"),
        ("-Infinity", "-Infinity"), ("INFINITY", "Infinity"),
    ])
    func decimalParsesAndPrints(input: String, output: String) throws {
        let value = try Decimal128(string: input)
        #expect(value.stringValue == output && value.description == output)
        // The printed form parses back to the same bits.
        let again = try Decimal128(string: output)
        #expect(storedBytes(again) == storedBytes(value) || (value.isNaN && again.isNaN))
    }

    @Test(arguments: ["", "abc", "1.2.3", "1e", "1e+", "--1", " 1", "1 ", "e5", ".", "1x", "0x10", "NaNa",
                      "Infinit", "+", "-", "1,5", "١"])
    func decimalRejectsInvalidStrings(input: String) {
        do {
            _ = try Decimal128(string: input)
            Issue.record("'\(input)' parsed")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput && error.message == "Invalid Decimal128 string '\(input)'")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func decimalRandomRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let digits = Int.random(in: 1...34, using: &generator)
            let coefficient = String((0..<digits).map { _ in "0123456789".randomElement(using: &generator)! })
            let exponent = Int.random(in: -6176...6111, using: &generator)
            let sign = Bool.random(using: &generator) ? "-" : ""
            let value = try Decimal128(string: "\(sign)\(coefficient)E\(exponent)")
            let printed = try Decimal128(string: value.stringValue)
            #expect(storedBytes(printed) == storedBytes(value), "\(sign)\(coefficient)E\(exponent) → \(value)")
            #expect(printed == value)
        }
    }

    @Test func decimalStoredBytesAreBID() {
        // Vectors from the BSON Decimal128 specification (little-endian bytes).
        #expect(storedBytes(dec("1")) == bytes(high: 0x3040_0000_0000_0000, low: 1))
        #expect(storedBytes(dec("-1")) == bytes(high: 0xB040_0000_0000_0000, low: 1))
        #expect(storedBytes(dec("0.1")) == bytes(high: 0x303E_0000_0000_0000, low: 1))
        #expect(storedBytes(dec("0")) == bytes(high: 0x3040_0000_0000_0000, low: 0))
        #expect(storedBytes(Decimal128()) == storedBytes(dec("0")))
        #expect(storedBytes(dec("Infinity")) == bytes(high: 0x7800_0000_0000_0000, low: 0))
        #expect(storedBytes(dec("-Infinity")) == bytes(high: 0xF800_0000_0000_0000, low: 0))
        #expect(storedBytes(dec("NaN")) == bytes(high: 0x7C00_0000_0000_0000, low: 0))
        #expect(storedBytes(Decimal128.max) == bytes(high: 0x5FFF_ED09_BEAD_87C0, low: 0x378D_8E63_FFFF_FFFF))
        #expect(storedBytes(dec("1E-6176")) == bytes(high: 0, low: 1))
        // A non-canonical coefficient (above 10^34 - 1) reads as zero; a signaling NaN is a NaN.
        #expect(decimal(storedBytes: bytes(high: 0x3041_ED09_BEAD_87C0, low: 0x378D_8E64_0000_0000)).stringValue == "0")
        #expect(decimal(storedBytes: bytes(high: 0x6C11_8000_0000_0000, low: 0)).stringValue == "0E+3")
        let signaling = decimal(storedBytes: bytes(high: 0x7E00_0000_0000_0000, low: 0))
        #expect(signaling.isNaN && signaling.isSignaling && !dec("NaN").isSignaling)
        #expect((signaling + 1).isNaN && !(signaling + 1).isSignaling)
    }

    @Test func decimalConversions() throws {
        #expect(Decimal128(42).stringValue == "42" && Decimal128(-7).stringValue == "-7")
        #expect(Decimal128(Int.min).stringValue == "-9223372036854775808")
        #expect(Decimal128(0.1).stringValue == "0.1" && Decimal128(2.0).stringValue == "2")
        #expect(Decimal128(-0.0).stringValue == "-0" && Decimal128(1e-5) == dec("0.00001"))
        #expect(Decimal128(1e20) == dec("1E+20") && Decimal128(123.456e-300) == dec("1.23456E-298"))
        #expect(Decimal128(Double.nan).isNaN && Decimal128(-Double.infinity) == -Decimal128.infinity)
        let literal: Decimal128 = 5, float: Decimal128 = 0.25, string: Decimal128 = "1.5"
        #expect(literal.stringValue == "5" && float.stringValue == "0.25" && string.stringValue == "1.5")
        #expect(Decimal128(exactly: UInt64.max)?.stringValue == "18446744073709551615")
        #expect(Decimal128(exactly: UInt128(9_999_999_999_999_999) * 1_000_000_000_000_000_000) != nil)
        #expect(Decimal128(exactly: UInt128.max) == nil && Decimal128(exactly: Int8(-3)) == -3)
        #expect(Decimal128.zero.stringValue == "0" && Decimal128.min == -Decimal128.max)
        #expect(dec("-2.5").magnitude.stringValue == "2.5")
        // Codable: a string, or an integer or a double on input.
        let data = try JSONEncoder().encode([dec("1.50"), dec("-1E+10"), .nan])
        #expect(String(decoding: data, as: UTF8.self) == #"["1.50","-1E+10","NaN"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.50", 3, 2.5, "-Inf"]"#.utf8))
        #expect(decoded.map(\.stringValue) == ["1.50", "3", "2.5", "-Infinity"])
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Decimal128].self, from: Data(#"["x"]"#.utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)) }
    }

    // MARK: Decimal128 comparing

    @Test func decimalEqualityIgnoresTheExponent() {
        #expect(dec("1.0") == dec("1.00") && dec("1.00") == 1 && dec("100") == dec("1E+2"))
        #expect(dec("-0") == dec("0") && dec("0E+10") == dec("0.000"))
        #expect(dec("1.1") != dec("1.10000001") && dec("1") != dec("-1"))
        #expect(Set([dec("1.0"), dec("1.00"), 1, dec("1E0"), dec("0.1E1"), dec("0"), dec("-0.00"), dec("2")]).count == 3)
        #expect(dec("Infinity") == .infinity && dec("-Inf") != .infinity)
        // NaN equals NaN (same bits) so that == is an equivalence, as in Realm's sorting.
        #expect(Decimal128.nan == .nan && Set([Decimal128.nan, .nan, 1]).count == 2)
        #expect(Decimal128.nan != 0 && !(Decimal128.nan > .nan))
    }

    @Test func decimalOrderIsNumeric() {
        let ordered = ["NaN", "-Infinity", "-1E+6144", "-1E+10", "-10", "-9.99", "-1", "-0.5", "-1E-6176", "0", "1E-6176",
                       "0.001", "0.01", "0.1", "0.99999999999999999999999999999999", "1", "1.000000000000000000000000000000001",
                       "2", "10", "99", "1E+2", "1E+10", "9.999999999999999999999999999999999E+6144", "Infinity"].map(dec)
        #expect(ordered.shuffled().sorted().map(\.stringValue) == ordered.map(\.stringValue))
        for (lower, higher) in zip(ordered, ordered.dropFirst()) {
            #expect(lower < higher && higher > lower && lower <= higher && !(higher <= lower) && lower != higher,
                    "\(lower) < \(higher)")
        }
        #expect(dec("1.0") <= dec("1.00") && dec("1.0") >= dec("1.00") && !(dec("1.0") < dec("1.00")))
        #expect(dec("-0") >= dec("0") && !(dec("12.5") > dec("1.25E+1")))
    }

    // MARK: Decimal128 arithmetic

    @Test func decimalArithmeticOnSimpleValues() {
        #expect((dec("1.10") + dec("2.205")).stringValue == "3.305")
        #expect((dec("0.1") + dec("0.2")).stringValue == "0.3" && dec("0.1") + dec("0.2") == dec("0.3"))
        #expect((Decimal128(1) + 1).stringValue == "2" && (dec("10") - dec("0.01")).stringValue == "9.99")
        #expect((dec("1") - dec("1")).stringValue == "0" && (dec("-0") + dec("-0")).stringValue == "-0")
        #expect((dec("-0") + dec("0")).stringValue == "0" && (dec("0.00") + dec("5")).stringValue == "5.00")
        #expect((dec("2.50") * 2).stringValue == "5.00" && (dec("1.5") * dec("1.5")).stringValue == "2.25")
        #expect((dec("-2") * 3).stringValue == "-6" && (dec("-2") * dec("-0.5")).stringValue == "1.0")
        #expect((Decimal128(6) / 2).stringValue == "3" && (Decimal128(1) / 4).stringValue == "0.25")
        #expect((dec("1.00") / 4).stringValue == "0.25" && (dec("7.50") / dec("2.5")).stringValue == "3.0")
        #expect((Decimal128(1) / 1024).stringValue == "0.0009765625" && (dec("0") / 7).stringValue == "0")
        #expect((Decimal128(1) / 3).stringValue == "0.3333333333333333333333333333333333")
        #expect((Decimal128(2) / 3).stringValue == "0.6666666666666666666666666666666667")
        #expect((Decimal128(-1) / 7).stringValue == "-0.1428571428571428571428571428571429")
        #expect((Decimal128(1) / 3 * 3).stringValue == "0.9999999999999999999999999999999999")
        var total: Decimal128 = 0
        for _ in 0..<10 { total += dec("0.1") }
        #expect(total == 1 && total.stringValue == "1.0")
        var x: Decimal128 = 10
        x -= 4; x *= 2; x /= 3
        #expect(x == 4 && -x == -4 && (-x).magnitude == x)
        x.negate()
        #expect(x.stringValue == "-4" && x.distance(to: 1) == 5 && x.advanced(by: 1) == -3)
        #expect([dec("1.5"), 2, dec("0.25")].reduce(0, +) == dec("3.75"))
    }

    @Test func decimalArithmeticRoundsToThirtyFourDigits() {
        #expect((dec("9999999999999999999999999999999999") + 1).stringValue == "1.000000000000000000000000000000000E+34")
        #expect((dec("1E+40") + dec("1234E+10")).stringValue == "1.000000000000000000000000001234E+40")
        #expect((dec("1E+80") - 1).stringValue == "1.000000000000000000000000000000000E+80")
        #expect((dec("1E+80") + dec("1E-80")) == dec("1E+80") && (dec("1E-80") - dec("1E+80")) == dec("-1E+80"))
        #expect((dec("1E+80") + 0).stringValue == "1.000000000000000000000000000000000E+80")
        // 35 significant digits: a tie rounds to even.
        #expect((dec("1234567890123456789012345678901234") * 10 + 5).stringValue == "1.234567890123456789012345678901234E+34")
        #expect((dec("1234567890123456789012345678901235") * 10 + 5).stringValue == "1.234567890123456789012345678901236E+34")
        #expect((dec("1111111111111111111") * dec("1111111111111111111")).stringValue == "1.234567901234567900987654320987654E+36")
        // Overflow to infinity, clamping, underflow towards zero.
        #expect(Decimal128.max + .max == .infinity && Decimal128.max * -2 == -.infinity)
        #expect((dec("1E+6111") * 10).stringValue == "1.0E+6112" && (dec("1E-6176") / 2).stringValue == "0E-6176")
        #expect((dec("3E-6176") / 2).stringValue == "2E-6176" && (dec("1E-4000") * dec("1E-4000")).stringValue == "0E-6176")
    }

    @Test func decimalArithmeticWithNaNAndInfinity() {
        let inf = Decimal128.infinity
        #expect((Decimal128(1) / 0) == inf && (Decimal128(-1) / 0) == -inf && (dec("-0") / -1).stringValue == "0")
        #expect((Decimal128(0) / 0).isNaN && (inf - inf).isNaN && (inf * 0).isNaN && (inf / inf).isNaN)
        #expect((Decimal128.nan + 1).isNaN && (1 - Decimal128.nan).isNaN && (Decimal128.nan * 2).isNaN && (Decimal128(2) / .nan).isNaN)
        #expect(inf + inf == inf && inf - 1 == inf && -inf * -2 == inf && inf / -2 == -inf)
        #expect((Decimal128(1) / inf).stringValue == "0" && (Decimal128(-1) / inf).stringValue == "-0")
        #expect(inf.isInfinite && !inf.isNaN && Decimal128.nan.isNaN && !Decimal128.nan.isInfinite && !Decimal128(1).isNaN)
    }

    @Test func decimalArithmeticAgreesWithFoundationDecimal() {
        var generator = SystemRandomNumberGenerator()
        func random() -> (String, Decimal) {
            let digits = Int.random(in: 1...15, using: &generator)
            let coefficient = Int.random(in: 0..<Int(pow(10, Double(digits))), using: &generator)
            let exponent = Int.random(in: -8...8, using: &generator)
            let text = "\(Bool.random(using: &generator) ? "-" : "")\(coefficient)E\(exponent)"
            return (text, Decimal(string: text)!)
        }
        for _ in 0..<1_000 {
            let (a, da) = random(), (b, db) = random()
            // Sums and products of 15-digit values are exact in both types.
            #expect(dec(a) + dec(b) == dec("\(da + db)"), "\(a) + \(b)")
            #expect(dec(a) - dec(b) == dec("\(da - db)"), "\(a) - \(b)")
            #expect(dec(a) * dec(b) == dec("\(da * db)"), "\(a) * \(b)")
        }
    }

    // MARK: Enums

    @Test func enumsStoreTheirRawValues() {
        let object = ValueTypesObject()
        #expect(object.status == .active && object.optionalStatus == nil && object.color == .blue && object.optionalColor == nil)
        // The properties' kinds are the raw types': dynamic access sees raw values.
        #expect(object["status"] as? Int == 1 && object["color"] as? String == "blue" && object["optionalStatus"] == nil)
        object.status = .done
        object.optionalColor = .green
        #expect(object["status"] as? Int == 9 && object["optionalColor"] as? String == "green")
        #expect(ValueTypesStatus._rlmDefaultValue == .active && ValueTypesColor._rlmDefaultValue == .red)
        #expect(ValueTypesStatus._rlmFromValue(5._rlmValue) == .paused && ValueTypesStatus._rlmFromValue(6._rlmValue) == nil)
        #expect(ValueTypesColor._rlmFromValue("red"._rlmValue) == .red && ValueTypesColor._rlmFromValue("pink"._rlmValue) == nil)
    }

    @Test func anInvalidStoredEnumValueTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
            try realm.write {
                realm.add(ValueTypesRawHolder(value: ["status": 5]))
                realm.add(ValueTypesRawHolder(value: ["status": 7]))
            }
            let holders = realm.objects(ValueTypesEnumHolder.self)
            precondition(holders[0].status == .paused, "a valid value reads back")
            _ = holders[1].status
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("'7' is not a valid value for ValueTypesStatus (property 'ValueTypesEnumHolder.status')"),
                    "\(message)")
        }
    }

    // MARK: Round trips through a realm

    @Test func valueTypesRoundTripThroughAFile() throws {
        let directory = try TemporaryDirectory()
        let config = fileConfiguration(directory, "values.realm")
        let firstId = ObjectId.generate(), otherId = try ObjectId(string: "0123456789abcdefABCDEF01")
        let defaultsId = ObjectId.generate()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let object = ValueTypesObject()
                object.id = firstId
                object.objectId = otherId
                object.optionalObjectId = otherId
                object.decimal = dec("-123.4500")
                object.optionalDecimal = .max
                object.status = .paused
                object.optionalStatus = .done
                object.color = .green
                object.optionalColor = .red
                realm.add(object)
                realm.add(ValueTypesObject(value: ["id": defaultsId]))  // every other property default
                let special = ValueTypesObject()
                special.decimal = .nan
                special.optionalDecimal = -.infinity
                realm.add(special)
                let negativeZero = ValueTypesObject()
                negativeZero.decimal = dec("-0E-6176")
                negativeZero.optionalDecimal = dec("1E-6176")
                realm.add(negativeZero)
            }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(ValueTypesObject.self).count == 4)
        let object = try #require(realm.object(ofType: ValueTypesObject.self, forPrimaryKey: firstId))
        #expect(object.id == firstId && object.objectId == otherId && object.optionalObjectId == otherId)
        #expect(object.decimal.stringValue == "-123.4500" && object.optionalDecimal == .max)
        #expect(object.status == .paused && object.optionalStatus == .done && object.color == .green && object.optionalColor == .red)
        let defaults = try #require(realm.object(ofType: ValueTypesObject.self, forPrimaryKey: defaultsId))
        #expect(defaults.objectId == ObjectId() && defaults.optionalObjectId == nil)
        #expect(defaults.decimal.stringValue == "0" && defaults.optionalDecimal == nil)
        #expect(defaults.status == .active && defaults.optionalStatus == nil && defaults.color == .blue && defaults.optionalColor == nil)
        let rest = realm.objects(ValueTypesObject.self).filter { $0.id != firstId && $0.id != defaultsId }
        let special = try #require(rest.first { $0.decimal.isNaN })
        #expect(special.optionalDecimal == -.infinity)
        let negativeZero = try #require(rest.first { !$0.decimal.isNaN })
        #expect(negativeZero.decimal.stringValue == "-0E-6176" && negativeZero.optionalDecimal?.stringValue == "1E-6176")
        #expect(realm.object(ofType: ValueTypesObject.self, forPrimaryKey: ObjectId()) == nil)

        // Managed writes, including back to nil.
        try realm.write {
            object.decimal += dec("0.0500")
            object.optionalDecimal = nil
            object.optionalObjectId = nil
            object.optionalStatus = nil
            object.optionalColor = nil
            object.status = .done
        }
        #expect(object.decimal.stringValue == "-123.4000" && object.optionalDecimal == nil && object.optionalObjectId == nil)
        #expect(object.optionalStatus == nil && object.optionalColor == nil && object.status == .done)
    }

    @Test func dynamicAccessTakesAndGivesValueTypes() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let id = ObjectId.generate(), other = ObjectId.generate()
        let object = ValueTypesObject(value: ["id": id, "objectId": other, "decimal": "2.50", "optionalDecimal": 3,
                                              "status": 5, "color": "red", "optionalColor": "green"])
        #expect(object.id == id && object.objectId == other && object.decimal.stringValue == "2.50")
        #expect(object.optionalDecimal == 3 && object.status == .paused && object.color == .red && object.optionalColor == .green)
        try realm.write { realm.add(object) }
        #expect(object["id"] as? ObjectId == id && object["optionalObjectId"] == nil)
        #expect((object["decimal"] as? Decimal128)?.stringValue == "2.50" && object["optionalDecimal"] as? Decimal128 == 3)
        try realm.write {
            object["decimal"] = Decimal128(0.5)
            object["optionalDecimal"] = 1.25
            object["optionalObjectId"] = id
            object["status"] = 9
        }
        #expect(object.decimal == dec("0.5") && object.optionalDecimal == dec("1.25") && object.optionalObjectId == id)
        #expect(object.status == .done)
        // Updating by an ObjectId primary key.
        try realm.write { realm.create(ValueTypesObject.self, value: ["id": id, "decimal": "7"], update: .modified) }
        #expect(realm.objects(ValueTypesObject.self).count == 1 && object.decimal == 7 && object.status == .done)
        #expect(throws: Realm.Error.self) {
            try realm.write { realm.add(ValueTypesObject(value: ["id": id])) }
        }
    }
}

@Suite struct EnumByNameTests {
    @Test func enumCasesCanBeSetByName() throws {
        let object = ValueTypesObject(value: ["status": ValueTypesStatus.paused, "color": ValueTypesColor.red,
                                              "optionalStatus": ValueTypesStatus.done])
        #expect(object.status == .paused && object.color == .red && object.optionalStatus == .done)
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(object) }
        try realm.write { object["color"] = ValueTypesColor.green }
        #expect(object.color == .green && object.status == .paused)
    }
}
