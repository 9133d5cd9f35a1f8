import Foundation
import RealmActors

/// One writer of the streamed run (`write`): its own actor and handle; ids in its own range.
/// It appends each acknowledged commit's number to DIR/acks-<n>, which `compare` counts.
actor Writer {
    let number: Int
    let acknowledgements: FileHandle
    init(number: Int) throws {
        self.number = number
        let path = directory.appendingPathComponent("acks-\(number)").path
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        acknowledgements = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try acknowledgements.seekToEnd()
    }

    func run(until deadline: ContinuousClock.Instant) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        var random = SystemRandomNumberGenerator()
        let base = number * 1_000_000
        var commit = 0
        while ContinuousClock.now < deadline {
            commit += 1
            let current = commit
            try await realm.asyncWrite {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let id = base + Int.random(in: 0..<300, using: &random)
                    let item = realm.object(ofType: Item.self, forPrimaryKey: id)
                    switch Int.random(in: 0..<12, using: &random) {
                    case 0..<4 where item == nil:
                        let owner = realm.create(Owner.self, value: ["name": "owner-\(number)-\(id % 7)", "city": "c\(current % 5)"], update: .modified)
                        realm.create(Item.self, value: ["id": id, "title": "item \(id) \(current)", "score": Double(current) / 3,
                                                        "count": current, "tags": ["a\(current % 3)"], "owner": owner,
                                                        "place": ["city": "p\(current % 4)", "floor": 0]])
                    case 4..<7 where item != nil:
                        item!.title = "edited \(current) \"quoted\" ünïcode"
                        item!.score += 0.5
                        item!.flag.toggle()
                    case 7 where item != nil:
                        item!.tags.append("t\(current)")
                    case 8 where item != nil:
                        realm.delete(item!)
                    case 9 where current % 3 == 0:
                        realm.create(Event.self, value: ["name": "e\(number)-\(current)", "sequence": current])
                        if current % 5 == 0, let old = realm.objects(Event.self).filter("name BEGINSWITH %@", "e\(number)-").first {
                            realm.delete(old)
                        }
                    case 10 where item != nil:
                        // The embedded object alone: the owner's row must still be rewritten.
                        if let place = item!.place { place.floor += 1 } else { item!.place = Place(value: ["city": "new", "floor": current]) }
                    case 11 where item != nil:
                        item!.event = realm.objects(Event.self).filter("name BEGINSWITH %@", "e\(number)-").last
                    default:
                        item?.count += 1
                    }
                }
            }
            try acknowledgements.write(contentsOf: Data("\(current)\n".utf8))
        }
    }
}
