import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observations 1 and 2, through the real binary against a `moltbook-sandbox` process:
/// a post whose answer was lost is judged by evidence that covers the interval since it was sent.
/// Between the lost answer and the read-back, another agent posts more than a first page of the
/// feed (60 posts, the read-back's pages hold 50), and the server has no profiles (404), so the
/// first page alone would say nothing: before this issue it said "not applied" and posted again.
@Suite("moltipass run: read-back verdicts carry their evidence")
struct ReadBackEvidenceTests {
    static let others = 60

    /// A fixture whose agent `name` has one post in flight whose answer was lost (`fault`:
    /// `drop` applies it, `drop_before` does not), then 60 posts by another agent, no profiles.
    static func lostPost(_ name: String, fault: String, config: JSONValue = .object([:])) async throws
        -> (RunFixture, String)
    {
        let fixture = try await RunFixture.start()
        // No cooldowns, no new-agent profile: the other agent's 60 posts go in one go.
        var patch: [String: JSONValue] = [
            "new_agent_period_seconds": .number(0),
            "limits": .object([
                "post_cooldown_seconds": .null, "writes_per_window": .null, "requests_per_window": .null,
                "reads_per_window": .null,
            ]),
        ]
        for (field, value) in config.object ?? [:] { patch[field] = value }
        try await fixture.admin(.post, "config", .object(patch))
        // Registered two days before: the engine's established limits (1 post / 30 min).
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent(name)
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe(name)
        try await fixture.admin(
            .post, "faults",
            .array([
                .object([
                    "mode": .string(fault), "path_prefix": .string("/api/v1/posts"), "method": .string("POST"),
                    "count": .number(1),
                ]),
                .object([
                    "mode": .string("html_error"), "status": .number(404),
                    "path_prefix": .string("/api/v1/agents/profile"), "count": .number(100),
                ]),
            ]))
        let lost = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        #expect(lost.status == 9, "the answer was lost: uncertain. \(lost.stderr)")
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(60))
        let anonymous = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL, apiKey: nil, transport: fixture.transport, allowLoopback: true)
        let key = try await anonymous.register(name: "chatter_\(name.prefix(8))", description: "talks").value.apiKey
        try await claimOnSandbox(fixture.sandbox, "chatter_\(name.prefix(8))")
        for index in 0..<others {
            try await fixture.rawPost(
                key: key, submolt: "general", title: "Chatter \(index)", content: "Noise \(index).")
        }
        return (fixture, recipe)
    }

    /// The post was applied: the read-back pages past the 60 newer posts, finds it, and finishes
    /// it done with its id. Nothing is posted again.
    @Test
    func anAppliedPostBeyondTheFirstPageIsFound() async throws {
        let (fixture, recipe) = try await Self.lostPost("evid_found", fault: "drop")
        defer { Task { await fixture.stop() } }
        let next = try await fixture.run(
            [recipe, "--once", "--json"], at: RunFixture.t0.addingTimeInterval(120))
        #expect(next.status == 0, "\(next.stderr)")
        let report = try JSONValue.parse(Data(next.stdout.utf8))
        #expect(report["items"]?.array?.first?["reason"]?.string == "read back: it had been applied")
        #expect(try await fixture.counter("posts_created") == 1 + Self.others)
        #expect(try await fixture.titles(of: "evid_found") == ["Item 0"])
        #expect(try await fixture.journalCount("state = 'done' AND remote_id IS NOT NULL") == 1)
    }

    /// The post was not applied: the feed, read back past the send, proves it absent (the entry
    /// is no longer uncertain; it waits for the post cooldown that its lost send was charged),
    /// and it is sent once.
    @Test
    func aPostProvedAbsentIsSentOnce() async throws {
        let (fixture, recipe) = try await Self.lostPost("evid_absent", fault: "drop_before")
        defer { Task { await fixture.stop() } }
        #expect(try await fixture.counter("posts_created") == Self.others)
        let next = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(120))
        #expect(next.status == 4, "deferred by the cooldown: \(next.stderr)")
        #expect(try await fixture.journalCount("state = 'uncertain'") == 0)
        let later = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(1_860))
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try await fixture.titles(of: "evid_absent") == ["Item 0"])
        #expect(try await fixture.counter("posts_created") == 1 + Self.others)
    }

    /// A server that pages nothing: the first page (50 of the 60 newer posts) is all there is to
    /// see, which proves nothing. The post is not sent again; it waits as uncertain (exit 9 on
    /// every run, `pending` lists it with the read-back's time) until an operator settles it.
    /// `--not-sent`: the next run sends it once. (The lost post was not applied, so a re-send
    /// before the operator's word would be the bug's duplicate had it been.)
    @Test
    func unknownWaitsForAnOperator() async throws {
        let (fixture, recipe) = try await Self.lostPost(
            "evid_unknown", fault: "drop_before", config: .object(["ignore_paging": .bool(true)]))
        defer { Task { await fixture.stop() } }
        let t1 = RunFixture.t0.addingTimeInterval(120)
        let first = try await fixture.run([recipe, "--once", "--json"], at: t1)
        #expect(first.status == 9, "\(first.stderr)")
        let item = try JSONValue.parse(Data(first.stdout.utf8))["items"]?.array?.first
        let reason = item?["reason"]?.string ?? ""
        // Why, in the server's terms: it cannot be paged back (or, on a server whose posts carry no
        // time, that the pages read did not reach the end).
        #expect(reason.hasPrefix("outcome unknown: the feed "), "\(reason)")
        #expect(reason.contains("cannot be paged back") || reason.contains("gives no times"), "\(reason)")
        #expect(reason.contains("moltipass settle "), "\(reason)")
        #expect(item?["outcome"]?.string == "uncertain")
        #expect(try await fixture.counter("posts_created") == Self.others)

        // Before the read-back's time: not read, not sent, still uncertain; the metrics count it.
        let textfile = fixture.home.path + "/metrics.prom"
        let series = "moltipass_writes_unknown{agent=\"evid_unknown\"}"
        let waiting = try await fixture.run(
            [recipe, "--once", "--metrics-textfile", textfile], at: t1.addingTimeInterval(300))
        #expect(waiting.status == 9, "\(waiting.stderr)")
        #expect(MetricsTests.value(try String(contentsOfFile: textfile, encoding: .utf8), series) == 1)
        #expect(try await fixture.counter("posts_created") == Self.others)
        let pending = try await fixture.home.run(["pending", "--state", fixture.statePath, "--json"])
        let listed = try JSONValue.parse(Data(pending.stdout.utf8)).array ?? []
        #expect(listed.count == 1)
        #expect(listed.first?["state"]?.string == "uncertain")
        #expect(listed.first?["next_attempt"]?.string != nil)
        let key = try #require(listed.first?["key"]?.string)
        // status --health names it, with the command that settles it.
        let health = try await fixture.home.run([
            "status", recipe, "--health", "--state", fixture.statePath, "--now",
            RunFixture.iso(t1.addingTimeInterval(310)),
        ])
        #expect(health.status != 0, "\(health.stdout)")
        #expect((health.stdout + health.stderr).contains("moltipass settle \(key.prefix(12))"), "\(health.stdout)")

        // At the read-back's time (ten minutes on): read again, still unknown, still not sent.
        let reread = try await fixture.run([recipe, "--once"], at: t1.addingTimeInterval(660))
        #expect(reread.status == 9, "\(reread.stderr)")
        #expect(try await fixture.counter("posts_created") == Self.others)

        let settled = try await fixture.home.run([
            "settle", String(key.prefix(8)), "--not-sent", "--state", fixture.statePath, "--now",
            RunFixture.iso(t1.addingTimeInterval(700)),
        ])
        #expect(settled.status == 0, "\(settled.stderr)")
        #expect(settled.stdout.contains("as not sent"), "\(settled.stdout)")
        // Due again; the next run sends it once (at the next occurrence: the lost send was charged
        // its cooldown, and the 10:00 occurrence's write gives its item back to the 10:30 one).
        let sent = try await fixture.run(
            [recipe, "--once", "--metrics-textfile", textfile], at: RunFixture.t0.addingTimeInterval(1_860))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(MetricsTests.value(try String(contentsOfFile: textfile, encoding: .utf8), series) == 0)
        #expect(try await fixture.counter("posts_created") == 1 + Self.others)
        #expect(try await fixture.titles(of: "evid_unknown") == ["Item 0"])
    }

    /// `settle --sent`: the operator saw it on the server; it is finished done with the id given
    /// and never sent. A key that names nothing unsettled, and a waiting write, are refused (exit 1).
    @Test
    func settledAsSentIsNeverSent() async throws {
        let (fixture, recipe) = try await Self.lostPost(
            "evid_sent", fault: "drop_before", config: .object(["ignore_paging": .bool(true)]))
        defer { Task { await fixture.stop() } }
        let t1 = RunFixture.t0.addingTimeInterval(120)
        #expect(try await fixture.run([recipe, "--once"], at: t1).status == 9)
        let key = try await fixture.sqlite("SELECT key FROM journal WHERE state = 'uncertain';")
        let stamp = RunFixture.iso(t1.addingTimeInterval(60))
        let wrong = try await fixture.home.run([
            "settle", "ffffffffff", "--sent", "--state", fixture.statePath, "--now", stamp,
        ])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("no waiting write has this key"), "\(wrong.stderr)")
        let both = try await fixture.home.run([
            "settle", key, "--sent", "--not-sent", "--state", fixture.statePath, "--now", stamp,
        ])
        #expect(both.status == 64, "\(both.stderr)")
        let settled = try await fixture.home.run([
            "settle", key, "--sent", "--id", "by-hand-1", "--state", fixture.statePath, "--json", "--now", stamp,
        ])
        #expect(settled.status == 0, "\(settled.stderr)")
        #expect(try JSONValue.parse(Data(settled.stdout.utf8)).array?.first?["state"]?.string == "done")
        #expect(try await fixture.journalCount("state = 'done' AND remote_id = 'by-hand-1'") == 1)
        // The next occurrence posts the queue's next item; the settled one is not sent.
        let after = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(1_860))
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try await fixture.titles(of: "evid_sent") == ["Item 1"])
        #expect(try await fixture.journalCount("state = 'uncertain'") == 0)
    }
}

