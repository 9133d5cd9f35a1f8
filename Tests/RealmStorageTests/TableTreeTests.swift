import Testing
@testable import RealmStorage
import RealmTestSupport

/// Tables of cluster leaves checked against a dictionary model: every column kind, nulls, ints
/// that need wider columns, strings that spill to overflow runs, a column added part-way.
@Suite struct TableTreeTests {
    static let baseLayout: [ColumnSpec] = [
        ColumnSpec(.int), ColumnSpec(.int, nullable: true), ColumnSpec(.bool), ColumnSpec(.float),
        ColumnSpec(.double), ColumnSpec(.bytes), ColumnSpec(.bytes, nullable: true), ColumnSpec(.fixed, fixedWidth: 12),
    ]
    static let addedColumn = ColumnSpec(.double, nullable: true)

    static func randomValue(_ spec: ColumnSpec, _ generator: inout SplitMix64) -> ColumnValue {
        if spec.nullable && generator.next() % 4 == 0 { return .null }
        switch spec.kind {
        case .int:
            // Mostly small values, sometimes wide ones, so column widths change.
            switch generator.next() % 10 {
            case 0: return .int(Int64(bitPattern: generator.next()))
            case 1: return .int(0)
            case 2: return .int(Int64(Int32.min) - 1)
            default: return .int(Int64(generator.next() % 200) - 100)
            }
        case .bool: return .bool(generator.next() % 2 == 0)
        case .float: return .float(Float(generator.next() % 1000) / 7)
        case .double: return .double(Double(Int64(bitPattern: generator.next())) / 3)
        case .bytes:
            let length = generator.next() % 25 == 0 ? Int(generator.next() % 6000) : Int(generator.next() % 40)
            return .bytes((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        case .fixed: return .fixed((0..<Int(spec.fixedWidth)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        }
    }

    @Test(arguments: 0..<8)
    func randomRowOperationsMatchAModel(seed: UInt64) async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let path = directory.path()
            var generator = SplitMix64(seed: seed)
            var layout = Self.baseLayout
            var model: [UInt64: [ColumnValue]] = [:]
            var table: TreeID = 0
            var database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
            // Seeds 6 and 7 draw keys from the whole 64-bit range, extremes included, so frames of
            // reference of keys wrap and widen; the others from a small range.
            let keyPool: [UInt64]? = seed >= 6 ? [0, 1, .max, .max - 1, 1 << 63, (1 << 63) - 1] + (0..<300).map { _ in generator.next() } : nil

            for round in 0..<6 {
                if round == 3 {  // a migration adds a column; existing rows read its default
                    layout.append(Self.addedColumn)
                    for key in model.keys { model[key]!.append(.null) }
                }
                let write = try database.beginWrite()
                if round == 0 { table = try write.createTree() }
                let keySpace = UInt64(seed % 2 == 0 ? 300 : 4000)
                for _ in 0..<800 {
                    let key = keyPool.map { $0[Int(generator.next() % UInt64($0.count))] } ?? generator.next() % keySpace
                    switch generator.next() % 4 {
                    case 0:
                        #expect(try write.removeRow(table, key: key) == (model.removeValue(forKey: key) != nil))
                    case 1 where model[key] != nil:
                        let column = Int(generator.next() % UInt64(layout.count))
                        let value = Self.randomValue(layout[column], &generator)
                        try write.updateValue(table, key: key, column: column, value: value, layout: layout)
                        model[key]![column] = value
                    default:
                        let values = layout.map { Self.randomValue($0, &generator) }
                        if model[key] == nil {
                            try write.insertRow(table, key: key, values: values, layout: layout)
                            model[key] = values
                        } else {
                            #expect(throws: StorageError.self) {
                                try write.insertRow(table, key: key, values: values, layout: layout)
                            }
                        }
                    }
                }
                #expect(try write.count(of: table) == UInt64(model.count))
                try write.commit()

                do {
                    let read = try database.beginRead()
                    let root = try read.root(of: table)
                    var seen = 0
                    var previous: UInt64?
                    try read.forEachCluster(in: root) { leaf in
                        for row in 0..<leaf.count {
                            let key = leaf.key(row)
                            if let previous { #expect(previous < key) }
                            previous = key
                            let expected = try #require(model[key])
                            let actual = try layout.indices.map { try read.value(leaf, row: row, column: $0, spec: layout[$0]) }
                            #expect(actual == expected, "key \(key)")
                            seen += 1
                        }
                        return true
                    }
                    #expect(seen == model.count)
                    for key in model.keys.prefix(100) {
                        let (leaf, row) = try #require(try read.row(in: root, key: key))
                        #expect(try read.value(leaf, row: row, column: 0, spec: layout[0]) == model[key]![0])
                    }
                    #expect(try read.row(in: root, key: keySpace + 5) == nil || keyPool?.contains(keySpace + 5) == true)
                }
                let report = try database.verify()
                #expect(report.entries == UInt64(model.count))
                if round % 2 == 1 {
                    try database.close()
                    database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
                }
            }
            // Deleting every row frees every table page.
            let write = try database.beginWrite()
            for key in model.keys { #expect(try write.removeRow(table, key: key)) }
            #expect(try write.root(of: table).isEmpty)
            try write.commit()
            #expect(try database.verify().entries == 0)
        }
    }

    /// Ascending inserts skip the existence check while the transaction knows the table's
    /// greatest key (``WriteTransaction/rightEdge``): duplicates of it and of older keys must
    /// still be refused, and ``WriteTransaction/lastRowKey(in:)`` must follow removals of the
    /// greatest key, inserts below it, a second table and a dropped one.
    @Test(arguments: 0..<4)
    func ascendingInsertsKeepTheirChecks(seed: UInt64) async throws {
        try await BlockingCall.offThePool {
            let database = try Database.inMemory()
            let layout = [ColumnSpec(.int), ColumnSpec(.bytes)]
            var generator = SplitMix64(seed: seed)
            for round in 0..<3 {
                let write = try database.beginWrite()
                var models: [TreeID: Set<UInt64>] = [:]
                for _ in 0..<2 { models[try write.createTree()] = [] }
                if round == 2, let dropped = models.keys.min() {  // a dropped table's right edge is forgotten
                    try write.insertRow(dropped, key: 7, values: [.int(7), .bytes([7])], layout: layout)
                    try write.dropTree(dropped)
                    models[dropped] = nil
                    let recreated = try write.createTree()
                    #expect(try write.lastRowKey(in: recreated) == nil)
                    models[recreated] = []
                }
                let tables = models.keys.sorted()
                for _ in 0..<3_000 {
                    let table = tables[Int(generator.next() % UInt64(tables.count))]
                    let keys = models[table]!
                    let last = keys.max()
                    let key: UInt64 = switch generator.next() % 8 {
                    case 0: last ?? 0  // the greatest key again
                    case 1: keys.isEmpty ? 0 : keys.sorted()[Int(generator.next() % UInt64(keys.count))]  // an older key
                    case 2: generator.next() % 4_000  // anywhere
                    default: (last ?? 0) + 1 + generator.next() % 3  // ascending
                    }
                    if generator.next() % 5 == 0 {
                        let target = generator.next() % 2 == 0 ? (last ?? 0) : key  // often the greatest
                        #expect(try write.removeRow(table, key: target) == (models[table]!.remove(target) != nil))
                    } else if keys.contains(key) {
                        #expect(throws: StorageError.self) {
                            try write.insertRow(table, key: key, values: [.int(0), .bytes([])], layout: layout)
                        }
                    } else {
                        try write.insertRow(table, key: key, values: [.int(Int64(key)), .bytes(Array("row \(key)".utf8))], layout: layout)
                        models[table]!.insert(key)
                    }
                    #expect(try write.lastRowKey(in: table) == models[table]!.max())
                }
                for table in tables { #expect(try write.count(of: table) == UInt64(models[table]!.count)) }
                try write.commit()
                let read = try database.beginRead()
                for table in tables {
                    var keys: [UInt64] = []
                    try read.forEachCluster(in: read.root(of: table)) { leaf in leaf.appendKeys(to: &keys); return true }
                    #expect(keys == models[table]!.sorted())
                }
            }
            #expect(try database.verify().usedPages > 0)
        }
    }

    @Test func appendedRowsPackLeaves() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let table = try write.createTree()
        let layout: [ColumnSpec] = [ColumnSpec(.bytes), ColumnSpec(.bytes), ColumnSpec(.int), ColumnSpec(.double), ColumnSpec(.double)]
        for key in 0..<UInt64(20_000) {
            try write.insertRow(table, key: key, values: [
                .bytes(Array("name-abcdef".utf8)), .bytes(Array("person\(key)@example.com".utf8)),
                .int(Int64(key % 100)), .double(Double(key) / 7), .double(1_700_000_000),
            ], layout: layout)
        }
        try write.commit()
        let report = try database.verify()
        // Consecutive keys and ints in 0..<100 take a byte each (frames of reference):
        // 1 + 15 + 27 + 1 + 8 + 8 ≈ 60 bytes a row, ~67 rows a page, so ~300 leaves
        // (with 8-byte keys it was ~330).
        #expect(report.usedPages < 315, "pages used: \(report.usedPages)")
        let read = try database.beginRead()
        try read.forEachCluster(in: read.root(of: table)) { leaf in
            #expect(leaf.keyWidth == 1 && leaf.width(2) == 1)
            return true
        }
    }

    /// Byte strings of up to about a page stay in the leaves, packed with their neighbours:
    /// 2,000 appended rows of 1,100 bytes take about 2,000 × 1,100 / 4,096 ≈ 540 pages of
    /// leaves, not a 4 KiB overflow page each (format 3 used 2,000 overflow pages and ~10 leaves).
    @Test func mediumValuesShareLeaves() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let table = try write.createTree()
        let layout = [ColumnSpec(.bytes), ColumnSpec(.int)]
        for key in 0..<UInt64(2_000) {
            try write.insertRow(table, key: key, values: [.bytes(Array(repeating: UInt8(key % 251), count: 1_100)), .int(Int64(key))],
                                layout: layout)
        }
        try write.commit()
        let report = try database.verify()
        #expect(report.pagesByKind[.overflow, default: 0] == 0)
        #expect(report.usedPages < 700, "pages used: \(report.usedPages)")
        #expect(report.entries == 2_000)
    }

    /// A row of most of a page inserted, or grown, in the middle of a one-page leaf of small
    /// rows needs three leaves: the rows before, the row, the rows after (no cut in two leaves
    /// both parts within a page). Rows this small keep one-page leaves, so the cut stays at one page.
    @Test(arguments: [false, true])
    func aLargeRowInTheMiddleOfALeafSplitsItInThree(grow: Bool) throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let table = try write.createTree()
        let layout = [ColumnSpec(.bytes)]
        func value(_ key: UInt64, _ count: Int) -> ColumnValue { .bytes(Array(repeating: UInt8(key % 251), count: count)) }
        var expected: [UInt64: Int] = [:]
        for key in stride(from: UInt64(0), to: 160, by: 2) {  // 80 rows of 40 bytes: about 3.5 KB
            try write.insertRow(table, key: key, values: [value(key, 40)], layout: layout)
            expected[key] = 40
        }
        #expect(try Self.leafCount(write, table) == 1)
        if grow {
            try write.updateValue(table, key: 80, column: 0, value: value(80, 3_900), layout: layout)
            expected[80] = 3_900
        } else {
            try write.insertRow(table, key: 81, values: [value(81, 3_900)], layout: layout)
            expected[81] = 3_900
        }
        #expect(try Self.leafCount(write, table) == 3)
        try write.commit()
        let read = try database.beginRead()
        let root = try read.root(of: table)
        for (key, count) in expected {
            let (leaf, row) = try #require(try read.row(in: root, key: key))
            #expect(leaf.pages == 1)
            guard case .inline = leaf.storedBytes(row, 0) else { Issue.record("key \(key) is not inline"); continue }
            #expect(try read.value(leaf, row: row, column: 0, spec: layout[0]) == value(key, count))
        }
        #expect(try database.verify().entries == UInt64(expected.count))
    }

