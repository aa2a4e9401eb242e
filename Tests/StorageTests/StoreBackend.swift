import Foundation
import MoltipassTesting
import Synchronization
import Testing

@testable import PostgresStorage
@testable import Storage

/// The stores the shared tests run against (one suite, several backends): SQLite in a fresh
/// temporary file, PostgreSQL in a fresh schema of the test server (dropped afterwards), and,
/// where a test compared it before, the memory store.
///
/// PostgreSQL is used when `MOLTIPASS_TEST_POSTGRES` is set (`scripts/test` starts a server with
/// `scripts/postgres-server` and sets it). When it is not set, its cases are left out, except
/// under CI (`CI` set): there they run and fail saying so, so CI never skips them silently.
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite, memory, postgres

    var testDescription: String { rawValue }

    /// SQLite and PostgreSQL (the stores with a database behind them).
    static var durable: [StoreBackend] { [.sqlite] + (PostgresTestServer.wanted ? [.postgres] : []) }

    /// SQLite, the memory store and PostgreSQL.
    static var all: [StoreBackend] { [.sqlite, .memory] + (PostgresTestServer.wanted ? [.postgres] : []) }

    /// PostgreSQL alone (its own tests), when wanted.
    static var postgresOnly: [StoreBackend] { PostgresTestServer.wanted ? [.postgres] : [] }

    /// Runs `body` with a fresh state on this backend; closes the stores it opened and removes
    /// the state afterwards.
    func withState<T>(_ body: (TestState) async throws -> T) async throws -> T {
        let state = try TestState(backend: self)
        do {
            let value = try await body(state)
            try await state.finish()
            return value
        } catch {
            try? await state.finish()
            throw error
        }
    }

    /// Runs `body` with one store on a fresh state.
    func withStore<T>(_ body: (any StateStore) async throws -> T) async throws -> T {
        try await withState { state in try await body(try await state.open()) }
    }
}

/// One test's state on one backend, and the stores opened on it.
final class TestState: Sendable {
    let backend: StoreBackend
    private let directory: TemporaryDirectory?
    /// The PostgreSQL URL with this test's schema.
    let url: String?
    private let memory: MemoryStateStore?
    private let opened = Mutex<[any StateStore]>([])

    init(backend: StoreBackend) throws {
        self.backend = backend
        directory = backend == .sqlite ? try TemporaryDirectory(prefix: "moltipass-storage") : nil
        url = backend == .postgres ? try PostgresTestServer.url(schema: PostgresTestServer.freshSchema()) : nil
        memory = backend == .memory ? MemoryStateStore() : nil
    }

    /// The SQLite file, when the backend is SQLite.
    var path: String? { directory?.file("state.sqlite").path }

    /// A store on the state: a new one each call (another connection, as another process
    /// would have), except in memory, where there is only the one.
    func open() async throws -> any StateStore {
        let store: any StateStore =
            switch backend {
            case .sqlite: try await SQLiteStateStore.open(path: path!)
            case .memory: memory!
            case .postgres: try await PostgresStateStore.open(url: url!, passwordFile: PostgresTestServer.passwordFile)
            }
        opened.withLock { $0.append(store) }
        return store
    }

    /// Closes `store` (the memory store stays as it is).
    func close(_ store: any StateStore) async throws {
        switch store {
        case let sqlite as SQLiteStateStore: try sqlite.close()
        case let postgres as PostgresStateStore: await postgres.close()
        default: break
        }
    }

    /// How many bodies wait for `store`'s write connection (tests check that one is queued).
    static func writersWaiting(_ store: any StateStore) -> Int {
        switch store {
        case let sqlite as SQLiteStateStore: sqlite.writeLane.gate.waiting
        case let postgres as PostgresStateStore: postgres.writeLane.gate.waiting
        default: 0
        }
    }

    func finish() async throws {
        for store in opened.withLock({ $0 }) { try? await close(store) }
        directory?.remove()
        if let url { try await PostgresStateStore.dropSchema(url: url, passwordFile: PostgresTestServer.passwordFile) }
    }
}
