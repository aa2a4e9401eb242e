import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 33, deliverable 7: the same half day of an agent (a queue of posts, a comment and votes
/// picked by selectors in m/general, a lost answer to one post) against many seeded variants of
/// the server (`moltbook-sandbox --variant SEED`: dialect, create answers, paging, filters,
/// rate-limit headers, challenges drawn at random), each judged from the sandbox's own record.
///
/// `MOLTIPASS_VARIANT_SEEDS` sets the seeds: a count (`20`, the default: seeds 1…20) or a range
/// (`100-199`). The last line of the test says how many seeds × invariants held.
@Suite("Seeded server variants")
struct VariantScenarioTests {
    static var seeds: [UInt64] {
        let given = ProcessInfo.processInfo.environment["MOLTIPASS_VARIANT_SEEDS"] ?? "20"
        let bounds = given.split(separator: "-").compactMap { UInt64($0) }
        if bounds.count == 2, bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
        return Array(1...max(1, bounds.first ?? 20))
    }

    static let invariants = [
        "no duplicate content", "the queue in order, none lost", "no vote taken back",
        "selections hold (comments in m/general only)", "every exit code and done item true",
    ]

    /// The exit code `--detailed-exitcode` gives each outcome (README, "Exit codes").
    static let exitCodes: [String: Int32] = [
        "done": 0, "nothing_due": 3, "deferred": 4, "locked": 5, "paused": 6, "queue_empty": 7, "write_failed": 8,
        "uncertain": 9, "transient": 75, "auth_broken": 77, "keychain": 12, "generator_failed": 17,
    ]

    @Test(.pinsItsDialect) func everyVariantKeepsTheInvariants() async throws {
        let seeds = Self.seeds
        var broken: [String] = []
        try await withThrowingTaskGroup(of: [String].self) { group in
            var next = seeds.makeIterator()
            for _ in 0..<3 {
                if let seed = next.next() { group.addTask { try await Self.scenario(seed) } }
            }
            while let violations = try await group.next() {
                broken += violations
                if let seed = next.next() { group.addTask { try await Self.scenario(seed) } }
            }
        }
        for violation in broken { Issue.record(Testing.Comment(rawValue: violation)) }
        print(
            "variants: \(seeds.count) seeds × \(Self.invariants.count) invariants: "
                + (broken.isEmpty ? "all held" : "\(broken.count) broken"))
    }

    /// One variant's half day; the invariants it broke, each naming the variant.
    static func scenario(_ seed: UInt64) async throws -> [String] {
        let variant = SandboxVariant(seed: seed)
        let fixture = try await RunFixture.start(sandboxArguments: ["--variant", String(seed)])
        defer { Task { await fixture.stop() } }
        try await fixture.admin(
            .post, "config",
            .object(["new_agent_period_seconds": .number(0), "limits": .object(["post_cooldown_seconds": .null])]))
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("variant_agent")
        try await fixture.keychainAgent("variant_other")
        try fixture.queue(count: 12)
        let recipe = try fixture.file(
            "variant.yaml",
            """
            agent: variant_agent
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: posts
                schedule: { every: 2h, start: 2026-12-01T10:00:00Z, missed: { run_once_within: 3h } }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
              - id: engage
                schedule: { every: 2h, start: 2026-12-01T10:00:00Z, missed: { run_once_within: 3h } }
                steps:
                  - comment: { on: { source: submolt, submolt: general, sort: new, not_mine: true }, content: "On {{ post.title }}: noted." }
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new, not_mine: true, max_per_run: 2 } }
            """)
        var violations: [String] = []
        func check(_ holds: Bool, _ invariant: Int, _ detail: @autoclosure () -> String) {
            if !holds { violations.append("\(variant): \(invariants[invariant]): \(detail())") }
        }
        var inGeneral: Set<String> = []
        for run in 0..<6 {
            let at = t0.addingTimeInterval(Double(run) * 7_200 + 60)
            try await fixture.setClock(at.addingTimeInterval(-50))
            // The other agent's posts are the scene, not under test: never challenged.
            try await fixture.admin(.post, "config", .object(["challenge_rate": .number(0)]))
            inGeneral.insert(
                try await fixture.postByHand("variant_other", title: "General \(run)", content: "Here \(run)."))
            try await fixture.setClock(at.addingTimeInterval(-40))
            _ = try await fixture.postByHand(
                "variant_other", submolt: "introductions", title: "Elsewhere \(run)", content: "There \(run).")
            try await fixture.admin(.post, "config", .object(["challenge_rate": .number(variant.challengeRate)]))
            if run == 2 {
                // The answer to this run's post is lost after the server made it.
                try await fixture.admin(
                    .post, "faults",
                    .object([
                        "mode": .string("drop"), "path_prefix": .string("/api/v1/posts"), "method": .string("POST"),
                        "count": .number(1),
                    ]))
            }
            let result = try await fixture.run([recipe, "--once", "--json"], at: at)
            let outcome = (try? JSONValue.parse(Data(result.stdout.utf8)))?["outcome"]?.string ?? "?"
            check(
                Self.exitCodes[outcome] == result.status, 4,
                "run \(run) exited \(result.status) for outcome \(outcome): \(result.stderr.suffix(400))")
            try await fixture.admin(.delete, "faults")
        }
        let counters = try await fixture.counters()
        let titles = try await fixture.titles(of: "variant_agent")
        check(counters["duplicate_contents"]?.int == 0 && Set(titles).count == titles.count, 0, "\(titles)")
        check(titles == (0..<titles.count).map { "Item \($0)" } && titles.count >= 4, 1, "\(titles)")
        check((counters["votes_removed"]?.int ?? 0) == 0, 2, "\(counters)")
        let comments = try await fixture.admin(.get, "comments?author=variant_agent")["comments"]?.array ?? []
        let targets = comments.compactMap { $0["post_id"]?.string }
        check(targets.allSatisfy(inGeneral.contains) && !targets.isEmpty, 3, "commented on \(targets)")
        let donePosts = try await fixture.journalCount("action = 'post' AND state = 'done'")
        check(donePosts == titles.count, 4, "\(donePosts) posts journaled done, \(titles.count) on the server")
        return violations
    }
}
