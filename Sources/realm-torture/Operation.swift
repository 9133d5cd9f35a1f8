import Foundation
import RealmActors

/// One change a torture commit makes. Commits are lists of these, generated from a seed alone
/// (never from what the file holds), so the driver can replay exactly the commits a file says it
/// holds on its ``Model`` and compare.
enum Operation: Sendable {
    case putItem(id: Int, text: ValueSpec, number: Int)
    case setNumber(id: Int, number: Int)
    case deleteItem(id: Int)
    case putBlob(id: Int, data: ValueSpec?)
    case deleteBlob(id: Int)
    case putNode(id: Int, label: ValueSpec)
    /// Sets `from.next` to `to` (nil when `to` does not exist); nothing if `from` does not exist.
    case link(from: Int, to: Int?)
    /// Replaces the children of `id` with those of `children` that exist, in order.
    case setChildren(id: Int, children: [Int])
    /// Deletes the node: links to it become nil, lists drop it (Realm's semantics).
    case deleteNode(id: Int)
    case increment
    /// Deletes every blob whose id is below `id` (a query-driven delete, as an application does).
    case deleteBlobs(below: Int)
    /// A ``Bank`` transfer (the several-writers mode): not in the ``Model``, whose content it
    /// does not touch — the bank is checked by its total instead.
    case transfer(from: Int, to: Int, amount: Int)

    /// Applies the operation in `realm`'s open write transaction, the way an application would.
    func apply(in realm: Realm) {
        switch self {
        case .putItem(let id, let text, let number):
            realm.create(TortureItem.self, value: ["id": id, "text": text.text, "number": number], update: .modified)
        case .setNumber(let id, let number):
            realm.object(ofType: TortureItem.self, forPrimaryKey: id)?.number = number
        case .deleteItem(let id):
            if let item = realm.object(ofType: TortureItem.self, forPrimaryKey: id) { realm.delete(item) }
        case .putBlob(let id, let data):
            let blob = realm.object(ofType: TortureBlob.self, forPrimaryKey: id) ?? realm.create(TortureBlob.self, value: ["id": id])
            blob.data = data?.data
        case .deleteBlob(let id):
            if let blob = realm.object(ofType: TortureBlob.self, forPrimaryKey: id) { realm.delete(blob) }
        case .putNode(let id, let label):
            let node = realm.object(ofType: TortureNode.self, forPrimaryKey: id) ?? realm.create(TortureNode.self, value: ["id": id])
            node.label = label.text
        case .link(let from, let to):
            guard let node = realm.object(ofType: TortureNode.self, forPrimaryKey: from) else { return }
            node.next = to.flatMap { realm.object(ofType: TortureNode.self, forPrimaryKey: $0) }
        case .setChildren(let id, let children):
            guard let node = realm.object(ofType: TortureNode.self, forPrimaryKey: id) else { return }
            node.children.removeAll()
            for child in children {
                if let target = realm.object(ofType: TortureNode.self, forPrimaryKey: child) { node.children.append(target) }
            }
        case .deleteNode(let id):
            if let node = realm.object(ofType: TortureNode.self, forPrimaryKey: id) { realm.delete(node) }
        case .increment:
            let counter = realm.object(ofType: TortureCounter.self, forPrimaryKey: 0) ?? realm.create(TortureCounter.self, value: ["id": 0])
            counter.value += 1
        case .deleteBlobs(let below):
            realm.delete(realm.objects(TortureBlob.self).where { $0.id < below })
        case .transfer(let from, let to, let amount):
            Bank.transfer(from: from, to: to, amount: amount, in: realm)
        }
    }
}

/// What the driver believes a file holds: every object as the hash of its values.
struct Model: Sendable {
    struct Node: Sendable, Equatable {
        var label: UInt64
        var next: Int?
        var children: [Int]
    }

    var items: [Int: (text: UInt64, number: Int)] = [:]
    var blobs: [Int: UInt64?] = [:]
    var nodes: [Int: Node] = [:]
    var progress: [Int: LaneProgress] = [:]
    var counter = 0

    mutating func apply(_ operation: Operation) {
        switch operation {
        case .putItem(let id, let text, let number):
            items[id] = (contentHash(text.text), number)
        case .setNumber(let id, let number):
            items[id]?.number = number
        case .deleteItem(let id):
            items[id] = nil
        case .putBlob(let id, let data):
            blobs[id] = .some(data.map { contentHash($0.data) })
        case .deleteBlob(let id):
            blobs[id] = nil
        case .putNode(let id, let label):
            nodes[id, default: Node(label: contentHash(""), next: nil, children: [])].label = contentHash(label.text)
        case .link(let from, let to):
            guard nodes[from] != nil else { return }
            nodes[from]!.next = to.flatMap { nodes[$0] != nil ? $0 : nil }
        case .setChildren(let id, let children):
            guard nodes[id] != nil else { return }
            nodes[id]!.children = children.filter { nodes[$0] != nil }
        case .deleteNode(let id):
            guard nodes.removeValue(forKey: id) != nil else { return }
            for key in nodes.keys {
                if nodes[key]!.next == id { nodes[key]!.next = nil }
                if nodes[key]!.children.contains(id) { nodes[key]!.children.removeAll { $0 == id } }
            }
        case .increment:
            counter += 1
        case .deleteBlobs(let below):
            for id in blobs.keys where id < below { blobs[id] = nil }
        case .transfer:
            break  // the bank is checked by its total (``Bank``)
        }
    }

