import PostgresNIO
import RealmActors
@testable import RealmPostgres

/// The batches' row writes as statements of their own, for tests that fill a table the way the
/// sink would (the reference rows ``PostgresSinkTests/expectedRows(of:)`` builds, a dead
/// letter's row to replay). The sink itself chains them into its transaction's statements
/// (``TableMapping/upserts(_:columns:into:)``), so this lives with the tests.
extension TableMapping {
    /// Multi-row `INSERT … ON CONFLICT (key) DO UPDATE` statements writing `columns` (the key
    /// first) of each object, with its values at the object's version — as many statements as
    /// ``RowStatements/maximumBinds`` requires.
    func upserts(_ objects: [(key: Realm.ObjectKey, object: Frozen<DynamicObject>)], columns: [Column]) -> [PostgresQuery] {
        var statements = RowStatements()
        upserts(objects, columns: columns, into: &statements)
        return statements.statements()
    }
}
