import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Recipes
import Storage
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `PlanSimulation`: the engine on a virtual clock against the in-process sandbox.
@Suite("Plan: simulation")
struct PlanSimulationTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    static let postsAndVotes = """
        agent: planner
        time_zone: Europe/Berlin
        jobs:
          - id: posts
            schedule: { every: 10m }
            steps:
              - post:
                  submolt: general
                  title: "Note {{ date: HH:mm }}"
                  content: "Body"
          - id: upvotes
            schedule: { cron: "0 * * * *", randomized_delay: 5m }
            steps:
              - vote:
                  ensure: upvoted
                  on: { source: submolt, submolt: swift, sort: new, title_matches: "(?i)release", max_per_run: 2 }
        """

    static let comments = """
        agent: commenter
        jobs:
          - id: comments
            schedule: { every: 5m }
            steps:
              - comment:
                  on: { source: submolt, submolt: general, sort: new, max_per_run: 1 }
                  content: "Reply {{ date: HH:mm }} to {{ post.author }}"
        """

    func recipe(_ text: String, in directory: TemporaryDirectory, name: String = "r.yaml") throws -> Recipe {
        let path = directory.file(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        guard case .success(let recipe) = RecipeLoader.load(path: path) else { throw PlanTestError("bad recipe") }
        return recipe
    }

    func simulate(
        _ texts: [String], horizon: TimeInterval = 86_400, state: String? = nil,
        _ adjust: (inout PlanOptions) -> Void = { _ in }
    ) async throws -> PlanResult {
        let directory = try TemporaryDirectory(prefix: "moltipass-plan")
        defer { directory.remove() }
        let recipes = try texts.enumerated().map { try recipe($1, in: directory, name: "r\($0).yaml") }
        var options = PlanOptions(start: Self.t0, horizon: horizon)
        adjust(&options)
        return try await PlanSimulation(recipes: recipes, options: options, statePath: state).run()
    }

    func line(_ result: PlanResult, _ agent: String, _ limitClass: String) -> PlanResult.ClassSummary? {
        result.summary.first { $0.agent == agent && $0.limitClass == limitClass }
    }

    /// A post every 10 minutes meets the 30-minute cooldown: 48 posts a day, the rest deferred
    /// with the binding rule named; votes find generated posts in m/swift; no 429.
    @Test func cooldownBindsAndSelectorsFindTargets() async throws {
        let result = try await simulate([Self.postsAndVotes])
        #expect(line(result, "planner", "post")?.executed == 48)
        #expect((line(result, "planner", "post")?.deferred ?? 0) > 0)
        #expect((line(result, "planner", "vote")?.executed ?? 0) > 0)
        #expect(result.server.rateLimited == 0)
        let deferred = try #require(result.events.first { $0.outcome == .deferred && $0.action == "post" })
        #expect(deferred.reason?.contains("post.cooldown") == true)
        #expect(deferred.until != nil)
        #expect(result.events.contains { $0.title == "Note 01:00" && $0.outcome == .done })
    }

    /// The same seed gives byte-identical JSON; another seed gives another feed.
    @Test func sameSeedSameJSON() async throws {
        let first = try await simulate([Self.postsAndVotes, Self.comments]) { $0.seed = 42 }
        let second = try await simulate([Self.postsAndVotes, Self.comments]) { $0.seed = 42 }
        #expect(try first.json() == second.json())
        let other = try await simulate([Self.postsAndVotes, Self.comments]) { $0.seed = 43 }
        #expect(try first.json() != other.json())
    }

    /// The simulated server's answers handed over as JSON trees give the very plan that bytes
    /// parsed by the client give, in every scenario at once (challenges, faults, 429s, selectors).
    @Test func treesAndBytesGiveTheSamePlan() async throws {
        let scenario: (inout PlanOptions) -> Void = {
            $0.seed = 5
            $0.challengeRate = 0.3
            $0.faultRate = 0.1
            $0.serverProfile = .strict
        }
        let trees = try await simulate([Self.postsAndVotes, Self.comments], horizon: 12 * 3_600, scenario)
        let bytes = try await simulate([Self.postsAndVotes, Self.comments], horizon: 12 * 3_600) {
            scenario(&$0)
            $0.serializedBodies = true
        }
        #expect(trees.server.requests > 100)
        #expect(trees.server.challengesIssued > 0)
        #expect(trees.server.faultsInjected > 0)
        #expect(trees.server.rateLimited > 0)
        #expect(try trees.json() == bytes.json())
    }

    /// `--new-agent`: the first-24-hours limits (1 post / 2 h) hold for the agent's first day.
    @Test func newAgentIsSlower() async throws {
        let established = try await simulate([Self.postsAndVotes], horizon: 12 * 3_600)
        let young = try await simulate([Self.postsAndVotes], horizon: 12 * 3_600) { $0.newAgent = true }
        #expect(line(established, "planner", "post")?.executed == 24)
        #expect(line(young, "planner", "post")?.executed == 6)
        #expect(young.server.rateLimited == 0)
    }

    /// `--server-profile strict`: the server is stricter than the local profile; the plan meets
    /// its 429s (counted per class), learns, and posts less.
    @Test func strictServerProfile() async throws {
        let result = try await simulate([Self.postsAndVotes]) { $0.serverProfile = .strict }
        let post = try #require(line(result, "planner", "post"))
        #expect(post.rateLimited >= 1)
        #expect(post.executed <= 25)
        #expect(result.scenario.serverProfile == "strict")
        let loose = try await simulate([Self.postsAndVotes]) { $0.serverProfile = .loose }
        #expect(line(loose, "planner", "post")?.executed == 48)
    }

    /// `--server-profile FILE`: the sandbox's own limits JSON.
    @Test func serverProfileFromFile() throws {
        let directory = try TemporaryDirectory(prefix: "moltipass-plan")
        defer { directory.remove() }
        let path = directory.file("limits.json").path
        try #"{"limits": {"post_cooldown_seconds": 3600}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let profile = try PlanServerProfile.named(path)
        #expect(profile.limits.postCooldownSeconds == 3_600)
        #expect(throws: PlanError.self) { try PlanServerProfile.named(directory.file("missing.json").path) }
    }

    /// `--challenge-rate 1`: every post is challenged, the simulated solver answers, writes go on.
    @Test func challengeRate() async throws {
        let result = try await simulate([Self.postsAndVotes], horizon: 6 * 3_600) { $0.challengeRate = 1 }
        let post = try #require(line(result, "planner", "post"))
        #expect(post.challenges == 12)
        #expect(result.server.challengesIssued == 12)
        #expect(result.server.challengesVerified == 12)
        #expect(result.events.contains { $0.action == "verify" && $0.outcome == .done })
    }

    /// `--fault-rate`: faults are injected and the engine's reconciliation keeps it exactly-once
    /// (no more posts than the cooldown allows).
    @Test func faultRate() async throws {
        let result = try await simulate([Self.postsAndVotes, Self.comments], horizon: 6 * 3_600) {
            $0.faultRate = 0.2
        }
        #expect(result.server.faultsInjected > 0)
        #expect((line(result, "planner", "post")?.executed ?? 0) <= 12)
    }

    /// `--feed FILE`: selectors act on the fixture's posts only.
    @Test func feedFixture() async throws {
        let feed = PlanFeed(posts: [
            .init(
                author: "fixture_author", submolt: "general", title: "Fixture post", content: "Hello",
                at: Self.t0.addingTimeInterval(-600))
        ])
        let result = try await simulate([Self.comments], horizon: 3_600) { $0.feed = feed }
        let done = result.events.filter { $0.action == "comment" && $0.outcome == .done }
        #expect(done.count == 1)
        #expect(done.first?.excerpt?.contains("fixture_author") == true)
        #expect(result.scenario.feed == "fixture")
    }

    /// `--explain`: occurrence → deferred until t because the rule → done.
    @Test func explainChain() async throws {
        let result = try await simulate([Self.postsAndVotes], horizon: 3 * 3_600)
        let text = try #require(result.explain(job: "posts"))
        #expect(text.contains("/posts: occurrence 2026-03-02 01:10:00 +01:00 → post m/general \"Note 01:10\""))
        #expect(text.contains("deferred until 2026-03-02 01:30:00 +01:00 because post rule: post.cooldown"))
        #expect(text.contains("done"))
        #expect(result.explain(job: "nope") == nil)
    }

    /// The HTML page parses as XML and has the chart (a lane per agent and class, its legend),
    /// the problems, the per-day totals and the filterable table.
    @Test func htmlIsWellFormed() async throws {
        let result = try await simulate([Self.postsAndVotes, Self.comments], horizon: 2 * 86_400) {
            $0.challengeRate = 0.3
        }
        let html = result.html()
        let parser = XMLParser(data: Data(html.utf8))
        let ok = parser.parse()
        #expect(ok, "\(String(describing: parser.parserError)) line \(parser.lineNumber)")
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\""))
        #expect(html.contains(">planner</text><text class=\"label sub\" x=\"6\""))
        #expect(html.contains("<rect class=\"waiting\""))
        #expect(html.contains("<rect class=\"challenged\""))
        #expect(html.contains("polyline class=\"budget\""))
        #expect(html.contains("<h2>Problems</h2>") && html.contains("<h2>Per day</h2>"))
        #expect(html.contains("<table id=\"timeline\">"))
        #expect(html.contains("times in UTC (the recipes&#39; zones differ: Europe/Berlin, UTC; --tz chooses)"))
    }

    /// A real state file: the plan starts from its copy (cursor respected) and leaves it byte-identical.
    @Test func stateCopyLeavesFileIdentical() async throws {
        let directory = try TemporaryDirectory(prefix: "moltipass-plan-state")
        defer { directory.remove() }
        let path = directory.file("state.sqlite").path
        let store = try await SQLiteStateStore.open(path: path)
        try await store.transaction {
            try await $0.setScheduleCursor(recipe: "r0", job: "posts", lastFired: Self.t0, at: Self.t0)
        }
        try store.close()
        // SQLite's shared-memory index (-shm) is not state; the database, WAL and lock files are compared.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .filter { !$0.hasSuffix("-shm") }
        let before = try files.map { try Data(contentsOf: directory.file($0)) }
        let result = try await simulate([Self.postsAndVotes], horizon: 3_600, state: path)
        #expect(result.scenario.stateCopied)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().filter {
                !$0.hasSuffix("-shm")
            }
                == files)
        #expect(try files.map { try Data(contentsOf: directory.file($0)) } == before)
    }

    /// The simulation starts from what the state file says: a cursor at the start means the
    /// start's own occurrence already ran (a fresh state posts it, the copy does not), and a vote
    /// the file records is not sent again (the other targets still are: the simulated ids are the
    /// same in both runs, so the check is not vacuous).
    @Test func copiedStateIsRespected() async throws {
        let votes = """
            agent: planner
            jobs:
              - id: upvotes
                schedule: { cron: "0 * * * *" }
                steps:
                  - vote:
                      ensure: upvoted
                      on: { source: submolt, submolt: swift, sort: new, title_matches: "(?i)release", max_per_run: 2 }
            """
        let fresh = try await simulate([votes], horizon: 4 * 3_600)
        let voted = fresh.events.filter { $0.action == "upvote_post" && $0.outcome == .done }.compactMap(\.target)
        try #require(voted.count >= 2)
        let directory = try TemporaryDirectory(prefix: "moltipass-plan-state")
        defer { directory.remove() }
        let path = directory.file("state.sqlite").path
        let store = try await SQLiteStateStore.open(path: path)
        try await store.transaction { tx in
            try await tx.setScheduleCursor(recipe: "r0", job: "posts", lastFired: Self.t0, at: Self.t0)
            try await tx.recordDedup(
                DedupRecord(account: "planner", kind: .postVote, target: voted[0], value: "up", recordedAt: Self.t0))
        }
        try store.close()

        let firstPost = { (result: PlanResult) in
            result.events.first { $0.action == "post" && $0.outcome == .done }?.time
        }
        #expect(firstPost(try await simulate([Self.postsAndVotes], horizon: 3_600)) == Self.t0)
        let held = try await simulate([Self.postsAndVotes], horizon: 3_600, state: path)
        #expect(firstPost(held) == Self.t0.addingTimeInterval(600))

        let again = try await simulate([votes], horizon: 4 * 3_600, state: path)
        let votedAgain = Set(
            again.events.filter { $0.action == "upvote_post" && $0.outcome == .done }.compactMap(\.target))
        #expect(!votedAgain.contains(voted[0]))
        #expect(votedAgain.contains(voted[1]))
    }

    /// Two writes of one occurrence with the same summary (same title, same submolt, other content)
    /// are told apart by their journal keys: each event shows its own write's content.
    @Test func eventsFollowTheirJournalKey() async throws {
        let twins = """
            agent: twins
            jobs:
              - id: pair
                schedule: { at: 2026-03-02T00:10:00Z }
                steps:
                  - post: { submolt: general, title: "Same title", content: "first body" }
                  - post: { submolt: general, title: "Same title", content: "second body" }
            """
        let result = try await simulate([twins], horizon: 3 * 3_600)
        let posts = result.events.filter { $0.agent == "twins" && $0.action == "post" }
        let done = posts.filter { $0.outcome == .done }
        #expect(done.count == 2)
        #expect(Set(done.compactMap(\.key)).count == 2)
        #expect(done.map(\.excerpt) == ["first body", "second body"])
        // The second waits for the post cooldown: its deferrals show the second body, never the first.
        let deferred = posts.filter { $0.outcome == .deferred }
        #expect(!deferred.isEmpty)
        #expect(deferred.allSatisfy { $0.excerpt == "second body" && $0.key == done[1].key })
    }
}

struct PlanTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
