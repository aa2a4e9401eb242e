import Foundation
import Synchronization

/// The state store as plain values in memory: no SQLite, no file, no dispatch hop.
///
/// `plan` simulates weeks of passes against a private copy of the state; SQLite (even in
/// memory) costs a statement compile, a row decode and a queue hop per query there. This store
/// answers from dictionaries with the indexes the engine's queries need, under one lock, with
/// the same semantics as `SQLiteStateStore` (orderings, upserts, the journal's state machine,
/// foreign keys, all-or-nothing transactions). It is never durable: a process that ends loses it.
///
/// Closures run synchronously on the caller's thread while the lock is held; they are short and
/// never do I/O, so they never block the cooperative pool for long.
public final class MemoryStateStore: StateStore {
    private let tables: Mutex<MemoryTables>

    /// An empty store.
    public init() { tables = Mutex(MemoryTables()) }

    init(tables: MemoryTables) { self.tables = Mutex(tables) }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) throws -> T) async throws -> T {
        try run(body)
    }

    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) throws -> T
    ) async throws -> T {
        try run(body)
    }

    /// Lends the tables to a handle (moved, not copied, so updates stay in place), runs `body`,
    /// undoes the handle's changes if it throws, and takes the tables back.
    private func run<T: Sendable>(_ body: (MemoryAccess) throws -> T) throws -> T {
        try tables.withLock { stored throws -> T in
            let access = MemoryAccess(tables: MemoryTables())
            swap(&access.tables, &stored)
            defer { swap(&access.tables, &stored) }
            do {
                return try body(access)
            } catch {
                access.rollBack()
                throw error
            }
        }
    }
}
