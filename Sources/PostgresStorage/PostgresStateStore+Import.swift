import Foundation
import PostgresNIO
import Storage

extension PostgresStateStore {
    /// Rows in each copied table and in the runner tables (a move's target must hold none).
    public func rowCounts() async throws -> [String: Int] {
        try await writeLane.lend { handle in
            var counts: [String: Int] = [:]
            for table in StateDump.copiedTables + StateDump.runnerTables {
                let rows = try await handle.rows(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(schema).\(table)"))
                counts[table] = Int(try rows.first?.decode(Int64.self) ?? 0)
            }
            return counts
        }
    }

    /// Copies `dump` into this store's tables in one transaction, and returns the rows each table
    /// holds after it. Refused when any table of the schema holds a row (a move goes into an
    /// empty state, never merges into one in use), and rolled back when the counts after it
    /// differ from the dump's. Rows go in in the dump's order (the content ledger's identity
    /// numbers follow it: its tie order).
    public func importDump(_ dump: StateDump) async throws -> [String: Int] {
        try await writeLane.lend { handle in
            // The lock a migration takes: no runner's opening and no other move runs beside this one.
            _ = try await handle.rows(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.lockKey), hashtext(\(location.schema)))")
            var held: [String] = []
            for table in StateDump.copiedTables + StateDump.runnerTables {
                let rows = try await handle.rows(
                    PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(schema).\(table)"))
                let count = try rows.first?.decode(Int64.self) ?? 0
                if count > 0 { held.append("\(count) in \(table)") }
            }
            guard held.isEmpty else {
                throw StorageError(
                    .database,
                    "the PostgreSQL state \(location) is not empty (\(held.joined(separator: ", "))): a state moves "
                        + "only into a new, empty schema; name another with ?schema=NAME")
            }
            for table in dump.tables {
                let rows = try await handle.rows(
                    """
                    SELECT column_name, data_type FROM information_schema.columns
                    WHERE table_schema = \(location.schema) AND table_name = \(table.name)
                    """)
                let types = Dictionary(
                    try rows.map { (try $0.decode((String, String).self)) }, uniquingKeysWith: { first, _ in first })
                let missing = table.columns.filter { types[$0] == nil }
                guard missing.isEmpty else {
                    throw StorageError(
                        .database,
                        "the PostgreSQL state has no column \(missing.joined(separator: ", ")) in \(table.name): "
                            + "the state file is from another build than this one")
                }
                let binary = Set(table.columns.filter { types[$0] == "bytea" })
                try await Self.insert(table, binary: binary, schema: schema, handle: handle)
            }
            var counts: [String: Int] = [:]
            for table in dump.tables {
                let rows = try await handle.rows(
                    PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(schema).\(table.name)"))
                counts[table.name] = Int(try rows.first?.decode(Int64.self) ?? 0)
            }
            guard counts == dump.rowCounts else {
                throw StorageError(
                    .database,
                    "the copy into \(location) does not hold what was read (\(counts) against \(dump.rowCounts)); "
                        + "nothing was written")
            }
            return counts
        }
    }

    /// The rows of `table` in statements of at most `batch` rows (PostgreSQL takes 65,535
    /// parameters a statement).
    /// `binary`: the columns that are `bytea` (a text SQLite kept in one goes in as its UTF-8 bytes).
    private static func insert(
        _ table: StateDump.Table, binary: Set<String>, schema: String, handle: PostgresHandle
    ) async throws {
        guard !table.rows.isEmpty, !table.columns.isEmpty else { return }
        let columns = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let batch = max(1, 30_000 / table.columns.count)
        var start = 0
        while start < table.rows.count {
            let rows = table.rows[start..<min(start + batch, table.rows.count)]
            var bindings = PostgresBindings(capacity: rows.count * table.columns.count)
            var tuples: [String] = []
            tuples.reserveCapacity(rows.count)
            for row in rows {
                var places: [String] = []
                for (column, value) in zip(table.columns, row) {
                    switch value {
                    case .null: bindings.appendNull()
                    case .integer(let number): bindings.append(number)
                    case .real(let number): bindings.append(number)
                    case .text(let text) where binary.contains(column): bindings.append(ByteBuffer(string: text))
                    case .text(let text): bindings.append(text)
                    case .blob(let data): bindings.append(ByteBuffer(bytes: data))
                    }
                    places.append("$\(bindings.count)")
                }
                tuples.append("(" + places.joined(separator: ", ") + ")")
            }
            let sql = "INSERT INTO \(schema).\(table.name) (\(columns)) VALUES " + tuples.joined(separator: ", ")
            _ = try await handle.rows(PostgresQuery(unsafeSQL: sql, binds: bindings))
            start += rows.count
        }
    }
}
