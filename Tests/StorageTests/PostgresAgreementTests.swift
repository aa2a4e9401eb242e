import Foundation
import MoltbookSandbox
import MoltipassTesting
import Testing

@testable import Storage

/// `PostgresStateStore` answers exactly as `SQLiteStateStore` does: MemoryStoreTests' seeded
/// random operations go to both, and every return value and error code must agree, and so must
/// every query over the whole state (compared every 20 steps and at the end).
@Suite struct PostgresAgreementTests {
    /// Hundreds of random operations (journal transitions, facts, pauses, challenges, leases with
    /// tokens, pruning, constraint violations, transactions that throw half-way) leave both
    /// stores indistinguishable.
    @Test(arguments: StoreBackend.postgresOnly.flatMap { backend in [1, 2].map { (backend, UInt64($0)) } })
    func agreesWithSQLite(backend: StoreBackend, seed: UInt64) async throws {
        try await backend.withStore { postgres in
            let sqlite = try SQLiteStateStore.inMemory()
            var random = SeededRandom(seed: seed)
            var mismatches: [String] = []
            var outcomes: Set<String> = []
            let steps = 300
            for step in 0..<steps {
                let operations = (0..<(random.index(3) + 1)).map { _ in Operation.random(&random, step: step) }
                let failAfter = random.index(6) == 0 ? random.index(operations.count) : nil
                let expected = await MemoryStoreTests.apply(operations, failAfter: failAfter, to: sqlite)
                let actual = await MemoryStoreTests.apply(operations, failAfter: failAfter, to: postgres)
                if expected != actual { mismatches.append("step \(step) \(operations): \(expected) ≠ \(actual)") }
                if expected.hasPrefix("error") { outcomes.insert(expected) }
                if step % 20 == 19 || step == steps - 1 {
                    let (before, after) = (
                        try await MemoryStoreTests.dump(sqlite, now: step),
                        try await MemoryStoreTests.dump(postgres, now: step)
                    )
                    if before != after {
                        let differing = zip(before.split(separator: "\n"), after.split(separator: "\n"))
                            .filter { $0 != $1 }
                        mismatches.append(
                            "state after step \(step): "
                                + differing.map { "\n  sqlite:   \($0)\n  postgres: \($1)" }.joined())
                    }
                }
                if !mismatches.isEmpty { break }
            }
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
            #expect(
                outcomes.isSuperset(of: ["error illegalTransition", "error notFound", "error database", "error Boom"]),
                "\(outcomes)")
        }
    }
}
