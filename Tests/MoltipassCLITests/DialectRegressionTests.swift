import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// The breakages seen against Moltbook-compatible servers nobody on this project wrote (the
/// open-source server, a community mock), each reproduced with the sandbox speaking that server's
/// dialect and driven through the real binary. Each test names the observation it pins down.
@Suite("Server dialects: regressions through the binary")
struct DialectRegressionTests {
    static let t0 = RunFixture.t0

    /// A fixture whose agent `name` is two days old on a sandbox of `dialect` (established limits).
    static func fixture(_ dialect: SandboxDialect, agent name: String) async throws -> RunFixture {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: dialect)
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent(name)
        return fixture
    }

    /// A recipe for `agent` with one job of `steps` (YAML list items, indented for `steps:`).
    static func recipe(_ fixture: RunFixture, _ agent: String, every: String = "30m", _ steps: String) throws
        -> String
    {
        try fixture.file(
            "\(agent).yaml",
            """
            agent: \(agent)
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: job
                schedule: { every: \(every) }
                steps:
            \(steps)
            """)
    }

    /// The `--json` report of a run.
    static func report(_ result: ProcessRunner.Result) throws -> JSONValue {
        try JSONValue.parse(Data(result.stdout.utf8))
    }

    /// The report items whose action starts with `prefix`.
    static func items(_ report: JSONValue, _ prefix: String) -> [JSONValue] {
        (report["items"]?.array ?? []).filter { ($0["action"]?.string ?? "").hasPrefix(prefix) }
    }

    /// Observation 1: the open-source server reads `submolt`, not `submolt_name`, and answered
    /// 500; the post was re-sent after every cooldown. Each queue item is posted once.
    @Test(.pinsItsDialect)
    func ossPostsEachQueueItemOnce() async throws {
        let fixture = try await Self.fixture(.oss, agent: "oss_poster")
        defer { Task { await fixture.stop() } }
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("oss_poster")
        for step in 0..<3 {
            // `--now` starts the run's clock, which then runs: a minute of margin past each half hour.
            let run = try await fixture.run(
                [recipe, "--once", "--json"], at: Self.t0.addingTimeInterval(Double(step) * RunFixture.nextHalfHour))
            #expect(run.status == 0, "run \(step): \(run.stdout)")
        }
        #expect(try await fixture.counter("posts_created") == 3)
        #expect(try await fixture.titles(of: "oss_poster") == ["Item 0", "Item 1", "Item 2"])
    }

    /// Observation 2: the open-source server's `X-RateLimit-*` headers on `POST /posts` describe
    /// the post limiter (0 left for 30 minutes); they froze follows and votes. A follow due with a
    /// post goes through in the same run.
    @Test(.pinsItsDialect)
    func ossPostHeadersDoNotHoldOtherWrites() async throws {
        let fixture = try await Self.fixture(.oss, agent: "oss_mixer")
        defer { Task { await fixture.stop() } }
        _ = try await fixture.hostPost()
        try fixture.queue(count: 2)
        let recipe = try Self.recipe(
            fixture, "oss_mixer",
            """
                  - post: { submolt: general, queue: queue.yaml }
                  - follow: [crash_host]
                  - subscribe: [agents]
            """)
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.report(run)
        let deferred = (report["items"]?.array ?? []).filter { $0["outcome"]?.string == "deferred" }
        #expect(deferred.isEmpty, "\(deferred)")
        #expect(Self.items(report, "follow").first?["outcome"]?.string == "done")
        #expect(Self.items(report, "subscribe").first?["outcome"]?.string == "done")
    }

    /// Observation 3: a vote already on the server (made by hand, or the state file lost) was
    /// sent again, the server toggled it off, and the report said done. The server's vote field is
    /// read first: nothing is sent, nothing removed.
    @Test(arguments: [SandboxDialect.moltbookCom, .oss])
    func voteAlreadyOnTheServerIsNotSentAgain(dialect: SandboxDialect) async throws {
        let fixture = try await Self.fixture(dialect, agent: "hand_voter")
        defer { Task { await fixture.stop() } }
        let target = try await fixture.hostPost()
        try await fixture.byHand("hand_voter") { client in _ = try await client.upvotePost(id: target) }
        let recipe = try Self.recipe(
            fixture, "hand_voter", "      - vote: { ensure: upvoted, post: \(target) }")
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await fixture.counter("votes_removed") == 0)
        #expect(try await fixture.counter("votes_cast") == 1)
        let vote = Self.items(try Self.report(run), "upvote").first
        #expect(vote?["outcome"]?.string == "done")
        #expect(vote?["reason"]?.string?.contains("already on the server") == true)
    }

    /// Observation 3, on a server that shows no vote state: the vote the server took back is
    /// reported and restored once, so the agent's vote stands.
    @Test(.pinsItsDialect)
    func removedVoteIsRestoredAndSaid() async throws {
        let fixture = try await Self.fixture(.minimalMock, agent: "mock_voter")
        defer { Task { await fixture.stop() } }
        let target = try await fixture.hostPost()
        try await fixture.byHand("mock_voter") { client in _ = try await client.upvotePost(id: target) }
        let recipe = try Self.recipe(fixture, "mock_voter", "      - vote: { ensure: upvoted, post: \(target) }")
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        let vote = Self.items(try Self.report(run), "upvote").first
        #expect(vote?["outcome"]?.string == "done", "\(run.stdout)")
        #expect(vote?["reason"]?.string?.contains("took it off") == true)
        // By hand +1, the runner's send removed it, the restore cast it again.
        #expect(try await fixture.counter("votes_cast") == 2)
        #expect(try await fixture.counter("votes_removed") == 1)
    }

    /// Observation 3: a comment already on the server (the state file lost) was posted again.
    /// One read of the post's comments finds the agent's own there (a selector's target takes one
    /// comment of the agent, whatever its text): nothing is sent.
    @Test(.pinsItsDialect, arguments: SandboxDialect.allCases)
    func commentAlreadyOnTheServerIsNotPostedAgain(dialect: SandboxDialect) async throws {
        let fixture = try await Self.fixture(dialect, agent: "hand_commenter")
        defer { Task { await fixture.stop() } }
        let target = try await fixture.hostPost()
        try await fixture.byHand("hand_commenter") { client in
            _ = try await client.createComment(postID: target, content: "Said by hand.")
        }
        let recipe = try Self.recipe(
            fixture, "hand_commenter",
            "      - comment: { on: { source: submolt, submolt: general, sort: new }, content: \"On {{ post.title }}\" }"
        )
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await fixture.counter("comments_created") == 1)
        let comment = Self.items(try Self.report(run), "comment").first
        #expect(comment?["reason"]?.string?.contains("already on the server") == true, "\(run.stdout)")
    }

    /// Observation 4: a refused follow (404) ended with exit 3, "nothing due".
    @Test
    func refusedWriteExitsWithItsOwnCode() async throws {
        let fixture = try await Self.fixture(TestDialect.current, agent: "lonely_follower")
        defer { Task { await fixture.stop() } }
        let recipe = try Self.recipe(fixture, "lonely_follower", "      - follow: [nobody_by_this_name]")
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(run.status == 8, "\(run.stderr)")
        #expect(run.stderr.contains("1 failed"))
    }

    /// A write whose answer was a 5xx is uncertain, not done: exit 9.
    @Test
    func uncertainWriteExitsWithItsOwnCode() async throws {
        let fixture = try await Self.fixture(TestDialect.current, agent: "unlucky_poster")
        defer { Task { await fixture.stop() } }
        try fixture.queue(count: 2)
        let recipe = try fixture.postingRecipe("unlucky_poster")
        try await fixture.admin(
            .post, "faults",
            .object(["mode": "malformed_json", "method": "POST", "path_prefix": "/api/v1/posts", "count": 1]))
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(run.status == 9, "\(run.stderr)")
        #expect(run.stderr.contains("1 uncertain"))
        // The next run reads back, finds the post, and does not post it again.
        let next = try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(60))
        #expect(next.status != 9, "\(next.stderr)")
        #expect(try await fixture.counter("posts_created") == 1)
    }

    /// Observation 5: a key the server refuses was read, written with and read again on every run,
    /// `status --health` said healthy and nothing was kept. Now: exit 77, a stored pause that
    /// `status` shows and health fails on, and the next run sends nothing.
    @Test(.pinsItsDialect, arguments: SandboxDialect.allCases)
    func refusedKeyIsAStoredPause(dialect: SandboxDialect) async throws {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: dialect)
        defer { Task { await fixture.stop() } }
        let added = try await fixture.home.run(
            ["keys", "add", "wrong_key"],
            stdin: "moltbook_sk_" + String(repeating: "x", count: 32))
        #expect(added.status == 0, "\(added.stderr)")
        try fixture.queue(count: 1)
        let recipe = try fixture.postingRecipe("wrong_key")
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(run.status == 77, "\(run.stderr)")
        let before = try await fixture.counter("requests_total")
        let again = try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(60))
        #expect(again.status == 77, "\(again.stderr)")
        #expect(try await fixture.counter("requests_total") == before)
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(Self.t0.addingTimeInterval(60)),
        ])
        #expect(status.stdout.contains("PAUSED key_refused"), "\(status.stdout)")
        let health = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--now", RunFixture.iso(Self.t0),
        ])
        #expect(health.status == 1)
        #expect(health.stderr.contains("key_refused"), "\(health.stderr)")
    }

    /// Observation 6: a challenge in the community mock's shape (HTTP 200, `success: false`,
    /// `verification {code, challenge}`) was read as a refusal and its queue item consumed. It is
    /// answered at the mock's route and the post is published once.
    @Test(.pinsItsDialect)
    func mockChallengeIsAnsweredNotRefused() async throws {
        let fixture = try await Self.fixture(.minimalMock, agent: "mock_poster")
        defer { Task { await fixture.stop() } }
        try await fixture.admin(.post, "config", .object(["challenge_rate": 1, "challenge_obfuscation": 0]))
        try fixture.queue(count: 2)
        let recipe = try fixture.postingRecipe("mock_poster")
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("refused"))
        #expect(try await fixture.counter("challenges_verified") == 1)
        #expect(try await fixture.counter("posts_created") == 1)
        #expect(try await fixture.sqlite("SELECT next_index FROM queue_positions;") == "1")
    }

    /// Observation 7: a suspension sent as 401 `{"detail": {"error": "Account suspended", …}}` was
    /// reported as an invalid key. It is a stored suspension pause (exit 6), not advice to rotate.
    @Test(.pinsItsDialect)
    func mockSuspensionIsASuspension() async throws {
        let fixture = try await Self.fixture(.minimalMock, agent: "mock_suspended")
        defer { Task { await fixture.stop() } }
        try await fixture.admin(.post, "agents/mock_suspended/suspend", .object(["seconds": 604_800]))
        try fixture.queue(count: 1)
        let recipe = try fixture.postingRecipe("mock_suspended")
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(run.status == 6, "\(run.stderr)")
        #expect(!run.stderr.contains("rotate"), "\(run.stderr)")
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(Self.t0),
        ])
        #expect(status.stdout.contains("PAUSED suspended"), "\(status.stdout)")
    }

    /// Issue 33, observation 11: a suspension exits 6 (paused), as the README's table says, in
    /// every dialect and whether the server says so on the first read (a new state file reads
    /// `/agents/me` first) or on the write; it exited 77 (a refused key) after the read.
    @Test(.pinsItsDialect, arguments: SandboxDialect.allCases)
    func aSuspensionExitsPaused(dialect: SandboxDialect) async throws {
        let name = "susp_\(dialect.rawValue.prefix(3))"
        let fixture = try await Self.fixture(dialect, agent: name)
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(Self.t0)
        try await fixture.admin(.post, "agents/\(name)/suspend", .object(["seconds": 604_800]))
        try await fixture.admin(.post, "config", .object(["suspension_blocks_reads": .bool(true)]))
        try fixture.queue(count: 1)
        let recipe = try fixture.postingRecipe(name)
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 6, "\(dialect): \(run.stderr)")
        #expect(try JSONValue.parse(Data(run.stdout.utf8))["outcome"]?.string == "paused")
        let again = try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(3_600))
        #expect(again.status == 6, "\(dialect): \(again.stderr)")
        #expect(try await fixture.counter("posts_created") == 0)
    }

    /// Observation 8: `not_mine` compared authors with the keychain entry's name; an entry named
    /// differently from the agent commented on its own post.
    @Test(.pinsItsDialect, arguments: SandboxDialect.allCases)
    func notMineUsesTheServerName(dialect: SandboxDialect) async throws {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: dialect)
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(Self.t0.addingTimeInterval(-2 * 86_400))
        let key = try await registerOnSandbox(fixture.sandbox, "server_name")
        try await claimOnSandbox(fixture.sandbox, "server_name")
        let added = try await fixture.home.run(["keys", "add", "local-label"], stdin: key)
        #expect(added.status == 0, "\(added.stderr)")
        try await fixture.postByHand("local-label", title: "My own post", content: "mine")
        let recipe = try Self.recipe(
            fixture, "local-label",
            "      - comment: { on: { source: submolt, submolt: general, sort: new, not_mine: true }, content: Hi }")
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(try await fixture.counter("comments_created") == 0, "\(run.stderr)")
    }

    /// Observation 9 and 10: search results lost their submolt and score, and a server's `score`
    /// (no up/down counts) was ignored: a comment rendered "by  in m/" and `min_score: 1` found
    /// nothing. On the open-source server both are read.
    @Test(.pinsItsDialect)
    func ossSearchAndScoreAreRead() async throws {
        let fixture = try await Self.fixture(.oss, agent: "oss_reader")
        defer { Task { await fixture.stop() } }
        let target = try await fixture.hostPost()
        try await fixture.byHand("oss_reader") { client in _ = try await client.upvotePost(id: target) }
        let recipe = try Self.recipe(
            fixture, "oss_reader",
            """
                  - comment:
                      on: { source: search, query: Talk, min_score: 1, not_mine: true }
                      content: "Read {{ post.title }} by {{ post.author }} in m/{{ post.submolt }}"
            """)
        let run = try await fixture.run([recipe, "--once"], at: Self.t0)
        #expect(run.status == 0, "\(run.stderr)")
        let comments = try await fixture.byHand("oss_reader") { client in
            try await client.comments(postID: target).value.items.map(\.content)
        }
        #expect(comments == ["Read Talk to me by crash_host in m/general"])
    }

    /// Observation 11: a failed read in one step dropped the earlier, unrelated steps of the same
    /// occurrence. On a server without search, the post goes out and the search step is reported.
    @Test(.pinsItsDialect)
    func failedSelectionKeepsTheOtherSteps() async throws {
        let fixture = try await Self.fixture(.minimalMock, agent: "mock_searcher")
        defer { Task { await fixture.stop() } }
        try fixture.queue(count: 2)
        let recipe = try Self.recipe(
            fixture, "mock_searcher",
            """
                  - post: { submolt: general, queue: queue.yaml }
                  - vote: { ensure: upvoted, on: { source: search, query: lobster } }
            """)
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 8, "\(run.stderr)")
        #expect(try await fixture.counter("posts_created") == 1)
        let selection = Self.items(try Self.report(run), "select targets").first
        #expect(selection?["outcome"]?.string == "failed")
    }

    /// Observation 11: a 429 on `GET /agents/me` did not stop the read that followed. The read
    /// class is held for the server's wait: the selection waits, and nothing else is read.
    @Test
    func rateLimitedIdentityReadHoldsTheNextRead() async throws {
        let fixture = try await Self.fixture(TestDialect.current, agent: "held_reader")
        defer { Task { await fixture.stop() } }
        let recipe = try Self.recipe(
            fixture, "held_reader",
            "      - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new } }")
        try await fixture.admin(
            .post, "faults",
            .object([
                "mode": "rate_limited", "method": "GET", "path_prefix": "/api/v1/agents/me", "count": 1,
                "delay_seconds": 60,
            ]))
        let before = try await fixture.counter("reads")
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 4, "\(run.stderr)")
        #expect(try await fixture.counter("reads") == before + 1)
        let selection = Self.items(try Self.report(run), "select targets").first
        #expect(selection?["outcome"]?.string == "deferred")
    }

    /// Observation 1's loop: a post the server keeps answering with 500, and that reading back
    /// never finds, was sent after every cooldown for ever, each try burning the post slot. It
    /// is sent at most five times, each run saying uncertain (9), then reported failed (8); the
    /// next queue item goes out after it.
    @Test
    func postThatKeepsFailingIsGivenUp() async throws {
        let fixture = try await Self.fixture(TestDialect.current, agent: "stubborn_poster")
        defer { Task { await fixture.stop() } }
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("stubborn_poster")
        try await fixture.admin(
            .post, "faults", .object(["mode": "http500", "method": "POST", "path_prefix": "/api/v1/posts", "count": 5]))
        var statuses: [Int32] = []
        for step in 0..<7 {
            let run = try await fixture.run(
                [recipe, "--once"], at: Self.t0.addingTimeInterval(Double(step) * RunFixture.nextHalfHour))
            statuses.append(run.status)
        }
        #expect(statuses == [9, 9, 9, 9, 9, 8, 0])
        #expect(try await fixture.counter("faults_injected") == 5)
        #expect(try await fixture.titles(of: "stubborn_poster") == ["Item 1"])
    }

    /// Observation 12: posts without `created_at` vanished under `max_age`; a selector that finds
    /// nothing left no report item.
    @Test(.pinsItsDialect)
    func maxAgeKeepsUndatedPostsAndEmptySelectionsAreSaid() async throws {
        let fixture = try await Self.fixture(.minimalMock, agent: "mock_greeter")
        defer { Task { await fixture.stop() } }
        _ = try await fixture.hostPost()
        let recipe = try Self.recipe(
            fixture, "mock_greeter",
            """
                  - comment: { on: { source: submolt, submolt: general, sort: new, max_age: 1h }, content: Hello }
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, title_matches: "^nothing$" } }
            """)
        let run = try await fixture.run([recipe, "--once", "--json"], at: Self.t0)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await fixture.counter("comments_created") == 1)
        let empty = Self.items(try Self.report(run), "vote").first
        #expect(empty?["outcome"]?.string == "skipped")
        #expect(empty?["reason"]?.string?.contains("found no post") == true)
    }
}

extension RunFixture {
    /// Runs `body` with a client holding the key of keychain entry `entry` (read through the
    /// binary's `keys export --reveal`, never printed): what an operator does by hand.
    @discardableResult
    func byHand<T>(_ entry: String, _ body: (MoltbookClient) async throws -> T) async throws -> T {
        let exported = try await home.run(["keys", "export", entry, "--reveal"], recorded: false)
        #expect(exported.status == 0, "keys export: \(exported.stderr)")
        let key = APIKey(exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let client = try MoltbookClient(
            baseURL: sandbox.baseURL, apiKey: key, transport: transport, allowLoopback: true)
        return try await body(client)
    }
}
