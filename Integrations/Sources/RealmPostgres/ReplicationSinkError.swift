/// Why a ``PostgresReplicationSink`` stopped rather than retry: PostgreSQL's progress row and
/// the realm disagree in a way that waiting cannot mend, and going on would skip or repeat
/// commits; or the realm's schema has a name the sink cannot map (``Reason/reservedName``),
/// which no retry would map either. The sink never guesses: it stops, counts the stop (`realm.replication.stops`, with
/// the dimension `reason`), logs it, and throws this from ``PostgresReplicationSink/run()``.
///
/// The ``description`` says what happened, its likely cause and the operator's fix. The fix is
/// almost always a resynchronization, which replaces the mapped tables' rows with a snapshot of
/// the realm: `realm-inspect resync-slot FILE SLOT` with the service stopped (the sink honours it
/// on its next start), or a start with `resynchronize: true` (after dropping an invalidated slot
/// with `realm-inspect drop-slot FILE SLOT`).
public struct ReplicationSinkError: Error, CustomStringConvertible {
    /// Which disagreement stopped the sink.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The realm's slot is not the one PostgreSQL's progress row was written for: the slot
        /// was dropped (and perhaps created again: it then has another id), or another realm
        /// replicates into the same database under the same slot name.
        case slotMismatch = "slot_mismatch"
        /// PostgreSQL is behind the slot, at a version the realm no longer keeps: it was
        /// restored to an earlier point (a backup, a point-in-time restore) or failed over to an
        /// asynchronous standby that lacked the newest transactions, after the slot had been
        /// confirmed past them. The commits between are gone from the realm.
        case postgresBehind = "postgres_behind"
        /// PostgreSQL's position is not a point of the realm's history: the realm was replaced
        /// by an older copy (or a compacted one) and written since, so the version PostgreSQL
        /// applied was made by another commit, or never made.
        case otherHistory = "other_history"
        /// PostgreSQL has applied a version newer than the realm's newest: the realm was
        /// replaced by an older copy (a backup restored), not yet written past that version.
        case realmBehind = "realm_behind"
        /// A retention limit invalidated the slot (``Realm/ReplicationSlot/invalidation``): the
        /// realm no longer keeps the commits PostgreSQL lacks.
        case slotInvalidated = "slot_invalidated"
        /// The progress row records no slot id and commit id: it was written by a sink from
        /// before they were recorded (and before it loaded an initial snapshot), so neither
        /// its identity nor its completeness can be checked.
        case unidentifiedProgress = "unidentified_progress"
        /// The progress row vanished or changed its slot id while the sink was running: it was
        /// deleted, another sink resynchronized the slot, or PostgreSQL was restored under the
        /// running sink.
        case progressChanged = "progress_changed"
        /// The realm's schema has a name the sink cannot map to PostgreSQL (``ReservedNames``):
        /// a property `_realm_key` in a class without a primary key, a class named like the
        /// sink's own tables (`realm_replication_…`), a name longer than PostgreSQL's 63-byte
        /// identifiers. Refused before the slot is created and the snapshot loaded; or, when
        /// a migration introduced it, at that commit (the commits before it applied).
        case reservedName = "reserved_name"
    }

    /// Which disagreement stopped the sink.
    public let reason: Reason
    /// What happened, the likely cause, and the fix.
    public let description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
