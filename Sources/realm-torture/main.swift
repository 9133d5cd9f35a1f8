// realm-torture: crash-safety torture through the public API.
//
//     realm-torture [options]                  run the driver (see --help)
//     realm-torture writer <workload> <path> <acks> <run> <seed> <keys> <max-value> [<first-lane>]
//                                              a writer child (the driver kills it); with a first
//                                              lane, one of several writer processes (--writers)
//     realm-torture reader <workload> <path> <seed>
//                                              a reader child of the multiprocess mode
//     realm-torture check <path> [full]        a checker child
//
// Scripts/torture.sh runs the long mode a maintainer runs before a release; CI runs a short one.
import Foundation
import RealmActors

let usage = """
    usage: realm-torture [--kills N] [--minutes M] [--workloads churn,actors,links,open,sliding,replicated,retention] [--keys N]
                         [--max-value BYTES] [--verify-every N] [--seed S] [--dir PATH]
                         [--min-delay S] [--max-delay S] [--encrypted] [--readers R] [--writers W] [--quiet]

      --kills N          stop after N kills (default 200)
      --minutes M        stop after M minutes, whatever the kills (default: no limit)
      --workloads LIST   which of churn,actors,links,open,sliding,replicated,retention to rotate through (default: all)
      --keys N           key space of churn (actors: N/8 per lane); the files grow with it (default 20000)
      --max-value BYTES  largest string or data value (default 65536)
      --verify-every N   full page-by-page integrity check every N kills (default 10), and at the end
      --seed S           the run's seed, printed at the start: the same seed replays the same run
      --dir PATH         where the files live (default: a temporary directory, removed on success)
      --min-delay S, --max-delay S   the kill delay range in seconds (default 0.05 and 1.0)
      --encrypted        every file is encrypted (Configuration.encryptionKey, a fixed key)
      --readers R        multiprocess mode: R read-only processes follow the writer, check what they
                         see, and are SIGKILLed and restarted at random too (default 0). Each workload
                         then runs for --verify-every kills in a row (default workloads: churn,actors,
                         links,sliding,replicated), which end with every child killed and a full check
      --writers W        several-writers mode: W writer processes write the file at once, each in
                         lanes of its own, all moving money in one shared bank (default 1). The driver
                         SIGKILLs one or two at a time, restarts them, and checks beside the others;
                         workloads actors,churn only; stretches of --verify-every kills as --readers
    """

/// The key of `--encrypted` runs: the driver tells its children to use it through the
/// environment (`REALM_TORTURE_ENCRYPTED=1`), so the command lines stay the same.
enum TortureEncryption {
    static let environmentVariable = "REALM_TORTURE_ENCRYPTED"
    static let key: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 0x9D &+ 0x3B) }
    /// The key children use: set when the driver asked for encryption.
    static let childKey: [UInt8]? = ProcessInfo.processInfo.environment[environmentVariable] == "1" ? key : nil
}

let arguments = CommandLine.arguments
// A child exits when its driver dies (``DriverWatch``).
if ["writer", "reader", "check"].contains(arguments.dropFirst().first) { DriverWatch.start() }
switch arguments.dropFirst().first {
case "writer":
    guard arguments.count == 9 || arguments.count == 10, let workload = Workload(rawValue: arguments[2]), let run = Int(arguments[5]),
          let seed = UInt64(arguments[6]), let keys = Int(arguments[7]), let maximumValue = Int(arguments[8]) else {
        FileHandle.standardError.write(Data("bad writer arguments\n".utf8)); exit(2)
    }
    let acknowledgements = open(arguments[4], O_WRONLY | O_APPEND | O_CREAT, 0o644)
    let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: arguments[3]),
                                            encryptionKey: TortureEncryption.childKey.map { Data($0) }, objectTypes: tortureTypes)
    let writer = Writer(workload: workload, configuration: configuration, run: run, seed: seed, keys: keys,
                        maximumValue: maximumValue, acknowledgements: acknowledgements,
                        firstLane: arguments.count == 10 ? Int(arguments[9]) : nil)
    do {
        try await writer.run()
    } catch {
        FileHandle.standardError.write(Data("writer: \(error)\n".utf8))
        exit(1)
    }
case "reader":
    guard arguments.count == 5, let workload = Workload(rawValue: arguments[2]), let seed = UInt64(arguments[4]) else {
        FileHandle.standardError.write(Data("bad reader arguments\n".utf8)); exit(2)
    }
    await TortureReader(workload: workload, path: arguments[3], seed: seed).run()
case "check":
    guard arguments.count >= 3 else { exit(2) }
    exit(await Checker.check(path: arguments[2], full: arguments.count > 3 && arguments[3] == "full"))
default:
    var options = DriverOptions()
    var index = 1
    var workloadsGiven = false
    func value() -> String {
        index += 1
        guard index < arguments.count else { print(usage); exit(2) }
        return arguments[index]
    }
    while index < arguments.count {
        switch arguments[index] {
        case "--kills": options.kills = Int(value()) ?? options.kills
        case "--minutes": options.minutes = Double(value()) ?? options.minutes
        case "--workloads":
            let names = value().split(separator: ",")
            options.workloads = names.compactMap { Workload(rawValue: String($0)) }
            workloadsGiven = true
            guard options.workloads.count == names.count else { print(usage); exit(2) }
        case "--keys": options.keys = Int(value()) ?? options.keys
        case "--max-value": options.maximumValue = Int(value()) ?? options.maximumValue
        case "--verify-every": options.verifyEvery = max(1, Int(value()) ?? options.verifyEvery)
        case "--seed": options.seed = UInt64(value()) ?? options.seed
        case "--dir": options.directory = URL(fileURLWithPath: value())
        case "--min-delay": options.minimumDelay = Double(value()) ?? options.minimumDelay
        case "--max-delay": options.maximumDelay = Double(value()) ?? options.maximumDelay
        case "--quiet": options.quiet = true
        case "--encrypted": options.encrypted = true
        case "--readers": options.readers = max(0, Int(value()) ?? options.readers)
        case "--writers": options.writers = max(1, Int(value()) ?? options.writers)
        case "--help", "-h": print(usage); exit(0)
        default: print(usage); exit(2)
        }
        index += 1
    }
    if options.readers > 0 {
        if !workloadsGiven { options.workloads = DriverOptions.multiprocessWorkloads }
    }
    if options.writers > 1 {
        if !workloadsGiven { options.workloads = Workload.sharedWorkloads }
        guard options.workloads.allSatisfy(Workload.sharedWorkloads.contains) else {
            print("realm-torture: --writers runs the workloads \(Workload.sharedWorkloads.map(\.rawValue).joined(separator: ",")) only"); exit(2)
        }
    }
    do {
        exit(try Driver(options: options).run())
    } catch {
        print("realm-torture: \(error)")
        exit(1)
    }
}
