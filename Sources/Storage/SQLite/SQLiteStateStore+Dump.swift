import Foundation
import GRDB

extension SQLiteStateStore {
    /// Every row of the copied tables (`StateDump.copiedTables`), in rowid order, in one read
    /// transaction: a consistent snapshot of the state.
    public func dump() async throws -> StateDump {
        try await readLane.exclusive { connection in
            try await Self.mapping(path: path) {
                try await connection.read { db in
                    try StateDump(tables: StateDump.copiedTables.map { try Self.dumpTable($0, db) })
                }
            }
        }
    }

    private static func dumpTable(_ name: String, _ db: Database) throws -> StateDump.Table {
        let columns = try db.columns(in: name).map(\.name)
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT \(list) FROM \(name) ORDER BY rowid").map { row in
            columns.indices.map { index -> StateDump.Value in
                switch (row[index] as DatabaseValue).storage {
                case .null: .null
                case .int64(let value): .integer(value)
                case .double(let value): .real(value)
                case .string(let value): .text(value)
                case .blob(let value): .blob(value)
                }
            }
        }
        return StateDump.Table(name: name, columns: columns, rows: rows)
    }
}
