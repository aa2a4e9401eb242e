import Foundation
import Synchronization

/// The state store as plain values in memory: no SQLite, no file, no dispatch hop.
///
/// `plan` simulates weeks of passes against a private copy of the state; SQLite (even in
/// memory) costs a statement compile, a row decode and a queue hop per query there. This store
/// answers from dictionaries with the indexes the engine's queries need, with the same
/// semantics as `SQLiteStateStore` (orderings, upserts, the journal's state machine, foreign
/// keys, all-or-nothing transactions). It is never durable: a process that ends loses it.
///
/// One closure at a time, reads and transactions alike, in arrival order: an `AsyncGate`, not a
/// lock held across the closure, so a closure may suspend and the callers behind it wait without
/// blocking a thread. An uncontended call takes the free gate and runs the closure on the
/// caller's thread: no hop. A transaction that throws is undone from the handle's undo log.
public final class MemoryStateStore: StateStore {
    /// The tables, lent to the gate's holder (moved out while a closure runs, back after).
    private let tables: Mutex<MemoryTables>
    private let gate = AsyncGate()

    /// An empty store.
    public init() { tables = Mutex(MemoryTables()) }

    init(tables: MemoryTables) { self.tables = Mutex(tables) }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
        try await run(body)
    }

    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> T
    ) async throws -> T {
        try await run(body)
    }

    /// Takes the gate, lends the tables to a handle (moved, not copied, so updates stay in
    /// place), runs `body`, undoes the handle's changes if it throws, and takes the tables back.
    private func run<T: Sendable>(_ body: (MemoryAccess) async throws -> T) async throws -> T {
        await gate.acquire()
        defer { gate.release() }
        let access = MemoryAccess(tables: MemoryTables())
        tables.withLock { swap(&access.tables, &$0) }
        defer { tables.withLock { swap(&access.tables, &$0) } }
        do {
            return try await body(access)
        } catch {
            access.rollBack()
            throw error
        }
    }
}
