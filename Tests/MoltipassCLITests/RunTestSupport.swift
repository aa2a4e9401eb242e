import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// A temp HOME with a keychain, a `moltbook-sandbox` process, registered and claimed agents,
/// and recipe files: what the `moltipass run` tests drive through the real binary. The sandbox
/// clock and `--now` are kept equal, so the engine and the server agree on time.
struct RunFixture {
    /// 2026-12-01T10:00:00Z, on the half-hour grid of the test recipes.
    static let t0 = Date(timeIntervalSince1970: 1_796_119_200)

    /// A minute past the next half hour: the gap between two runs that each expect to post. A run's
    /// clock starts at `--now` and then runs, so on a loaded machine its post is sent seconds after
    /// `--now` and the 30-minute cooldown ends that much later; five seconds of margin were not
    /// enough (a CI run was deferred, exit 4, at 30 min 5 s).
    static let nextHalfHour: TimeInterval = 1_860

    let home: KeysHome
    let sandbox: SandboxProcess
    let transport: CurlTransport

    /// Starts a sandbox speaking `dialect` (the test matrix's, `MOLTIPASS_TEST_DIALECT`, by default).
    static func start(sandboxArguments: [String] = [], dialect: SandboxDialect = TestDialect.current) async throws
        -> RunFixture
    {
        let home = try KeysHome()
        let sandbox = try await SandboxProcess.start(arguments: sandboxArguments + ["--dialect", dialect.rawValue])
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        let fixture = RunFixture(home: home, sandbox: sandbox, transport: transport)
        try await fixture.setClock(t0)
        try await home.initKeychain()
        return fixture
    }

    func stop() async {
        await sandbox.stop()
        home.remove()
    }

    var base: String { sandbox.baseURL.absoluteString }
    var statePath: String { home.path + "/state.sqlite" }

    /// Registers and claims `name` (at the sandbox's current time).
    func agent(_ name: String) async throws {
        let registered = try await home.run(["register", name, "--description", "run test", "--base-url", base])
        #expect(registered.status == 0, "register \(name): \(registered.stderr)")
        try await claimOnSandbox(sandbox, name)
    }

    /// Registers and claims `name` on the sandbox through the API and stores its key under the
    /// same entry name with the sandbox's base URL (`keys add --base-url`), for recipes that
    /// name no `base_url`.
    func keychainAgent(_ name: String) async throws {
        let key = try await registerOnSandbox(sandbox, name)
        try await claimOnSandbox(sandbox, name)
        let added = try await home.run(["keys", "add", name, "--base-url", base], stdin: key, recorded: false)
        #expect(added.status == 0, "keys add \(name): \(added.stderr)")
    }

