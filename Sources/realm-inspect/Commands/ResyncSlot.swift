import Foundation
import RealmActors

/// `realm-inspect resync-slot FILE NAME`: ask a replication slot's consumer to start again from a
/// snapshot (``Realm/requestResynchronization(ofReplicationSlotNamed:)``).
///
/// The request is stored in the slot itself, as an invalidation with its own reason, not as a
/// flag beside a valid slot: the slot stops retaining at once (a resynchronization needs none of
/// the backlog), every consumer that does not know the reason is refused as for any invalidated
/// slot (never handed commits after a position its copy was not going to keep), and a slot a
/// retention limit invalidated — the common case — takes the new reason without any other state.
struct ResyncSlot: InspectorCommand {
    static let spec = CommandSpec(
        name: "resync-slot", abstract: "Ask a replication slot's consumer to start again from a snapshot.",
        discussion: """
        Invalidates the slot with the reason "resynchronization requested": it keeps nothing from \
        now on (the space it held is freed), and its consumer, on its next start, drops it, creates \
        it again with the same limits and loads a snapshot of the realm instead of stopping — the \
        PostgreSQL sink does, without a code change or `resynchronize: true`. Use it to recover \
        from any of the sink's stops (slot_invalidated, postgres_behind, slot_mismatch, \
        realm_behind, other_history, unidentified_progress); a slot a retention limit invalidated \
        takes the new reason. The file must not be open for writing in another process: stop the \
        service first, then start it again.
        """,
        positionals: SlotArguments.positionals)

    let slot: SlotArguments

    init(_ arguments: ParsedArguments) throws(UsageError) { slot = try SlotArguments(arguments) }

    func run() throws -> ExitStatus {
        let (realm, existing) = try slot.open()
        let output = OutputBuffer()
        if let invalidation = existing.invalidation, invalidation.reason == .resynchronizationRequested {
            output.write("slot '\(slot.name)' of \(slot.file.path): a resynchronization was requested already (\(invalidation)); nothing changed\n")
        } else {
            try realm.write { try realm.requestResynchronization(ofReplicationSlotNamed: slot.name) }
            let was = existing.invalidation.map { "it was \($0)" }
                ?? "it was valid, at version \(existing.confirmedVersion) with \(existing.backlog.commits) pending commits"
            output.write("requested a resynchronization of slot '\(slot.name)' of \(slot.file.path) (\(was)); \(existing.retainedBytes) retained bytes freed for reuse. Its consumer loads a new snapshot on its next start\n")
        }
        output.flush()
        return .success
    }
}
