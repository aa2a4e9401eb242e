import Foundation

/// Every row of the tables a state move copies (`moltipass state migrate`, issue 23): from one
/// store's schema to another's, column by column, as the databases hold them.
///
/// The two stores have the same tables and columns (docs/state.md), and the same numbers in
/// them: times are seconds since 1970 in both, so a copy round-trips exactly. Rows keep their
/// order (SQLite's rowid), which is the content ledger's tie order.
///
/// Copied: everything an agent's history is made of. Not copied: `leases` and `heartbeats`,
/// which describe runner processes on the old host (none may be running during a move; the
/// new store's runners take leases of their own, with tokens from 1).
public struct StateDump: Sendable, Equatable {
    /// One value as the database holds it.
    public enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
    }

    public struct Table: Sendable, Equatable {
        public let name: String
        public let columns: [String]
        public var rows: [[Value]]

        public init(name: String, columns: [String], rows: [[Value]]) {
            self.name = name
            self.columns = columns
            self.rows = rows
        }
    }

    /// The copied tables, in an order that keeps the foreign keys (the journal before the dedup
    /// facts and challenges that name its keys).
    public static let copiedTables = [
        "limiter_state", "limit_hints", "schedule_cursors", "queue_positions", "journal", "dedup", "pauses",
        "content_ledger", "challenges",
    ]

    /// The tables a move leaves behind (runner processes of the old host).
    public static let runnerTables = ["leases", "heartbeats"]

    /// What each copied table holds, in `copiedTables` order.
    public var tables: [Table]

    public init(tables: [Table]) { self.tables = tables }

    /// Rows per table.
    public var rowCounts: [String: Int] {
        Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.rows.count) })
    }

    /// Rows in every copied table together.
    public var totalRows: Int { tables.reduce(0) { $0 + $1.rows.count } }
}
