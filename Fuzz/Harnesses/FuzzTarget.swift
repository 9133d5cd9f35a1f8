import Foundation

/// One fuzz harness: code that decodes untrusted bytes, fed one input at a time.
///
/// `run` must not trap on any input: a thrown error is the decoder's answer to bad input. A trap,
/// a sanitizer report, a leak or a hang is a finding. Inputs run one at a time on the main
/// thread. `run` returns what became of the input in a few words (`realm-fuzz TARGET FILE`
/// prints it; libFuzzer ignores it): whether a corpus reaches the code it is meant to.
protocol FuzzTarget: AnyObject {
    func run(_ input: Data) -> String
}

/// The harnesses, by the name `Scripts/fuzz.sh` and `Fuzz/Corpus/<name>/` use.
enum FuzzTargets {
    static let environmentVariable = "REALM_FUZZ_TARGET"

    static let names = ["file", "log", "query", "load", "values", "replication", "lockfile"]

    /// The target libFuzzer's callback runs. A C callback cannot capture, so it lives here: set
    /// once by `main` before the driver starts, then only read, by the one thread libFuzzer
    /// calls the callback on.
    nonisolated(unsafe) static var active: (any FuzzTarget)?

    static func make(_ name: String) -> (any FuzzTarget)? {
        switch name {
        case "file": RealmFileTarget()
        case "log": LogRecoveryTarget()
        case "query": QueryTarget()
        case "load": DumpLoadTarget()
        case "values": ValueDecodingTarget()
        case "replication": ReplicationTarget()
        case "lockfile": LockFileTarget()
        default: nil
        }
    }
}
