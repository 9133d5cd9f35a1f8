import Testing

@testable import RealmStorage
import RealmTestSupport

/// Random inserts, replacements and removals checked against a dictionary, across commits,
/// reopening and verifying the file.
@Suite struct BTreeModelTests {
  @Test(arguments: 0..<12)
  func randomOperationsMatchADictionary(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    var generator = SplitMix64(seed: seed)
    var model: [UInt64: [UInt8]] = [:]
    var tree: TreeID = 0
    var database = try Database.open(path: path, options: DatabaseOptions(durability: .none))

    for round in 0..<8 {
      let write = try database.beginWrite()
      if round == 0 { tree = try write.createTree() }
      // Small key space so replacements and removals of present keys are frequent.
      let keySpace = UInt64(seed % 3 == 0 ? 200 : 5000)
      for step in 0..<1500 {
        let key = generator.next() % keySpace
        if generator.next() % 3 == 0 {
          let removed = try write.remove(tree, key: key)
          #expect(removed == (model.removeValue(forKey: key) != nil))
        } else {
          // Mostly small values, sometimes overflow-sized ones.
          let length =
            generator.next() % 20 == 0 ? Int(generator.next() % 9000) : Int(generator.next() % 120)
          let value = testValue(key: key, version: UInt64(round * 10_000 + step), length: length)
          let inserted = try write.put(tree, key: key, value: value)
          #expect(inserted == (model.updateValue(value, forKey: key) == nil))
        }
      }
      #expect(try write.count(of: tree) == UInt64(model.count))
      try write.commit()

      do {
        let read = try database.beginRead()
        #expect(try read.count(of: tree) == UInt64(model.count))
        var seen: [UInt64: [UInt8]] = [:]
        var previous: UInt64?
        try read.forEach(in: read.root(of: tree)) { key, value in
          if let previous { #expect(previous < key) }
          previous = key
          seen[key] = Array(value)
          return true
        }
        #expect(seen == model)
        for key in model.keys.prefix(50) { #expect(try read.value(tree, key: key) == model[key]) }
        #expect(try read.value(tree, key: keySpace + 1) == nil)
      }  // the reader ends here, so the database can close below
      let report = try database.verify()
      #expect(report.entries == UInt64(model.count))

      if round % 3 == 2 {  // reopen from the file
        try database.close()
        database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
      }
    }
    // Remove everything: the tree collapses to empty and every page is free again.
    let write = try database.beginWrite()
    for key in model.keys { #expect(try write.remove(tree, key: key)) }
    #expect(try write.root(of: tree).isEmpty)
    try write.commit()
    let report = try database.verify()
    #expect(report.entries == 0)
  }

  @Test func sequentialInsertsFillLeaves() throws {
    let database = try Database.inMemory()
    let write = try database.beginWrite()
    let tree = try write.createTree()
    let value = [UInt8](repeating: 7, count: 40)
    for key in 0..<UInt64(100_000) { try write.put(tree, key: key, value: value) }
    try write.commit()
    let report = try database.verify()
    // 100k entries of 52 bytes (12 slot + 40 value) need ~1,270 full pages; half-full splits would need ~2,540.
    #expect(report.usedPages < 1_400, "pages used: \(report.usedPages)")
    #expect(report.entries == 100_000)
  }

  @Test func valuesOverTheLimitAreRejected() throws {
    let database = try Database.inMemory()
    let write = try database.beginWrite()
    let tree = try write.createTree()
    let limit = StorageLimits.maximumValueLength
    try write.put(tree, key: 1, value: [UInt8](repeating: 1, count: limit))
    #expect(throws: StorageError.self) {
      try write.put(tree, key: 2, value: [UInt8](repeating: 1, count: limit + 1))
    }
    do {
      try write.put(tree, key: 2, value: [UInt8](repeating: 1, count: limit + 1))
    } catch let error as StorageError {
      #expect(error.code == .invalidInput)
    }
    try write.commit()
    let read = try database.beginRead()
    #expect(try read.value(tree, key: 1)?.count == limit)
    #expect(try read.value(tree, key: 2) == nil)
  }
}
