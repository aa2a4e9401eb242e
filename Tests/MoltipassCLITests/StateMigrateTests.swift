import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// `moltipass state migrate` through the binary (issue 23): a state file with a real history
/// (a `run --once` against the sandbox) moves into PostgreSQL; `status` reads the same from
/// both; a run on the new state neither repeats what the file's runs did nor forgets the queue's
/// place; a runner still using the file, a second move into the same schema, and a URL with a
/// password are refused with nothing written.
@Suite("moltipass state migrate")
struct StateMigrateTests {
    /// `status --json`'s agents, at `now`.
    static func agents(_ fixture: RunFixture, recipe: String, state: String, now: Date) async throws -> JSONValue? {
        let result = try await fixture.home.run(
            ["status", recipe, "--state", state, "--json", "--now", RunFixture.iso(now)],
            extra: PostgresTestServer.childEnvironment)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValue.parse(Data(result.stdout.utf8))["agents"]
    }

    @Test(.enabled(if: PostgresTestServer.wanted))
    func movesAFileIntoPostgreSQL() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("mover")
        try fixture.queue(count: 4)
        let recipe = try fixture.postingRecipe("mover")
        let start = RunFixture.t0
        let first = try await fixture.run([recipe, "--once"], at: start)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try await fixture.counter("posts_created") == 1)
        let url = try PostgresTestServer.url(schema: PostgresTestServer.freshSchema())
        let environment = PostgresTestServer.childEnvironment

        // A runner that still holds the agent: refused, nothing written.
        _ = try await fixture.sqlite(
            "INSERT INTO leases (account, holder, acquired_at, expires_at, token) VALUES "
                + "('mover', 'daemon-elsewhere', \(start.timeIntervalSince1970), \(start.timeIntervalSince1970 + 600), 1) "
                + "ON CONFLICT (account) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at")
        let busy = try await fixture.home.run(
            ["state", "migrate", "--from", fixture.statePath, "--to", url, "--now", RunFixture.iso(start + 60)],
            extra: environment)
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("daemon-elsewhere holds mover"), "\(busy.stderr)")
        #expect(busy.stderr.contains("stop every daemon and cron run"), "\(busy.stderr)")

        // Once the lease ran out (the runner is gone): moved.
        let at = start + 700
        let moved = try await fixture.home.run(
            ["state", "migrate", "--from", fixture.statePath, "--to", url, "--now", RunFixture.iso(at), "--json"],
            extra: environment)
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        let report = try JSONValue.parse(Data(moved.stdout.utf8))
        let journal = try await fixture.journalCount("1 = 1")
        #expect(report["rows"]?["journal"]?.int == journal && journal >= 1, "\(moved.stdout)")
        #expect(report["rows"]?["schedule_cursors"]?.int == 1 && report["rows"]?["queue_positions"]?.int == 1)
        #expect(report["left_behind"]?["leases"]?.int == 1)
        #expect(report["agents"]?.array?.compactMap(\.string) == ["mover"])
        #expect(!moved.stdout.contains("password") && !moved.stderr.contains("password"))

        // status reads the same from both.
        let fromFile = try await Self.agents(fixture, recipe: recipe, state: fixture.statePath, now: at)
        let fromPostgres = try await Self.agents(fixture, recipe: recipe, state: url, now: at)
        #expect(
            fromFile != nil && fromFile == fromPostgres,
            "\(String(describing: fromFile))\n\(String(describing: fromPostgres))")

        // A run on the new state: nothing twice, and the queue goes on where the file's left it.
        let again = try await fixture.home.run(
            ["run", recipe, "--once", "--detailed-exitcode", "--state", url, "--now", RunFixture.iso(at)],
            extra: environment)
        #expect(again.status == 3, "nothing is due 11 minutes after the first post: \(again.stdout)\(again.stderr)")
        // 12:00, when the sandbox's post cooldown (2 h in the strictest dialect) ends: the 12:00
        // occurrence goes (a run at 12:00:30 sends it if the first found the cooldown a moment short).
        var outcomes: [Int32] = []
        for offset in [7_200.0, 7_230] {
            try await fixture.setClock(start + offset)
            let next = try await fixture.home.run(
                [
                    "run", recipe, "--once", "--detailed-exitcode", "--state", url, "--now",
                    RunFixture.iso(start + offset),
                ],
                extra: environment)
            outcomes.append(next.status)
            #expect([0, 3, 4].contains(next.status), "\(next.stdout)\(next.stderr)")
        }
        #expect(outcomes.contains(0), "\(outcomes)")
        #expect(try await fixture.counter("posts_created") == 2)
        #expect(try await fixture.titles(of: "mover").sorted() == ["Item 0", "Item 1"])

        // The same schema again: refused, the state untouched.
        let twice = try await fixture.home.run(
            ["state", "migrate", "--from", fixture.statePath, "--to", url, "--now", RunFixture.iso(at)],
            extra: environment)
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("is not empty"), "\(twice.stderr)")
        let after = try await Self.agents(fixture, recipe: recipe, state: url, now: start + 7_230)
        #expect(after?.array?.first?["pending"] == fromPostgres?.array?.first?["pending"])
    }

    /// Wrong directions and a password in the URL: refused before anything is read or written.
    @Test func refusesWhatIsNotAMove() async throws {
        let home = try KeysHome()
        let file = home.path + "/state.sqlite"
        let missing = try await home.run(
            ["state", "migrate", "--from", file, "--to", "postgres://moltipass@127.0.0.1:1/moltipass"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("there is no state file at"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let backwards = try await home.run(
            ["state", "migrate", "--from", "postgres://moltipass@127.0.0.1:1/moltipass", "--to", file])
        #expect(backwards.status == 1)
        #expect(backwards.stderr.contains("--from names a PostgreSQL state"), "\(backwards.stderr)")
        let notURL = try await home.run(["state", "migrate", "--from", file, "--to", home.path + "/other.sqlite"])
        #expect(notURL.status == 1 && notURL.stderr.contains("--to is not a PostgreSQL URL"), "\(notURL.stderr)")
        let inline = try await home.run(
            ["state", "migrate", "--from", file, "--to", "postgres://moltipass:hunter2secret@127.0.0.1:1/moltipass"])
        #expect(inline.status == 1 && inline.stderr.contains("password"), "\(inline.stderr)")
        #expect(!(inline.stdout + inline.stderr).contains("hunter2secret"), "\(inline.stderr)")
    }
}
