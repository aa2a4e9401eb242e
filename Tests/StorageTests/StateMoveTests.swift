import Foundation
import MoltbookSandbox
import MoltipassTesting
import Testing

@testable import PostgresStorage
@testable import Storage

/// Moving a state file into PostgreSQL (`moltipass state migrate`, issue 23): every copied
/// table's rows arrive, every query of the store protocol answers as it did on the file (the
/// leases and heartbeats excepted: they stay behind), and a target that holds anything is refused
/// with nothing written.
@Suite struct StateMoveTests {
    /// The dump's lines that describe runner processes, which a move leaves behind.
    static func withoutRunners(_ dump: String) -> [Substring] {
        dump.split(separator: "\n").filter {
            !$0.hasPrefix("lease ") && !$0.hasPrefix("holds ") && !$0.hasPrefix("heartbeats ")
        }
    }

    @Test(arguments: StoreBackend.postgresOnly)
    func moveKeepsEverythingButTheRunners(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let directory = try TemporaryDirectory(prefix: "moltipass-move")
            defer { directory.remove() }
            let file = try await SQLiteStateStore.open(path: directory.file("state.sqlite").path)
            var random = SeededRandom(seed: 23)
            let steps = 400
            for step in 0..<steps {
                let operations = (0..<(random.index(3) + 1)).map { _ in Operation.random(&random, step: step) }
                _ = await MemoryStoreTests.apply(operations, failAfter: nil, to: file)
            }
            // What the random operations do not touch: the content ledger (ties at one instant
            // keep their order) and a hint.
            try await file.transaction { transaction in
                for (index, account) in Domain.accounts.enumerated() {
                    for turn in 0..<3 {
                        try await transaction.recordContent(
                            ContentRecord(
                                account: account, kind: turn == 2 ? "comment" : "post", fingerprint: "f\(index)\(turn)",
                                signature: "00ff\(turn)", recordedAt: T.at(Double(turn / 2)),
                                journalKey: turn == 0 ? nil : "k\(turn)", excerpt: "Über \(turn) ✓"))
                    }
                    try await transaction.setLimitHint(
                        LimitHint(
                            account: account, limitClass: "post", notBefore: T.at(5_000.5), source: "retry_after",
                            detail: "429", recordedAt: T.at(1)))
                }
            }
            let dump = try await file.dump()
            #expect(dump.tables.map(\.name) == StateDump.copiedTables)
            for table in dump.tables {
                #expect(!table.rows.isEmpty, "the operations left \(table.name) empty: the move of it is untested")
            }
            let postgres = try #require(try await state.open() as? PostgresStateStore)
            let counts = try await postgres.importDump(dump)
            #expect(counts == dump.rowCounts)

            let before = Self.withoutRunners(try await MemoryStoreTests.dump(file, now: steps))
            let after = Self.withoutRunners(try await MemoryStoreTests.dump(postgres, now: steps))
            let differing = zip(before, after).filter { $0 != $1 }
            #expect(before.count == after.count && differing.isEmpty, "\(differing.prefix(5))")
            for account in Domain.accounts {
                let (left, right) = (
                    try await file.read { try await $0.contentRecords(account: account, since: .distantPast) },
                    try await postgres.read { try await $0.contentRecords(account: account, since: .distantPast) }
                )
                #expect(left.count == 3 && left == right, "\(left)\n\(right)")
            }
            #expect(try await postgres.read { try await $0.leases() }.isEmpty)
            #expect(try await postgres.read { try await $0.heartbeats() }.isEmpty)

            // A second move into the same schema is refused and writes nothing.
            let error = await #expect(throws: StorageError.self) { try await postgres.importDump(dump) }
            #expect(error?.description.contains("is not empty") == true, "\(String(describing: error))")
            #expect(try await postgres.rowCounts().filter { StateDump.copiedTables.contains($0.key) } == counts)
        }
    }

    /// A text SQLite kept in a blob column arrives as its bytes; a value of every kind round-trips.
    @Test(arguments: StoreBackend.postgresOnly)
    func valuesOfEveryKindRoundTrip(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let postgres = try #require(try await state.open() as? PostgresStateStore)
            let columns = ["account", "key", "state", "updated_at"]
            let limiter = StateDump.Table(
                name: "limiter_state", columns: columns,
                rows: [
                    [.text("alice"), .text("post"), .blob(Data([0, 1, 2, 255])), .real(1_764_288_000.125)],
                    [.text("bob"), .text("comment"), .text("{\"n\":1}"), .integer(1_764_288_001)],
                ])
            let dump = StateDump(
                tables: StateDump.copiedTables.map {
                    $0 == "limiter_state" ? limiter : StateDump.Table(name: $0, columns: [], rows: [])
                })
            #expect(try await postgres.importDump(dump)["limiter_state"] == 2)
            let (alice, bob) = try await postgres.read { reader in
                (
                    try await reader.limiterState(account: "alice", key: "post"),
                    try await reader.limiterState(account: "bob", key: "comment")
                )
            }
            #expect(alice == Data([0, 1, 2, 255]))
            #expect(bob == Data("{\"n\":1}".utf8))
        }
    }
}
