import Foundation
import GRDB

/// The SQLite side of the model: one `person` table with the same columns as ``Person`` (and, for
/// W13, a `note` table with those of ``Note``), and the statements every SQLite workload shares,
/// so that no workload measures a different schema.
package enum SQLiteSchema {
    /// `createdAt` is stored as seconds since 1970 (REAL), not GRDB's default text encoding of
    /// `Date`, so the row is the same width as ours (a 64-bit timestamp).
    package static let createTable = """
        CREATE TABLE person(
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT NOT NULL,
            age INTEGER NOT NULL,
            score REAL NOT NULL,
            createdAt REAL NOT NULL)
        """

    /// Created before any row is inserted: a Realm property declared `indexed` is maintained
    /// during inserts too, so a bulk load pays for the index on both sides.
    package static let createEmailIndex = "CREATE UNIQUE INDEX person_email ON person(email)"

    package static let insert =
        "INSERT INTO person (id, name, email, age, score, createdAt) VALUES (?, ?, ?, ?, ?, ?)"

    /// Creates the table and the email index in `db` (which must not have them yet).
    package static func create(in db: Database) throws {
        try db.execute(sql: createTable)
        try db.execute(sql: createEmailIndex)
    }

    /// Inserts `person` with the cached insert statement of `db`.
    @inline(__always)
    package static func insert(_ person: Person, with statement: Statement) throws {
        try statement.execute(arguments: [
            person.id, person.name, person.email, person.age, person.score,
            person.createdAt.timeIntervalSince1970,
        ])
    }

    /// W13's table, the same columns as ``Note``.
    package static let createNoteTable = """
        CREATE TABLE note(
            id INTEGER PRIMARY KEY,
            body TEXT NOT NULL,
            tag INTEGER NOT NULL)
        """

    package static let insertNote = "INSERT INTO note (id, body, tag) VALUES (?, ?, ?)"

    /// Inserts `note` with the cached ``insertNote`` statement of `db`.
    @inline(__always)
    package static func insert(_ note: Note, with statement: Statement) throws {
        try statement.execute(arguments: [note.id, note.body, note.tag])
    }

    /// Inserts rows `ids` (generated with ``Person/make(id:seed:)``) in one transaction.
    package static func fill(_ writer: some DatabaseWriter, ids: ClosedRange<Int>) throws {
        try writer.write { db in
            let statement = try db.cachedStatement(sql: insert)
            for id in ids {
                try SQLiteSchema.insert(Person.make(id: id), with: statement)
            }
        }
    }
}

extension Person: FetchableRecord, TableRecord {
    package static var databaseTableName: String { "person" }

    /// Decodes a full `person` row, by column name (as an application would).
    package init(row: Row) throws {
        self.init(
            id: row["id"],
            name: row["name"],
            email: row["email"],
            age: row["age"],
            score: row["score"],
            createdAt: Date(timeIntervalSince1970: row["createdAt"])
        )
    }
}