    /// Writes `text` to `name` in HOME; returns its path.
    @discardableResult
    func file(_ name: String, _ text: String) throws -> String {
        let path = home.path + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A queue of `count` numbered posts in `queue.yaml`.
    func queue(count: Int) throws {
        try file(
            "queue.yaml",
            (0..<count).map { "- title: \"Item \($0)\"\n  content: \"Body \($0).\"" }.joined(separator: "\n"))
    }

    /// A recipe for `agent` posting from `queue.yaml` every 30 minutes, plus `extraJobs`.
    func postingRecipe(_ agent: String, name: String = "run.yaml", extraJobs: String = "") throws -> String {
        try file(
            name,
            """
            agent: \(agent)
            time_zone: UTC
            base_url: \(base)
            jobs:
              - id: posts
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            \(extraJobs)
            """)
    }

    /// `moltipass run ARGS --state STATE --now AT` (after setting the sandbox clock to `at`).
    ///
    /// With `--once` and `detailed` (the default), `--detailed-exitcode` is added, so the tests
    /// tell the outcomes apart (3 nothing due, 4 deferred, 5 locked, 6 paused); without it every
    /// outcome that is not a failure exits 0 (`ExitCodeConventionTests`).
    func run(
        _ arguments: [String], at: Date, extra: [String: String] = [:], detailed: Bool = true,
        timeout: TimeInterval = 60
    ) async throws -> ProcessRunner.Result {
        try await setClock(at)
        let flag = detailed && arguments.contains("--once") && !arguments.contains("--detailed-exitcode")
        return try await home.run(
            ["run"] + arguments + (flag ? ["--detailed-exitcode"] : []) + [
                "--state", statePath, "--now", Self.iso(at),
            ],
            extra: extra, timeout: timeout)
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Journal rows matching `condition`, read with the system `sqlite3`.
    func journalCount(_ condition: String) async throws -> Int {
        Int(try await sqlite("SELECT count(*) FROM journal WHERE \(condition);")) ?? -1
    }

    /// `sqlite3 STATE SQL`, its output trimmed.
    func sqlite(_ sql: String) async throws -> String {
        let result = try await ProcessRunner.runSystem("/usr/bin/sqlite3", [statePath, sql])
        #expect(result.status == 0, "sqlite3: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Sandbox admin

    @discardableResult
    func admin(_ method: HTTPMethod, _ path: String, _ json: JSONValue? = nil) async throws -> JSONValue {
        var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
        // `PATH?QUERY`: the query is kept as a query, not escaped into the path.
        let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
        components.path = "/_sandbox/" + parts[0]
        if parts.count == 2 { components.percentEncodedQuery = parts[1] }
        var headers: HTTPHeaders = [:]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let response = try await transport.send(
            HTTPRequest(method: method, url: components.url!, headers: headers, body: json?.encoded()))
        guard (200...299).contains(response.status) else {
            throw HarnessError("admin \(path): HTTP \(response.status)")
        }
        return (try? JSONValue.parse(response.body)) ?? .null
    }

    /// Sets the sandbox's clock to `date`; from then on the test stands at a simulated instant, and
    /// every clock-reading command it runs through `home` must be given `--now`.
    func setClock(_ date: Date) async throws {
        try await admin(.post, "clock", .object(["now": .string(Self.iso(date))]))
        home.simulated.value = date
    }

    func counters() async throws -> JSONValue { try await admin(.get, "counters") }

    /// The sandbox's current instant, as `--now` takes it: for a sandbox whose clock runs (scaled).
    func sandboxNow() async throws -> String {
        let clock = try await admin(.get, "clock")["now"]?.string
        return try #require(clock.flatMap(SandboxTime.parse).map(Self.iso))
    }

    func counter(_ name: String) async throws -> Int { try await counters()[name]?.int ?? -1 }

    /// A post by a fresh, claimed agent `crash_host` in m/general: a target for comments and votes.
    func hostPost() async throws -> String {
        let anonymous = try MoltbookClient(
            baseURL: sandbox.baseURL, apiKey: nil, transport: transport, allowLoopback: true)
        let key = try await anonymous.register(name: "crash_host", description: "posts targets").value.apiKey
        try await claimOnSandbox(sandbox, "crash_host")
        return try await rawPost(key: key, submolt: "general", title: "Talk to me", content: "Comments welcome.")
    }

    /// Creates a post with `key` by a plain HTTP request that names the submolt both ways, so a
    /// test's set-up works on every dialect whatever the client under test sends.
    @discardableResult
    func rawPost(key: APIKey, submolt: String, title: String, content: String) async throws -> String {
        let body = JSONValue.object([
            "submolt": .string(submolt), "submolt_name": .string(submolt), "title": .string(title),
            "content": .string(content),
        ])
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        key.withRawValue { headers.add(name: "Authorization", value: "Bearer \($0)") }
        let response = try await transport.send(
            HTTPRequest(
                method: .post, url: sandbox.baseURL.appendingPathComponent("posts"), headers: headers,
                body: body.encoded()))
        let json = try JSONValue.parse(response.body)
        if let id = (json["post"]?["id"] ?? json["data"]?["id"] ?? json["post_id"])?.string { return id }
        guard (200...299).contains(response.status) else { throw HarnessError("set-up post: HTTP \(response.status)") }
        // A server that names no id (`{"success": true}`, a `create_answer` of the sandbox): the
        // newest post of that title.
        let client = try MoltbookClient(
            baseURL: sandbox.baseURL, apiKey: key, transport: transport, allowLoopback: true)
        guard let id = try await client.posts(sort: .new, limit: 50).value.items.first(where: { $0.title == title })?.id
        else { throw HarnessError("set-up post: created, but not listed") }
        return id
    }

    /// A post by keychain entry `entry`, made by hand (see `rawPost`).
    @discardableResult
    func postByHand(_ entry: String, submolt: String = "general", title: String, content: String = "By hand.")
        async throws -> String
    {
        let exported = try await home.run(["keys", "export", entry, "--reveal"], recorded: false)
        #expect(exported.status == 0, "keys export: \(exported.stderr)")
        let key = APIKey(exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        return try await rawPost(key: key, submolt: submolt, title: title, content: content)
    }

    /// Titles of `agent`'s posts in the global feed, oldest first (read by a fresh agent).
    func titles(of agent: String) async throws -> [String] {
        let anonymous = try MoltbookClient(
            baseURL: sandbox.baseURL, apiKey: nil, transport: transport, allowLoopback: true)
        let reader = "reader_\(UUID().uuidString.prefix(6).lowercased())"
        let key = try await anonymous.register(name: reader, description: "feed reader").value.apiKey
        let posts = try await anonymous.with(apiKey: key).posts(sort: .new, limit: 100).value.items
        return posts.filter { $0.author?.name == agent }.compactMap(\.title).reversed()
    }
}

extension RunFixture {
    /// A fixture whose agent `name` was registered two days before `t0` (so the engine uses the
    /// established limits, 1 post / 30 min), with a 5-item queue and a posting recipe; the 10:00
    /// post is already made. Returns the fixture and the recipe path.
    static func establishedPoster(_ name: String) async throws -> (RunFixture, String) {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent(name)
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe(name)
        #expect(try await fixture.run([recipe, "--once"], at: t0).status == 0)
        return (fixture, recipe)
    }

    /// A `run --once` at `at` killed (SIGKILL) once the sandbox has applied its late-answered post,
    /// the answer still on its way; the delay fault is cleared afterwards.
    func killDuringLatePost(_ recipe: String, at: Date, delay: Double, untilPosts posts: Int) async throws {
        let child = try await startWithLatePost(recipe, at: at, delay: delay, untilPosts: posts)
        child.send(SIGKILL)
        _ = await child.waitForExit(timeout: 10)
        #expect(child.wasSignalled)
        try await admin(.delete, "faults")
    }

    /// Starts `run --once` at `at` with its next `POST /posts` answered `delay` seconds after the
    /// sandbox applied it, and returns the process once the sandbox holds `posts` posts (the
    /// answer still on its way).
    func startWithLatePost(_ recipe: String, at: Date, delay: Double, untilPosts posts: Int) async throws
        -> ChildProcess
    {
        try await setClock(at)
        try await admin(
            .post, "faults",
            .object([
                "mode": .string("delay"), "method": .string("POST"), "path_prefix": .string("/api/v1/posts"),
                "delay_seconds": .number(delay),
            ]))
        let child = try ChildProcess(
            "moltipass", ["run", recipe, "--once", "--state", statePath, "--now", Self.iso(at)],
            environment: home.environment, directory: home.directory.url)
        let deadline = Date().addingTimeInterval(30)
        while try await counter("posts_created") < posts, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return child
    }
}

extension TestDialect {
    /// The matrix's dialect when it issues verification challenges, else moltbook.com (the
    /// open-source server issues none).
    static var issuingChallenges: SandboxDialect { current == .oss ? .moltbookCom : current }
}

/// A `moltipass run` daemon living a simulated day on scaled clocks (the sandbox started with
/// `--now` and `--time-scale`), killed with SIGKILL at three random points and started again
/// each time from where the sandbox's clock stands: the day tests of issues 21 and 22.
struct KilledDay {
    let fixture: RunFixture
    /// The recipes (and any other arguments before `--state`).
    let recipes: [String]
    let scale: Double
    /// Wall-clock instants (seconds since 1970) of the kills, and every daemon started.
    var kills: [Double] = []
    var daemons: [ChildProcess] = []

    init(fixture: RunFixture, recipes: [String], scale: Double) {
        self.fixture = fixture
        self.recipes = recipes
        self.scale = scale
    }

    /// Starts a daemon at the sandbox's current instant (a restarted one carries on the day).
    mutating func startDaemon() async throws {
        let clock = try await fixture.admin(.get, "clock")["now"]?.string
        let now = try #require(clock.flatMap(SandboxTime.parse).map(RunFixture.iso))
        let daemon = try ChildProcess(
            "moltipass",
            ["run"] + recipes + [
                "--state", fixture.statePath, "--now", now, "--time-scale", String(Int(scale)), "--log-format", "json",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        daemons.append(daemon)
    }

    /// Lives the day (122 s of wall time at ×720: three kills at random points, the seed printed
    /// under `label`), stops the last daemon with SIGTERM, and returns the sandbox's clock then.
    mutating func live(label: String, from start: Date) async throws -> Date {
        var random = KillPoints(seed: UInt64(Date().timeIntervalSince1970))
        print("\(label) seed \(random.state)")
        try await startDaemon()
        var elapsed = 0.0
        for _ in 0..<3 {
            let wait = 12 + Double(random.next() % 18_000) / 1_000
            try await Task.sleep(for: .milliseconds(Int(wait * 1_000)))
            elapsed += wait
            kills.append(Date().timeIntervalSince1970)
            daemons.last?.send(SIGKILL)
            _ = await daemons.last?.waitForExit(timeout: 10)
            try await startDaemon()
        }
        try await Task.sleep(for: .milliseconds(Int(max(5, 122 - elapsed) * 1_000)))
        let clock = try await fixture.admin(.get, "clock")
        daemons.last?.send(SIGTERM)
        #expect(await daemons.last?.waitForExit(timeout: 60) == 0, "\(daemons.last?.stderr ?? "")")
        let end = try #require(clock["now"]?.string.flatMap(SandboxTime.parse))
        #expect(end.timeIntervalSince(start) >= 86_400, "the day was not lived through: \(end)")
        return end
    }
}

/// The state a binary test runs against: the fixture's SQLite file, or a fresh schema on the
/// PostgreSQL test server (`PostgresTestServer`; left out when none is given, outside CI).
enum StateBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// SQLite, and PostgreSQL when wanted.
    static var all: [StateBackend] { [.sqlite] + (PostgresTestServer.wanted ? [.postgres] : []) }

    /// A `--state` value for a new state of this backend.
    func state(_ fixture: RunFixture) throws -> String {
        switch self {
        case .sqlite: fixture.statePath
        case .postgres: try PostgresTestServer.url(schema: PostgresTestServer.freshSchema())
        }
    }

    /// What a `moltipass` child needs in its environment for this backend.
    var environment: [String: String] { self == .postgres ? PostgresTestServer.childEnvironment : [:] }
}
