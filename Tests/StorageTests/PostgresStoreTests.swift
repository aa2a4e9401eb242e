import Foundation
import Logging
import MoltipassTesting
import Testing

@testable import PostgresStorage
@testable import Storage

/// What only the PostgreSQL store has: its URL, its migrations, logins, connections that break,
/// and runners with connections of their own sharing one database. The protocol's behaviour is
/// the shared suite's (StoreBackend).
@Suite struct PostgresStoreTests {
    // MARK: The URL (no server needed)

    /// Every part of the URL is read; what it leaves out has libpq's defaults and the schema
    /// `moltipass`; the URL's password_file wins over the one given beside it.
    @Test func urlParts() throws {
        let location = try PostgresLocation(
            url: "postgresql://runner@db.example:6543/fleet?schema=team_a&sslmode=require&password_file=/run/pg",
            passwordFile: "/from/environment")
        #expect(location.user == "runner" && location.host == "db.example" && location.port == 6543)
        #expect(location.database == "fleet" && location.schema == "team_a" && location.tls == .require)
        #expect(location.passwordFile == "/run/pg")
        let plain = try PostgresLocation(url: "postgres://moltipass@127.0.0.1", passwordFile: "/from/environment")
        #expect(plain.port == 5432 && plain.database == "moltipass" && plain.schema == "moltipass")
        #expect(plain.tls == .prefer && plain.passwordFile == "/from/environment")
        let v6 = try PostgresLocation(url: "postgres://u@[::1]:5433/d?sslmode=verify-full")
        #expect(v6.host == "::1" && v6.tls == .verifyFull && v6.passwordFile == nil)
        #expect(v6.description == "u@[::1]:5433/d (schema moltipass)")
        #expect(PostgresLocation.isURL("POSTGRES://u@h/d") && !PostgresLocation.isURL("/var/lib/state.sqlite"))
    }

    /// A URL Moltipass cannot use is refused with what to fix (`.invalidLocation`).
    @Test(arguments: [
        ("mysql://u@h/d", "the state URL must start with postgres:// or postgresql://"),
        ("postgres://h/d", "the state URL names no user: postgres://USER@HOST:PORT/DATABASE"),
        ("postgres://u@h/d/e", "the state URL's path must be one database name: postgres://USER@HOST:PORT/DATABASE"),
        (
            "postgres://u@h/d?schema=Team-A",
            "the state URL's schema must be 1 to 63 lower-case letters, digits and underscores, starting with a "
                + "letter or an underscore"
        ),
        (
            "postgres://u@h/d?sslmode=verify-ca",
            "the state URL's sslmode must be one of disable, prefer, require, verify-full"
        ),
        (
            "postgres://u@h/d?pool=3",
            "the state URL has a parameter Moltipass does not know (pool); it knows schema, sslmode and password_file"
        ),
        ("postgres://u@h/d?schema=a&schema=b", "the state URL gives the parameter schema twice"),
        ("postgres://u@h/d?password_file=", "the state URL's password_file is empty"),
    ])
    func badURL(url: String, message: String) {
        let error = #expect(throws: StorageError.self) { try PostgresLocation(url: url) }
        #expect(error?.code == .invalidLocation)
        #expect(error?.message == message)
    }