    /// The order-independent summary the checker computes from the file.
    var digest: ContentDigest {
        var digest = ContentDigest()
        for (id, item) in items { digest.addItem(id: id, text: item.text, number: item.number) }
        for (id, data) in blobs { digest.addBlob(id: id, data: data) }
        for (id, node) in nodes { digest.addNode(id: id, label: node.label, next: node.next, children: node.children) }
        digest.counter = counter
        digest.progress = progress
        return digest
    }
}

/// How far one lane got: the run and the commit number within it.
struct LaneProgress: Sendable, Hashable, CustomStringConvertible {
    var run: Int
    var commit: Int
    var description: String { "\(run):\(commit)" }

    /// Whether this progress comes before `other`: an earlier run, or fewer commits of the same.
    func isBefore(_ other: LaneProgress) -> Bool { (run, commit) < (other.run, other.commit) }

    /// Lanes' progress as one word, `lane:run:commit,…` (`-` for none), and back.
    static func line(_ lanes: [Int: LaneProgress]) -> String {
        lanes.isEmpty ? "-" : lanes.keys.sorted().map { "\($0):\(lanes[$0]!.run):\(lanes[$0]!.commit)" }.joined(separator: ",")
    }

    static func lanes(_ word: Substring) -> [Int: LaneProgress]? {
        var lanes: [Int: LaneProgress] = [:]
        guard word != "-" else { return lanes }
        for lane in word.split(separator: ",") {
            let parts = lane.split(separator: ":").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            lanes[parts[0]] = LaneProgress(run: parts[1], commit: parts[2])
        }
        return lanes
    }
}

/// A summary of a file's whole content: counts, a sum of per-object hashes, the counter and the
/// lanes' progress. Equal digests mean equal content (up to hash collisions).
struct ContentDigest: Equatable, Sendable, CustomStringConvertible {
    var items = 0, blobs = 0, nodes = 0
    var sum: UInt64 = 0
    var counter = 0
    var progress: [Int: LaneProgress] = [:]

    mutating func addItem(id: Int, text: UInt64, number: Int) {
        items += 1
        sum &+= mix(1, UInt64(bitPattern: Int64(id)), text, UInt64(bitPattern: Int64(number)))
    }

    mutating func addBlob(id: Int, data: UInt64?) {
        blobs += 1
        sum &+= mix(2, UInt64(bitPattern: Int64(id)), data ?? 0x6E75_6C6C)
    }

    mutating func addNode(id: Int, label: UInt64, next: Int?, children: [Int]) {
        nodes += 1
        var hash = mix(3, UInt64(bitPattern: Int64(id)), label, next.map { UInt64(bitPattern: Int64($0)) } ?? 0x6E75_6C6C)
        for child in children { hash = mix(hash, UInt64(bitPattern: Int64(child))) }
        sum &+= hash
    }

    var description: String {
        let lanes = progress.keys.sorted().map { "\($0)=\(progress[$0]!)" }.joined(separator: ",")
        return "items=\(items) blobs=\(blobs) nodes=\(nodes) counter=\(counter) sum=\(String(sum, radix: 16)) progress=[\(lanes)]"
    }

    /// The digest as one line, and back (the checker prints it; the driver parses it).
    var line: String { "\(items) \(blobs) \(nodes) \(counter) \(sum) \(LaneProgress.line(progress))" }

    /// Adds the digest of objects disjoint from this one's (another lane's): the digest of
    /// both together.
    mutating func add(_ other: ContentDigest) {
        items += other.items; blobs += other.blobs; nodes += other.nodes
        sum &+= other.sum
        counter += other.counter
        progress.merge(other.progress) { mine, _ in mine }
    }

    init() {}

    init?(line: Substring) {
        let fields = line.split(separator: " ")
        guard fields.count == 6, let items = Int(fields[0]), let blobs = Int(fields[1]), let nodes = Int(fields[2]),
              let counter = Int(fields[3]), let sum = UInt64(fields[4]) else { return nil }
        self.items = items; self.blobs = blobs; self.nodes = nodes; self.counter = counter; self.sum = sum
        guard let progress = LaneProgress.lanes(fields[5]) else { return nil }
        self.progress = progress
    }

    /// Reads every object of the file through the public API.
    init(reading realm: Realm) {
        for item in realm.objects(TortureItem.self) { addItem(id: item.id, text: contentHash(item.text), number: item.number) }
        for blob in realm.objects(TortureBlob.self) { addBlob(id: blob.id, data: blob.data.map(contentHash)) }
        for node in realm.objects(TortureNode.self) {
            addNode(id: node.id, label: contentHash(node.label), next: node.next?.id, children: node.children.map(\.id))
        }
        counter = realm.object(ofType: TortureCounter.self, forPrimaryKey: 0)?.value ?? 0
        for lane in realm.objects(TortureProgress.self) { progress[lane.id] = LaneProgress(run: lane.run, commit: lane.commit) }
    }
}
