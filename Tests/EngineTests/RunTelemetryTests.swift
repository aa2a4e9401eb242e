import Foundation
import MoltbookAPI
import MoltipassEngine
import MoltipassTesting
import RateLimiting
import Recipes
import Storage
import Synchronization
import Telemetry
import Testing

@testable import MoltipassCommands

/// The run's metrics from pass reports, request observations and the state; the probes' logic.
@Suite("Run telemetry")
struct RunTelemetryTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_119_200)

    static func item(
        _ agent: String, _ action: String, _ outcome: RunReport.Item.Outcome, until: Date? = nil, key: String? = nil
    ) -> RunReport.Item {
        RunReport.Item(
            agent: agent, recipe: "r", job: "j", action: action, outcome: outcome, reason: "why 123", until: until,
            key: key)
    }

    /// The value of the series `line` starts with (`name{labels}`), or nil when absent.
    static func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// Report lines count by agent, action kind and outcome; a deferral still standing in the
    /// next pass is not counted again (a new instant is); challenges by result; lines of an agent
    /// not in the recipes are not counted; ids and reasons never reach a label.
    @Test func passReports() {
        let telemetry = RunTelemetry(version: "9.9.9", agents: ["kelp", "reef"])
        var first = RunReport()
        first.items = [
            Self.item("kelp", "post to m/general: \"Tide 4f1c\"", .done, key: "k1"),
            Self.item("kelp", "upvote post 4f1c-99", .deferred, until: Self.t0.addingTimeInterval(60), key: "k2"),
            Self.item("kelp", "comment on 77: \"Hi\"", .challenged, key: "k3"),
            Self.item("reef", "verify", .done),
            Self.item("reef", "verify", .failed),
            Self.item("reef", "verify", .skipped),
            Self.item("stranger", "post to m/general: \"x\"", .done),
        ]
        telemetry.recordPass(first, startedAt: Self.t0, duration: .milliseconds(120))
        var second = RunReport()
        second.items = [
            Self.item("kelp", "upvote post 4f1c-99", .deferred, until: Self.t0.addingTimeInterval(60), key: "k2"),
            Self.item("kelp", "occurrence 2026-12-01T10:30:00Z", .skipped),
        ]
        telemetry.recordPass(second, startedAt: Self.t0.addingTimeInterval(30), duration: .milliseconds(80))
        var third = RunReport()
        third.items = [
            Self.item("kelp", "upvote post 4f1c-99", .deferred, until: Self.t0.addingTimeInterval(90), key: "k2")
        ]
        telemetry.recordPass(third, startedAt: Self.t0.addingTimeInterval(60), duration: .milliseconds(80))

        let text = telemetry.export.exposition()
        let actions = "moltipass_actions_total"
        #expect(Self.value(text, "\(actions){agent=\"kelp\",action=\"post\",outcome=\"done\"}") == 1)
        #expect(Self.value(text, "\(actions){agent=\"kelp\",action=\"vote\",outcome=\"held\"}") == 2)
        #expect(Self.value(text, "\(actions){agent=\"kelp\",action=\"comment\",outcome=\"held\"}") == 1)
        #expect(Self.value(text, "\(actions){agent=\"kelp\",action=\"occurrence\",outcome=\"skipped\"}") == 1)
        #expect(Self.value(text, "\(actions){agent=\"reef\",action=\"verify\",outcome=\"failed\"}") == 1)
        #expect(!text.contains("stranger") && !text.contains("4f1c") && !text.contains("why"))
        for (result, count) in [("received", 1.0), ("solved", 1), ("failed", 1), ("dropped", 1), ("uncertain", 0)] {
            #expect(Self.value(text, "moltipass_challenges_total{result=\"\(result)\"}") == count, "\(result)")
        }
        #expect(Self.value(text, "moltipass_pass_duration_seconds_count") == 3)
        #expect(Self.value(text, "moltipass_pass_duration_seconds_bucket{le=\"0.1\"}") == 2)
        #expect(Self.value(text, "moltipass_last_tick_timestamp_seconds") == Self.t0.timeIntervalSince1970 + 60)
        #expect(text.contains("moltipass_build_info{version=\"9.9.9\",swift=\"\(RunTelemetry.swiftVersion)\"} 1"))
    }

    /// Requests by method, route template and status class; a 429 counts against the action's
    /// class with the wait it asked for (a class's default when it named none), a generic-window
    /// 429 against the request class, and `X-RateLimit-Remaining: 0` makes the request class wait
    /// until the reset without counting as a 429.
    @Test func requests() {
        let telemetry = RunTelemetry(version: "1", agents: ["kelp"])
        let observe = telemetry.requestObserver { Self.t0 }
        var cooldown = RateLimitHint()
        cooldown.retryAfterMinutes = 30
        observe(
            RequestObservation(
                method: .post, route: "/posts", status: 429, duration: .milliseconds(3), rateLimit: cooldown))
        var window = RateLimitHint()
        window.bodyRemaining = 0
        window.resetAt = Self.t0.addingTimeInterval(20)
        observe(
            RequestObservation(
                method: .post, route: "/posts/{id}/comments", status: 429, duration: .milliseconds(3), rateLimit: window
            ))
        observe(
            RequestObservation(
                method: .post, route: "/posts/{id}/upvote", status: 429, duration: .milliseconds(3),
                rateLimit: RateLimitHint()))
        var exhausted = RateLimitHint()
        exhausted.windowRemaining = 0
        exhausted.windowReset = Self.t0.addingTimeInterval(45)
        observe(
            RequestObservation(
                method: .get, route: "/home", status: 200, duration: .milliseconds(40), rateLimit: exhausted))
        observe(
            RequestObservation(
                method: .get, route: "/feed", status: nil, duration: .seconds(2), rateLimit: RateLimitHint()))

        let text = telemetry.export.exposition()
        #expect(Self.value(text, "moltipass_rate_limited_responses_total{class=\"post\"}") == 1)
        #expect(Self.value(text, "moltipass_rate_limited_responses_total{class=\"write\"}") == 1)
        #expect(Self.value(text, "moltipass_rate_limited_responses_total{class=\"vote\"}") == 1)
        #expect(Self.value(text, "moltipass_rate_limited_responses_total{class=\"read\"}") == 0)
        #expect(Self.value(text, "moltipass_hint_wait_seconds_total{class=\"post\"}") == 1_800)
        #expect(Self.value(text, "moltipass_hint_wait_seconds_total{class=\"write\"}") == 20)
        #expect(
            Self.value(text, "moltipass_hint_wait_seconds_total{class=\"vote\"}") == LimitClass.vote.defaultRetryWait)
        #expect(Self.value(text, "moltipass_hint_waits_total{class=\"read\"}") == 1)
        #expect(Self.value(text, "moltipass_hint_wait_seconds_total{class=\"read\"}") == 45)
        let duration = "moltipass_http_client_request_duration_seconds"
        #expect(Self.value(text, "\(duration)_count{method=\"POST\",route=\"/posts\",status_class=\"4xx\"}") == 1)
        #expect(Self.value(text, "\(duration)_count{method=\"GET\",route=\"/home\",status_class=\"2xx\"}") == 1)
        #expect(Self.value(text, "\(duration)_count{method=\"GET\",route=\"/feed\",status_class=\"error\"}") == 1)
    }

    /// The classes a 429 holds, by route, as the limiter reads them.
    @Test(arguments: [
        (HTTPMethod.post, "/posts", LimitClass?.some(.post)),
        (.post, "/posts/{id}/comments", .comment),
        (.post, "/comments/{id}/downvote", .vote),
        (.delete, "/agents/{id}/follow", .follow),
        (.post, "/submolts/{id}/subscribe", .subscribe),
        (.post, "/submolts", .submolt),
        (.post, "/verify", .verify),
        (.post, "/agents/dm/request", .dm),
        (.post, "/agents/dm/conversations/{id}/send", .dm),
        (.post, "/agents/dm/requests/{id}/approve", nil),
        (.post, "/notifications/read-by-post/{id}", nil),
        (.get, "/posts", nil),
    ])
    func actionClasses(_ method: HTTPMethod, _ route: String, _ expected: LimitClass?) {
        #expect(RequestLimitClass.action(method, route) == expected)
    }

    /// The state's gauges: the lease this holder holds (not another's), pauses by kind, the next
    /// allowed instant per class as `status` computes it (the reading time when it admits now);
    /// an agent dropped from the recipes loses its series.
    @Test func stateGauges() async throws {
        let store = MemoryStateStore()
        var limiter = Limiter(rules: LimitRules.rules(for: .newAgent))
        var cooldown = RateLimitHint()
        cooldown.retryAfterMinutes = 30
        limiter.absorb(cooldown, status: 429, action: .post, request: .write, at: Self.t0)
        let bytes = limiter.serialized()
        try await store.transaction { transaction in
            _ = try await transaction.acquireLease(account: "kelp", holder: "me", now: Self.t0, ttl: 600)
            _ = try await transaction.acquireLease(account: "reef", holder: "other", now: Self.t0, ttl: 600)
            try await transaction.setLimiterState(bytes, account: "kelp", key: "limiter", at: Self.t0)
            try await transaction.setPause(
                AccountPause(account: "reef", kind: .suspended, until: nil, reason: "suspended", createdAt: Self.t0))
        }
        let telemetry = RunTelemetry(version: "1", agents: ["kelp", "reef"])
        let now = Self.t0.addingTimeInterval(10)
        let text = await telemetry.exposition(store: store, holder: "me", now: now)
        #expect(Self.value(text, "moltipass_lease_held{agent=\"kelp\"}") == 1)
        #expect(Self.value(text, "moltipass_lease_held{agent=\"reef\"}") == 0)
        #expect(Self.value(text, "moltipass_agent_paused{agent=\"reef\",kind=\"suspended\"}") == 1)
        #expect(Self.value(text, "moltipass_agent_paused{agent=\"reef\",kind=\"manual\"}") == 0)
        #expect(Self.value(text, "moltipass_agent_paused{agent=\"kelp\",kind=\"suspended\"}") == 0)
        let post = Self.value(text, "moltipass_next_allowed_timestamp_seconds{agent=\"kelp\",class=\"post\"}")
        #expect(post == Self.t0.timeIntervalSince1970 + 1_800)
        let read = Self.value(text, "moltipass_next_allowed_timestamp_seconds{agent=\"kelp\",class=\"read\"}")
        #expect(read == now.timeIntervalSince1970)
        #expect(
            !text.contains("moltipass_next_allowed_timestamp_seconds{agent=\"reef\""), "no limiter stored: no series")

        telemetry.setAgents(["kelp"])
        let after = await telemetry.exposition(store: store, holder: "me", now: now)
        #expect(!after.contains("reef"))
        #expect(Self.value(after, "moltipass_lease_held{agent=\"kelp\"}") == 1)
    }

    /// A store that stops answering (a runner cut off from PostgreSQL) when told to.
    final class CutOffStore: StateStore {
        let inner: any StateStore
        let cut = Mutex(false)

        init(_ inner: any StateStore) { self.inner = inner }

        /// What the PostgreSQL store throws for a lost connection or a deadline.
        static let unreachable = StorageError(.unavailable, "the test cut the store off")

        func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
            if cut.withLock({ $0 }) { throw Self.unreachable }
            return try await inner.read(body)
        }

        func transaction<T: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> T)
            async throws -> T
        {
            if cut.withLock({ $0 }) { throw Self.unreachable }
            return try await inner.transaction(body)
        }
    }

    /// A state that does not answer: a lease still counts as held until the expiry last read,
    /// not after (others take it over then); the other gauges keep their last values.
    @Test func leasesOfAStateThatDoesNotAnswer() async throws {
        let memory = MemoryStateStore()
        try await memory.transaction { transaction in
            _ = try await transaction.acquireLease(account: "kelp", holder: "me", now: Self.t0, ttl: 600)
            try await transaction.setPause(
                AccountPause(account: "kelp", kind: .manual, until: nil, reason: "by hand", createdAt: Self.t0))
        }
        let store = CutOffStore(memory)
        let telemetry = RunTelemetry(version: "1", agents: ["kelp"])
        let read = await telemetry.exposition(store: store, holder: "me", now: Self.t0.addingTimeInterval(10))
        #expect(Self.value(read, "moltipass_lease_held{agent=\"kelp\"}") == 1)
        store.cut.withLock { $0 = true }
        let within = await telemetry.exposition(store: store, holder: "me", now: Self.t0.addingTimeInterval(599))
        #expect(Self.value(within, "moltipass_lease_held{agent=\"kelp\"}") == 1)
        let expired = await telemetry.exposition(store: store, holder: "me", now: Self.t0.addingTimeInterval(600))
        #expect(Self.value(expired, "moltipass_lease_held{agent=\"kelp\"}") == 0)
        #expect(Self.value(expired, "moltipass_agent_paused{agent=\"kelp\",kind=\"manual\"}") == 1)
    }

    /// A state that answers late counts as one that does not answer: a scrape waits for it at
    /// most its bound (a runner cut off from PostgreSQL made Prometheus wait 15 s, past its
    /// scrape timeout, and looked down), and the leases count as held until the expiry last read.
    @Test func aScrapeDoesNotWaitForAStateThatAnswersLate() async throws {
        let memory = MemoryStateStore()
        _ = try await memory.transaction { transaction in
            try await transaction.acquireLease(account: "kelp", holder: "me", now: Self.t0, ttl: 600)
        }
        let stalled = StalledStore(memory)
        let telemetry = RunTelemetry(version: "1", agents: ["kelp"])
        _ = await telemetry.exposition(store: stalled, holder: "me", now: Self.t0.addingTimeInterval(10))
        await stalled.gate.acquire()
        let failure = await telemetry.collectState(
            store: stalled, holder: "me", now: Self.t0.addingTimeInterval(20), wait: .milliseconds(200))
        #expect(failure.map { "\($0)" } == "the state did not answer within 0.2 s")
        #expect(Self.value(telemetry.export.exposition(), "moltipass_lease_held{agent=\"kelp\"}") == 1)
        let lapsed = await telemetry.collectState(
            store: stalled, holder: "me", now: Self.t0.addingTimeInterval(600), wait: .milliseconds(200))
        #expect(lapsed != nil)
        #expect(Self.value(telemetry.export.exposition(), "moltipass_lease_held{agent=\"kelp\"}") == 0)
        // The late reads end once the state answers again, and change nothing then.
        stalled.gate.release()
    }

    /// The bound follows the scraper's timeout: half a second inside it, at most 3 s, at least 0.2 s.
    @Test func theStateWaitFollowsTheScrapeTimeout() {
        #expect(RunTelemetry.stateReadWait(scrapeTimeout: nil) == .seconds(3))
        #expect(RunTelemetry.stateReadWait(scrapeTimeout: .seconds(10)) == .seconds(3))
        #expect(RunTelemetry.stateReadWait(scrapeTimeout: .milliseconds(1_500)) == .seconds(1))
        #expect(RunTelemetry.stateReadWait(scrapeTimeout: .milliseconds(500)) == .milliseconds(200))
    }

    /// A store whose reads wait while the test holds `gate`.
    final class StalledStore: StateStore {
        let inner: any StateStore
        let gate = AsyncGate()

        init(_ inner: any StateStore) { self.inner = inner }

        func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
            await gate.acquire()
            gate.release()
            return try await inner.read(body)
        }

        func transaction<T: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> T)
            async throws -> T
        {
            try await inner.transaction(body)
        }
    }

    /// Liveness: alive while a pass began or ended within the bound, then failing with the age.
    @Test func liveness() {
        let start = ContinuousClock.now
        let probes = RunnerProbes(maxTickAge: .seconds(900), started: start)
        #expect(probes.liveness(at: start + .seconds(899)) == .healthy)
        let stuck = probes.liveness(at: start + .seconds(901))
        #expect(stuck == .failing("the run loop has not started or ended a pass for 901 s (limit 900 s): it is stuck"))
        probes.beat(at: start + .seconds(600))
        #expect(probes.liveness(at: start + .seconds(1_400)) == .healthy)
    }

    /// Readiness: starting until the first pass ends (the start-up check does not count), then
    /// the store's and the keys' problems in one line, and shutting down once draining.
    @Test func readiness() {
        let probes = RunnerProbes()
        #expect(probes.readiness() == .failing("starting: the first pass has not ended yet"))
        probes.passed(storeProblem: nil, keyProblems: [], countsAsPass: false)
        #expect(!probes.readiness().ok)
        probes.passed(storeProblem: nil, keyProblems: [])
        #expect(probes.readiness() == .healthy)
        probes.passed(
            storeProblem: "the state store did not answer: database is locked",
            keyProblems: [
                HealthProblem(kind: "keychain", agent: "kelp", message: "cannot read the key: wrong passphrase")
            ])
        #expect(
            probes.readiness()
                == .failing(
                    "the state store did not answer: database is locked; kelp: cannot read the key: wrong passphrase"))
        probes.passed(storeProblem: nil, keyProblems: [])
        probes.drain()
        #expect(
            probes.readiness() == .failing("shutting down: the runner is finishing its pass and releasing its agents"))
    }

    /// The key problems after a pass, in `status --health`'s words: a refused key's pause (as
    /// `status --health` prints it), an unclaimed agent, a refusal without a pause, the daemon's
    /// keychain record; nothing for a manual pause or a healthy agent.
    @Test func keyProblems() async throws {
        let store = MemoryStateStore()
        let until = Self.t0.addingTimeInterval(3_600)
        try await store.transaction { transaction in
            try await transaction.setPause(
                AccountPause(
                    account: "kelp", kind: .keyRefused, until: until, reason: "the API key was rejected",
                    createdAt: Self.t0))
            try await transaction.setPause(
                AccountPause(account: "reef", kind: .manual, until: nil, reason: "by hand", createdAt: Self.t0))
        }
        var report = RunReport()
        report.authBroken = ["kelp": "the API key was rejected", "moss": "redirect refused: check the base_url"]
        report.paused = ["kelp": until, "reef": .distantFuture]
        report.pauseKinds = ["kelp": ["key_refused"], "reef": ["manual"]]
        report.unclaimed = ["tide"]
        let keychain = HealthProblem(kind: "keychain", agent: "wave", message: "cannot read the key: no entry")
        let recipe = HealthProblem(kind: "invalid_recipe", message: "x.yaml:1:1: bad")
        let (storeProblem, problems) = await RunnerProbes.check(
            report, health: [recipe, keychain], store: store, now: Self.t0)
        #expect(storeProblem == nil)
        #expect(
            problems.map(\.text) == [
                "wave: cannot read the key: no entry",
                "kelp: paused (key_refused until 2026-12-01T11:00:00Z): the API key was rejected",
                "moss: redirect refused: check the base_url",
                "tide: the server says the agent is not claimed: its human must claim it (moltipass claim tide)",
            ])
        #expect(
            problems[1]
                == HealthProblem.paused("kelp", kind: "key_refused", until: until, reason: "the API key was rejected"))
    }
}