    /// Rows of medium values (W13's: 0–4,000 bytes) go to four-page leaves, which lose less at
    /// their ends than one-page leaves (a row never straddles two leaves): 3,000 rows take about
    /// a fifth fewer pages than 3,000 × 2,000 / 4,096 / 0.75, what one-page leaves needed.
    @Test func mediumRowsGoToWideLeaves() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let table = try write.createTree()
        let layout = [ColumnSpec(.int), ColumnSpec(.bytes), ColumnSpec(.int)]
        var generator = SplitMix64(seed: 13)
        var payload = 0
        for key in 1...UInt64(3_000) {
            let length = Int(generator.next() % 4_001)
            payload += length
            try write.insertRow(table, key: key, values: [.int(Int64(key)), .bytes(Array(repeating: 0x61, count: length)), .int(7)],
                                layout: layout)
        }
        try write.commit()
        let report = try database.verify()
        let read = try database.beginRead()
        var wide = 0, narrow = 0
        try read.forEachCluster(in: read.root(of: table)) { leaf in
            if leaf.pages == 4 { wide += 1 } else { narrow += 1 }
            return true
        }
        #expect(narrow <= 1 && wide > 300, "\(wide) wide, \(narrow) narrow leaves")
        // Payload over pages: about 0.92 with four-page leaves, 0.75 with one-page ones.
        let fill = Double(payload) / Double(report.pagesByKind[.cluster, default: 0] * UInt64(PageLayout.pageSize))
        #expect(fill > 0.85, "leaves hold \(fill) payload")
    }

    /// The number of leaves of a table as a write transaction sees it.
    static func leafCount(_ write: WriteTransaction, _ table: TreeID) throws -> Int {
        var leaves = 0
        try write.forEachCluster(in: write.root(of: table)) { _ in
            leaves += 1
            return true
        }
        return leaves
    }

    /// Rows whose strings are 0–4,500 bytes in two columns (so some rows spill their larger
    /// string to an overflow run), inserted in random order, grown, shrunk and deleted across
    /// commits: the table matches a model and every page passes the integrity check.
    @Test(arguments: 0..<6)
    func mediumValuesMatchAModel(seed: UInt64) async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let path = directory.path()
            var generator = SplitMix64(seed: seed)
            let layout = [ColumnSpec(.bytes), ColumnSpec(.int), ColumnSpec(.bytes, nullable: true)]
            func body() -> ColumnValue {
                .bytes((0..<Int(generator.next() % 4_501)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            }
            var model: [UInt64: [ColumnValue]] = [:]
            var database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
            var table: TreeID = 0
            for round in 0..<5 {
                let write = try database.beginWrite()
                if round == 0 { table = try write.createTree() }
                for _ in 0..<400 {
                    let key = generator.next() % 600
                    switch generator.next() % 5 {
                    case 0:
                        #expect(try write.removeRow(table, key: key) == (model.removeValue(forKey: key) != nil))
                    case 1 where model[key] != nil, 2 where model[key] != nil:
                        let column = generator.next() % 2 == 0 ? 0 : 2
                        let value = column == 2 && generator.next() % 3 == 0 ? ColumnValue.null : body()
                        try write.updateValue(table, key: key, column: column, value: value, layout: layout)
                        model[key]![column] = value
                    default:
                        guard model[key] == nil else { continue }
                        let values = [body(), .int(Int64(key)), generator.next() % 2 == 0 ? .null : body()]
                        try write.insertRow(table, key: key, values: values, layout: layout)
                        model[key] = values
                    }
                }
                try write.commit()
                do {
                    let read = try database.beginRead()
                    var seen = 0
                    try read.forEachCluster(in: read.root(of: table)) { leaf in
                        for row in 0..<leaf.count {
                            let key = leaf.key(row)
                            let actual = try layout.indices.map { try read.value(leaf, row: row, column: $0, spec: layout[$0]) }
                            #expect(actual == model[key], "key \(key)")
                            seen += 1
                        }
                        return true
                    }
                    #expect(seen == model.count)
                }
                #expect(try database.verify().entries == UInt64(model.count))
                try database.close()
                database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
            }
            try database.close()
        }
    }

    /// Frames of reference store any 64-bit value at width 8 and wrap consistently at every
    /// width: signed values, a base above the value, the extremes.
    @Test func framesOfReferenceRoundTrip() {
        let page = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 8)
        defer { page.deallocate() }
        let values: [UInt64] = [0, 1, 127, 128, 255, 256, 65_535, 1 << 32, .max, .max - 1, UInt64(bitPattern: -1), 1 << 63]
        for base in values {
            for width in [0, 1, 2, 4, 8] {
                page.setU64(0, base)
                for (row, value) in values.enumerated() {
                    let fits = FrameOfReference.fits(value, UnsafeRawPointer(page), 0, width: width)
                    #expect(fits == (value &- base <= FrameOfReference.maximumOffset(width: width)))
                    guard fits else { continue }
                    FrameOfReference.store(value, in: page, 0, width: width, row: row)
                    #expect(FrameOfReference.load(UnsafeRawPointer(page), 0, width: width, row: row) == value)
                }
            }
        }
        #expect(FrameOfReference.width(range: 0) == 0 && FrameOfReference.width(range: 255) == 1)
        #expect(FrameOfReference.width(range: 256) == 2 && FrameOfReference.width(range: 1 << 32) == 8)
    }

    @Test func mismatchedValuesAreRejectedWithoutChanges() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let table = try write.createTree()
        let layout = [ColumnSpec(.int), ColumnSpec(.bytes)]
        #expect(throws: StorageError.self) { try write.insertRow(table, key: 1, values: [.bytes([]), .int(1)], layout: layout) }
        #expect(throws: StorageError.self) { try write.insertRow(table, key: 1, values: [.null, .bytes([])], layout: layout) }
        #expect(throws: StorageError.self) { try write.insertRow(table, key: 1, values: [.int(1)], layout: layout) }
        #expect(throws: StorageError.self) {
            try write.insertRow(table, key: 1, values: [.int(1), .bytes([UInt8](repeating: 0, count: StorageLimits.maximumValueLength + 1))], layout: layout)
        }
        #expect(throws: StorageError.self) { try write.updateValue(table, key: 9, column: 0, value: .int(1), layout: layout) }
        #expect(try write.count(of: table) == 0)
        try write.commit()
        // verify() proves no page leaked (each is used or free exactly once); the table is empty.
        #expect(try database.verify().entries == 0)
    }
}