    /// A password written in the URL is refused before any connection is tried, and the message
    /// says to use a password file without repeating the secret.
    @Test func inlinePasswordRefused() async throws {
        let secret = "hunter2-\(UUID().uuidString)"
        let error = await #expect(throws: StorageError.self) {
            _ = try await PostgresStateStore.open(url: "postgres://moltipass:\(secret)@127.0.0.1:1/moltipass")
        }
        #expect(error?.code == .invalidLocation)
        #expect(error?.message.contains("?password_file=PATH or MOLTIPASS_STATE_PASSWORD_FILE") == true)
        #expect(error.map { "\($0) \(String(reflecting: $0))" }?.contains(secret) == false)
    }

    /// The password file: one trailing newline stripped; an empty or missing file refused by name.
    @Test func passwordFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func location(_ contents: String?) throws -> PostgresLocation {
            let path = directory.file("password-\(UUID().uuidString)").path
            if let contents { try Data(contents.utf8).write(to: URL(fileURLWithPath: path)) }
            return try PostgresLocation(url: "postgres://u@h/d?password_file=\(path)")
        }
        #expect(try location("s3cret\n").password() == "s3cret")
        #expect(try location("s3cret\r\n").password() == "s3cret")
        #expect(try location("s3cret\n\n").password() == "s3cret\n")
        let empty = try location("\n")
        #expect(throws: StorageError.self) { try empty.password() }
        let missing = try location(nil)
        let error = #expect(throws: StorageError.self) { try missing.password() }
        #expect(error?.message.hasPrefix("the password file \(missing.passwordFile!) cannot be read") == true)
    }

    // MARK: Logins and connections

    /// Nothing listens at the URL's port: a plain message with the system's reason.
    @Test func unreachableServer() async throws {
        let error = await #expect(throws: StorageError.self) {
            _ = try await PostgresStateStore.open(url: "postgres://moltipass@127.0.0.1:1/moltipass?sslmode=disable")
        }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message
                == "cannot connect to PostgreSQL at 127.0.0.1:1 (connection refused): check the URL, that the server "
                + "runs and that it accepts TCP connections from this host")
    }

    /// A wrong password: the server's refusal in plain words, naming the user and the file,
    /// never the password tried nor the right one, nor PostgresNIO's text.
    @Test(arguments: StoreBackend.postgresOnly)
    func wrongPassword(backend: StoreBackend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let wrong = "wrong-\(UUID().uuidString)"
        let file = directory.file("password").path
        try Data("\(wrong)\n".utf8).write(to: URL(fileURLWithPath: file))
        let url = try PostgresTestServer.url(schema: PostgresTestServer.freshSchema())
        let server = try PostgresLocation(url: url).server
        let error = await #expect(throws: StorageError.self) {
            _ = try await PostgresStateStore.open(url: url, passwordFile: file)
        }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message
                == "PostgreSQL at \(server) refused the password of user moltipass (from \(file)): check the file and "
                + "the user's password on the server")
        let right = try String(contentsOfFile: try #require(PostgresTestServer.passwordFile), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = error.map { "\($0)" } ?? ""
        #expect(!shown.contains(wrong) && !shown.contains(right) && !shown.contains("PSQLError"))
    }

    /// No password at all where the server asks for one: said, with where to give it.
    @Test(arguments: StoreBackend.postgresOnly)
    func noPassword(backend: StoreBackend) async throws {
        let url = try PostgresTestServer.url(schema: PostgresTestServer.freshSchema())
        let error = await #expect(throws: StorageError.self) { _ = try await PostgresStateStore.open(url: url) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("asks for a password for user moltipass, and none was given") == true)
    }

    /// A connection the server ended while idle (a restart, a proxy, an administrator) is made
    /// again for the next transaction: the caller sees nothing of it.
    @Test(arguments: StoreBackend.postgresOnly)
    func reconnectsAfterTheServerEndedTheConnection(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try #require(try await state.open() as? PostgresStateStore)
            _ = try await store.recordIntent(.sample("k1"), at: T.t0)
            let process = try await store.writeConnectionProcess()
            let other = try #require(try await state.open() as? PostgresStateStore)
            try await other.execute("SELECT pg_terminate_backend(\(process))")
            let sent = try await store.markSent(key: "k1", at: T.at(1))
            #expect(sent.state == .sent)
            #expect(try await store.writeConnectionProcess() != process)
        }
    }

    /// A statement whose answer does not come within the deadline (a network cut off without a
    /// reset, a stuck server: here the server sleeps) ends as `.unavailable` in plain words, its
    /// connection closed, instead of waiting for TCP to give up; the next use connects anew.
    @Test(arguments: StoreBackend.postgresOnly)
    func aStatementWithoutAnswerEndsAtItsDeadline(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try #require(try await state.open() as? PostgresStateStore)
            let process = try await store.writeConnectionProcess()
            let started = ContinuousClock.now
            let error = await #expect(throws: StorageError.self) {
                try await store.execute("SELECT pg_sleep(30)", deadline: .seconds(1))
            }
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(error?.code == .unavailable)
            #expect(
                error?.message
                    == "PostgreSQL at \(store.location.server) did not answer within 1 s (the network, or a stuck "
                    + "server), so the connection was closed; nothing of the transaction was written")
            _ = try await store.recordIntent(.sample("k1"), at: T.t0)
            #expect(try await store.writeConnectionProcess() != process)
        }
    }

    /// A server that takes the TCP connection and never answers the start-up (a handshake that
    /// went into a partition, a stuck server): the connection is given up at its deadline, in
    /// plain words, instead of waiting for TCP's retransmissions. No PostgreSQL needed: the
    /// silent server is a listening socket that nobody accepts from.
    @Test(.timeLimit(.minutes(1))) func aConnectionThatNeverCompletesEndsAtItsDeadline() async throws {
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(silent >= 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(silent, $0, size) == 0 && getsockname(silent, $0, &size) == 0
            }
        }
        #expect(bound && listen(silent, 8) == 0)
        let port = UInt16(bigEndian: address.sin_port)
        let location = try PostgresLocation(url: "postgres://runner@127.0.0.1:\(port)/moltipass", passwordFile: nil)
        let connector = try PostgresConnector(location: location, password: "unused", logger: Logger(label: "test"))
        let started = ContinuousClock.now
        let error = await #expect(throws: StorageError.self) { _ = try await connector.connect(deadline: .seconds(1)) }
        // Without the deadline the start-up is never answered and the test hangs to its time
        // limit; 30 s (not 10) because on CI's two loaded cores a 1 s timer has fired 10.9 s late.
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(error?.code == .unavailable)
        #expect(
            error?.message
                == "PostgreSQL at 127.0.0.1:\(port) did not complete a connection within 1 s (the network, or a "
                + "stuck server), so the attempt was given up")
    }

    // MARK: Migrations

    /// Eight stores opened at once on a new schema: each waits for the schema's advisory lock,
    /// so the migration runs once (no "already exists" error in any of them), and all work.
    @Test(arguments: StoreBackend.postgresOnly)
    func concurrentOpensMigrateOnce(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let stores = try await withThrowingTaskGroup(of: (any StateStore).self) { group in
                for _ in 0..<8 { group.addTask { try await state.open() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let first = try #require(stores.first as? PostgresStateStore)
            #expect(try await first.appliedMigrations() == ["v1", "v2"])
            #expect(try await first.appliedMigrations().last == PostgresStateStore.schemaVersion)
            for (index, store) in stores.enumerated() {
                _ = try await store.recordIntent(.sample("k\(index)"), at: T.at(Double(index)))
            }
            let keys = try await first.read { try await $0.journalEntries(account: "alice", states: [.intent]) }
            #expect(keys.map(\.key) == (0..<8).map { "k\($0)" })
        }
    }

    /// A schema holding a migration this build does not know was written by a newer build:
    /// opening it is refused with `.newerSchema`, naming the versions.
    @Test(arguments: StoreBackend.postgresOnly)
    func newerSchemaRefused(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try #require(try await state.open() as? PostgresStateStore)
            try await store.execute("INSERT INTO \(store.schema).schema_migrations (version) VALUES ('v99')")
            let error = await #expect(throws: StorageError.self) { _ = try await state.open() }
            #expect(error?.code == .newerSchema)
            #expect(
                error?.message
                    == "the PostgreSQL state \(store.location) was written by a newer Moltipass (schema v1, v2, v99; "
                    + "this build knows up to v2): upgrade Moltipass or use another schema")
        }
    }

    // MARK: Runners sharing the database

    /// Ten runners (ten stores, each with its own connections) ask for one agent's lease at the
    /// same instant: exactly one gets it, with token 1; the nine others see that one and its expiry.
    @Test(arguments: StoreBackend.postgresOnly)
    func runnersRaceForOneLease(backend: StoreBackend) async throws {
        try await backend.withState { state in
            var stores: [any StateStore] = []
            for _ in 0..<10 {
                let store = try await state.open()
                _ = try await store.transaction { try await $0.lease(account: "alice") }  // connected
                stores.append(store)
            }
            let results = try await withThrowingTaskGroup(of: (String, LeaseResult).self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        let holder = "runner-\(index)"
                        return (
                            holder, try await store.acquireLease(account: "alice", holder: holder, now: T.t0, ttl: 30)
                        )
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = results.compactMap { $0.1.lease }
            #expect(winners.count == 1)
            let winner = try #require(winners.first)
            #expect(winner.token == 1 && winner.expiresAt == T.at(30))
            for (holder, result) in results where holder != winner.holder {
                #expect(result == .heldBy(holder: winner.holder, until: T.at(30)))
            }
        }
    }

    /// A runner's transaction fenced by `renewLease(token)` keeps the lease row locked until it
    /// commits: another runner whose clock says the lease has expired waits for it, then sees
    /// the renewal and takes nothing; the fenced write is committed. In the other order, the
    /// takeover commits first and the old holder's fence fails: it writes nothing.
    @Test(arguments: StoreBackend.postgresOnly)
    func fencedTransactionSerialisesWithATakeover(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let runnerA = try await state.open()
            let runnerB = try await state.open()
            let lease = try #require(
                try await runnerA.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60).lease)
            let (inside, entered) = AsyncStream<Void>.makeStream()
            let (resume, resumed) = AsyncStream<Void>.makeStream()
            let fenced = Task {
                try await runnerA.transaction { tx in
                    let renewed = try await tx.renewLease(
                        account: "alice", holder: "A", token: lease.token, now: T.at(50), ttl: 60)
                    guard renewed != nil else { throw Boom() }
                    entered.yield()
                    for await _ in resume { break }
                    _ = try await tx.recordIntent(.sample("k1"), at: T.at(51))
                }
            }
            for await _ in inside { break }
            let takeoverDone = SuspensionTests.Flag()
            let takeover = Task {
                defer { takeoverDone.set() }
                return try await runnerB.acquireLease(account: "alice", holder: "B", now: T.at(100), ttl: 60)
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(!takeoverDone.value, "the takeover did not wait for the fenced transaction")
            resumed.yield()
            try await fenced.value
            #expect(try await takeover.value == .heldBy(holder: "A", until: T.at(110)))
            #expect(try await runnerB.journalEntry(key: "k1")?.state == .intent)

            // The takeover first (A's renewed lease expired at 110): A's fence fails, nothing written.
            let taken = try await runnerB.acquireLease(account: "alice", holder: "B", now: T.at(110), ttl: 60)
            #expect(taken.lease?.token == 2)
            await #expect(throws: Boom.self) {
                try await runnerA.transaction { tx in
                    let renewed = try await tx.renewLease(
                        account: "alice", holder: "A", token: lease.token, now: T.at(111), ttl: 60)
                    guard renewed != nil else { throw Boom() }
                    _ = try await tx.recordIntent(.sample("k2"), at: T.at(111))
                }
            }
            #expect(try await runnerB.journalEntry(key: "k2") == nil)
        }
    }
}
