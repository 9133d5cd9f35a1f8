import Foundation
import RealmRuntime

/// How a writer process of the several-writers mode kills itself, a pure function of its run's
/// seed: the driver's SIGKILLs land wherever the process happens to be (most often waiting for
/// write ownership while another process writes), so one writer in four also kills itself at
/// its *n*th I/O call (*n* in 1–48: inside a flush — mid-append, after the log's sync before
/// the publish, writing pages home, a checkpoint), and one in two inside its first warm
/// recovery if it runs one, at the log's cut or one to three I/O calls after it (``KillAtIO``). Every writer
/// notes each warm recovery it begins (`recovered`, or `recovered dying` for the one it dies
/// in), which the driver counts.
struct SharedWriterKills {
    var killAtIO: Int?
    var killInWarmRecovery: Int?

    init(seed: UInt64) {
        var random = SplitMix(mix(seed, 0x5E1F_C111))
        switch random.below(4) {
        case 0: killAtIO = 1 + random.below(48)
        case 1, 2: killInWarmRecovery = random.below(4)
        default: break
        }
    }

    /// Installs the injector for `writer`'s file (before it opens it).
    func install(for writer: Writer) {
        guard let url = writer.configuration.fileURL else { return }
        let acknowledgements = writer.acknowledgements
        let faults = KillAtIO(killInWarmRecovery: killInWarmRecovery) { killing in
            writeLine(killing ? "recovered dying" : "recovered", to: acknowledgements)
        }
        if let killAtIO { faults.arm(killAtIO) }
        SharedRealmFile.injectFaults(faults, forPath: url.standardizedFileURL.path)
    }
}
