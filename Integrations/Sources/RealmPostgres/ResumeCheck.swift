import RealmActors

/// Where a sink with a progress row resumes — exactly after the position the row holds — or,
/// when the realm cannot deliver the commits after it, which of the ways that happens
/// (``ReplicationSinkError/Reason``), as a stop whose message names the cause and the fix.
///
/// The checks, in order: the row has an identity; the realm has the slot, with the row's slot
/// id; the slot is valid; the realm keeps the row's position, made by the same commit
/// (``Realm/replicationPositionStatus(_:)``). A position the realm does not keep is PostgreSQL
/// behind the slot, the realm behind PostgreSQL, or a version the realm's history never made.
enum ResumeCheck {
    /// What a stop's message ends with: the fix.
    static func resynchronize(_ slot: String) -> String {
        "To replace PostgreSQL's rows with the realm's current objects, ask for a resynchronization: stop the service, run `realm-inspect resync-slot FILE \(slot)` and start it again, or start the sink once with `resynchronize: true` (either loads a new snapshot of slot '\(slot)' in one transaction)."
    }

    /// The position to resume from: `progress.position`.
    ///
    /// - Parameters:
    ///   - slot: the realm's slot of the row's name, nil if it has none.
    ///   - newestVersion: the realm's newest version.
    ///   - status: the realm's ``Realm/replicationPositionStatus(_:)``.
    /// - Throws: ``ReplicationSinkError`` for each way the realm cannot deliver the commits after
    ///   the row's position.
    static func position(resuming progress: ReplicationProgress, slotName: String, slot: Realm.ReplicationSlot?,
                         realmPath: String, newestVersion: UInt64,
                         status: (Realm.ReplicationPosition) throws -> Realm.ReplicationPositionStatus) throws -> Realm.ReplicationPosition {
        let position = progress.position
        let written = progress.realmPath.map { " (PostgreSQL's row was written for \($0))" } ?? ""
        guard let slotID = progress.slotID else {
            throw ReplicationSinkError(.unidentifiedProgress, """
                PostgreSQL's progress row for slot '\(slotName)' (at version \(position.version)) records no slot id or commit id: \
                it was written by an older sink, which loaded no initial snapshot, so PostgreSQL may lack every object made \
                before the slot, and the row cannot be checked against the realm. \(resynchronize(slotName))
                """)
        }
        guard let slot else {
            throw ReplicationSinkError(.slotMismatch, """
                The realm \(realmPath) has no replication slot '\(slotName)', but PostgreSQL's progress row says it applied \
                that slot's commits through \(position)\(written): the slot was dropped (by `realm-inspect drop-slot` or \
                dropReplicationSlot), or the realm file was replaced by one without it. The commits since are not kept for \
                PostgreSQL. \(resynchronize(slotName))
                """)
        }
        guard slot.id == slotID else {
            throw ReplicationSinkError(.slotMismatch, """
                The realm's slot '\(slotName)' (id \(hex(slot.id))) is not the slot PostgreSQL's progress row was written for \
                (id \(hex(slotID)))\(written): the slot was dropped and created again, or another realm replicates into this \
                database under the same slot name (give each realm's sink its own slot name). Its commits are not those \
                PostgreSQL lacks. \(resynchronize(slotName))
                """)
        }
        if let invalidation = slot.invalidation {
            throw invalidated(slotName, invalidation)
        }
        switch try status(position) {
        case .retained:
            return position
        case .otherHistory:
            throw ReplicationSinkError(.otherHistory, """
                PostgreSQL applied slot '\(slotName)' through \(position), but the realm \(realmPath) made version \
                \(position.version) with another commit: the realm file was replaced by an older copy (a backup, or a compacted \
                file) and written since, so PostgreSQL holds commits the realm lost, and the realm's commits after that \
                version are not the ones PostgreSQL lacks. \(resynchronize(slotName))
                """)
        case .notRetained where position.version > newestVersion:
            throw ReplicationSinkError(.realmBehind, """
                PostgreSQL applied slot '\(slotName)' through version \(position.version), but the realm \(realmPath) is at \
                version \(newestVersion): the realm file was replaced by an older copy (a backup restored), so PostgreSQL holds \
                commits the realm lost. Restore the newer realm file if you have it; otherwise: \(resynchronize(slotName))
                """)
        case .notRetained where position.version < slot.position.version:
            throw ReplicationSinkError(.postgresBehind, """
                PostgreSQL holds slot '\(slotName)' at \(position), behind the slot's confirmed \(slot.position), and the realm no \
                longer keeps the commits between: PostgreSQL was restored to an earlier state (a backup, a point-in-time \
                restore) or failed over to an asynchronous standby that lacked its newest transactions, after the sink had \
                confirmed them. Those commits cannot be replayed. \(resynchronize(slotName))
                """)
        case .notRetained:
            throw ReplicationSinkError(.otherHistory, """
                PostgreSQL applied slot '\(slotName)' through \(position), a version the realm \(realmPath) never made (its \
                slot is at \(slot.position), its newest version \(newestVersion)): the realm file was replaced by an older \
                copy (a backup, or a compacted file) and reopened since, so PostgreSQL holds commits the realm lost. \
                \(resynchronize(slotName))
                """)
        }
    }

    /// The stop for a slot a retention limit invalidated.
    static func invalidated(_ slotName: String, _ invalidation: Realm.ReplicationSlotInvalidation) -> ReplicationSinkError {
        ReplicationSinkError(.slotInvalidated, """
            The realm's replication slot '\(slotName)' was \(invalidation): PostgreSQL fell further behind than the slot's \
            retention limits allow (the sink was down or too slow), so the realm no longer keeps the commits PostgreSQL lacks. \
            Stop the service, run `realm-inspect resync-slot FILE \(slotName)` and start it again (or drop the slot with \
            `realm-inspect drop-slot FILE \(slotName)` and start the sink with `resynchronize: true`): it creates the slot \
            again and loads a new snapshot. Consider larger limits \
            (`slotLimits`) or alerting on `realm.replication.lag_seconds`.
            """)
    }

    static func hex(_ value: UInt64) -> String { String(value, radix: 16) }
}