/// Issue 33, observation 2: a create answer that names the new object's id in another shape, or
/// only says `success: true`, is applied — not uncertain (exit 9) on every run that writes.
@Suite("moltipass run: created means created")
struct CreatedMeansCreatedTests {
    @Test(arguments: [("id_only", true), ("success_only", false)])
    func aBareCreateAnswerIsApplied(shape: String, namesTheID: Bool) async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.admin(.post, "config", .object(["create_answer": .string(shape)]))
        let name = "created_\(shape.prefix(4))"
        try await fixture.agent(name)
        try fixture.queue(count: 2)
        let recipe = try fixture.postingRecipe(name)
        let run = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        #expect(run.status == 0, "\(shape): \(run.stderr)")
        #expect(try await fixture.journalCount("state = 'done'") == 1)
        #expect(try await fixture.journalCount("state = 'uncertain'") == 0)
        let remote = try await fixture.sqlite("SELECT coalesce(remote_id, '') FROM journal WHERE state = 'done';")
        let anonymous = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL, apiKey: nil, transport: fixture.transport, allowLoopback: true)
        let reader = try await anonymous.register(name: "reader_\(shape.prefix(4))", description: "reads").value.apiKey
        let posted = try await anonymous.with(apiKey: reader).posts(sort: .new, limit: 10).value.items
            .filter { $0.author?.name == name }
        #expect(posted.count == 1)
        #expect(remote == (namesTheID ? posted.first?.id ?? "?" : ""))
    }
}
