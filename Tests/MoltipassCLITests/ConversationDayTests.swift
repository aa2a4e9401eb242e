import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 22's acceptance, through the real binaries: a `moltipass` daemon and a
/// `moltbook-sandbox` process with simulated agents, both on clocks scaled ×720 (a simulated day
/// in two minutes), killed with SIGKILL at random points and started again. Two agents run
/// Moltipass: reef posts and answers; kelp comments on reef's posts and answers too, so the two
/// could talk for ever if the loop guard did not hold. Everything is checked from the sandbox's
/// own record (`/_sandbox/comments`, `/notifications`, `/dm/conversations`, `/counters`).
///
/// Pinned to the moltbook.com dialect: the others have no /home, notifications or DMs.
@Suite("Conversations: a simulated day", .serialized)
struct ConversationDayTests {
    /// 2026-01-01T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let scale = 720.0

    struct Day {
        let fixture: RunFixture
        let recipes: [String]
        var run: KilledDay
    }

    static func setUp() async throws -> Day {
        let configDirectory = try TemporaryDirectory(prefix: "conversation-day")
        defer { configDirectory.remove() }
        let config = configDirectory.file("sandbox.json").path
        try Data(
            #"{"simulation": {"agents": 4, "dm_requests_per_day": 0, "mention_posts_per_day": 2}}"#
                .utf8
        ).write(to: URL(fileURLWithPath: config))
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--now", RunFixture.iso(start), "--time-scale", String(Int(scale)), "--config", config],
            dialect: .moltbookCom)
        // Registered at the start and made two days old (established limits, DMs open): the
        // simulated agents' day starts with the daemon's.
        try await fixture.setClock(start)
        for agent in ["reef", "kelp"] {
            try await fixture.agent(agent)
            try await fixture.admin(.post, "agents/\(agent)/age", .object(["age_seconds": .number(2 * 86_400)]))
        }
        try await Self.directMessages(fixture)
        let reef = try fixture.file(
            "reef.yaml",
            """
            agent: reef
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 3h }
                steps:
                  - post:
                      submolt: general
                      title: "Reef note {{ date: dd HH }}"
                      content: "What the tide did on {{ date }} at {{ date: HH:mm }}."
              - id: heartbeat
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      to: [replies, mentions]
                      content: "Thanks {{ trigger.author }}, noted ({{ trigger.id }})."
                      max_per_run: 10
                  - dm:
                      content: "Hello {{ trigger.author }}, reef here ({{ trigger.id }})."
              - id: thanks-mentions
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      to: mentions
                      authors: [nobody-in-particular]
                      content: "Never sent ({{ trigger.id }})."
            """)
        let kelp = try fixture.file(
            "kelp.yaml",
            """
            agent: kelp
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: chime-in
                schedule: { every: 4h, start: 2026-01-01T00:20:00Z }
                steps:
                  - comment:
                      on: { source: global, sort: new, limit: 20, authors: [reef], max_per_run: 1 }
                      content: "kelp here, on {{ post.title }}: the harbour table agrees."
              - id: heartbeat
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      content: "kelp says {{ trigger.id }} is a fair point."
                      max_depth: 6
                      per_thread: 3
            """)
        return Day(
            fixture: fixture, recipes: [reef, kelp],
            run: KilledDay(fixture: fixture, recipes: [reef, kelp], scale: scale))
    }

    /// The DMs of the day, made by the test rather than the simulation (whose requests and
    /// approvals are random): reef_friend asks, the human approves, and it writes; a stranger's
    /// request stays pending (reef's recipe approves no one).
    static func directMessages(_ fixture: RunFixture) async throws {
        var clients: [String: MoltbookClient] = [:]
        for name in ["reef_friend", "stranger"] {
            let key = APIKey(try await registerOnSandbox(fixture.sandbox, name))
            try await claimOnSandbox(fixture.sandbox, name)
            try await fixture.admin(.post, "agents/\(name)/age", .object(["age_seconds": .number(2 * 86_400)]))
            clients[name] = try MoltbookClient(
                baseURL: fixture.sandbox.baseURL, apiKey: key, transport: fixture.transport, allowLoopback: true)
        }
        let friend = try #require(clients["reef_friend"])
        let asked = try await friend.requestDM(to: "reef", message: "Hello reef, may we talk about tide tables?")
        let conversation = try #require(asked.value.conversationID)
        try await fixture.admin(.post, "dm/requests/\(conversation)/approve")
        // The DM cooldown (10 s) counts the request: 100 ms of wall time is 72 simulated seconds.
        try await Task.sleep(for: .milliseconds(100))
        _ = try await friend.sendDM(conversationID: conversation, message: "Which tide table do you trust?")
        _ = try await clients["stranger"]?.requestDM(to: "reef", message: "Hi reef, I sell shells. Interested?")
    }

    @Test(.pinsItsDialect) func aDayWithKillsAnswersEachReplyOnce() async throws {
        var day = try await Self.setUp()
        defer { Task { [fixture = day.fixture] in await fixture.stop() } }
        let end = try await day.run.live(label: "ConversationDayTests", from: Self.start)

        let comments = (try await day.fixture.admin(.get, "comments")["comments"]?.array ?? []).compactMap(
            SandboxComment.init)
        try await Self.checkReplies(day, comments, end: end)
        Self.checkNoPingPong(comments)
        try await Self.checkReadMarks(day, comments)
        try await Self.checkHomeReads(day)
        try await Self.checkDirectMessages(day, end: end)
    }

    /// Each comment on reef's posts and each reply to its comments: answered at most once, never
    /// by reef to itself, and (unless the loop guard or the day's end passed it over) answered
    /// within the heartbeat, with room for a restart and a loaded machine (a wall second is 12
    /// simulated minutes).
    static func checkReplies(_ day: Day, _ comments: [SandboxComment], end: Date) async throws {
        let byID = SandboxComment.byID(comments)
        let mine = comments.filter { $0.author == "reef" }
        let posts = try await postIDs(of: "reef", day.fixture)
        let triggers = SandboxComment.triggers(for: "reef", posts: posts, in: comments)
        #expect(triggers.count >= 10, "too little to answer: \(triggers.count) triggers on \(posts.count) posts")
        var answered = 0
        for trigger in triggers {
            let answers = mine.filter { $0.parent == trigger.id }
            #expect(answers.count <= 1, "\(trigger.id) by \(trigger.author) answered \(answers.count) times")
            guard let answer = answers.first else {
                let depth = trigger.ancestors(in: byID).count
                let spoke = trigger.ancestors(in: byID).filter { $0.author == "reef" }.count
                #expect(
                    depth >= 4 || spoke >= 2 || trigger.at > end.addingTimeInterval(-90 * 60),
                    "\(trigger.id) by \(trigger.author) at depth \(depth) was never answered")
                continue
            }
            answered += 1
            #expect(answer.at.timeIntervalSince(trigger.at) <= 90 * 60, "\(trigger.id) answered late: \(answer.at)")
        }
        #expect(answered >= 8, "\(answered) of \(triggers.count) answered")
        for answer in mine where answer.parent != nil {
            #expect(byID[answer.parent!]?.author != "reef", "reef answered itself: \(answer.id)")
        }
        // Within the comment limits: never two of reef's comments within 20 s.
        let times = mine.map(\.at).sorted()
        for (a, b) in zip(times, times.dropFirst()) {
            #expect(b.timeIntervalSince(a) >= 20, "two comments \(b.timeIntervalSince(a)) s apart")
        }
    }

    /// reef and kelp both answer: no branch between them goes deeper than their guards allow.
    static func checkNoPingPong(_ comments: [SandboxComment]) {
        let byID = SandboxComment.byID(comments)
        for comment in comments where ["reef", "kelp"].contains(comment.author) {
            let chain = comment.ancestors(in: byID)
            let ownAbove = chain.filter { $0.author == comment.author }.count
            // reef: per_thread 2 (the default); kelp: 3.
            let cap = comment.author == "reef" ? 2 : 3
            #expect(ownAbove <= cap, "\(comment.author) spoke \(ownAbove + 1) times in one branch")
        }
        #expect(comments.contains { $0.author == "kelp" && $0.parent == nil }, "kelp never commented on reef's posts")
    }

    /// A notification marked read whose comment reef answered was marked after the answer.
    static func checkReadMarks(_ day: Day, _ comments: [SandboxComment]) async throws {
        let notes = try await day.fixture.admin(.get, "notifications?agent=reef")["notifications"]?.array ?? []
        var marked = 0
        for note in notes {
            guard let readAt = note["read_at"]?.string.flatMap(SandboxTime.parse), let id = note["comment_id"]?.string
            else { continue }
            marked += 1
            if let answer = comments.first(where: { $0.author == "reef" && $0.parent == id }) {
                #expect(answer.at <= readAt, "the notification of \(id) was read before its answer")
            }
        }
        #expect(marked >= 5, "reef marked \(marked) notifications read")
    }

    /// One `/home` request per agent per pass: reef's two answering jobs beat together and share
    /// it, so a day has at most one read per beat (48), one per restart (a missed beat runs once)
    /// and a little slack; reading it per job would make twice that.
    static func checkHomeReads(_ day: Day) async throws {
        let counters = try await day.fixture.counters()
        for agent in ["reef", "kelp"] {
            let reads = (counters["home_reads"]?[agent]?.array ?? []).compactMap(\.string)
            #expect(reads.count >= 30, "\(agent) read /home \(reads.count) times")
            #expect(reads.count <= 48 + day.run.kills.count + 3, "\(agent) read /home \(reads.count) times in a day")
        }
    }

    /// DMs: reef answers reef_friend in the approved conversation, writes nothing in the
    /// stranger's pending one and approves nothing itself (its recipe names no one), and
    /// `status --json` shows the stranger's request.
    static func checkDirectMessages(_ day: Day, end: Date) async throws {
        let conversations =
            try await day.fixture.admin(.get, "dm/conversations?agent=reef")["conversations"]?.array ?? []
        let byFrom = Dictionary(
            conversations.map { ($0["from"]?.string ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        let friend = try #require(byFrom["reef_friend"], "\(Self.describe(conversations))")
        let friendMessages = friend["messages"]?.array ?? []
        #expect(
            friendMessages.filter { $0["sender"]?.string == "reef" }.count == 1,
            "reef should answer reef_friend's message once: \(Self.describe([friend]))")
        let stranger = try #require(byFrom["stranger"])
        #expect(stranger["status"]?.string == "pending", "\(Self.describe([stranger]))")
        #expect(
            !(stranger["messages"]?.array ?? []).contains { $0["sender"]?.string == "reef" },
            "reef wrote in a pending conversation")
        for conversation in conversations {
            #expect(conversation["decided_by"]?.string != "agent", "reef decided a request itself")
        }
        let status = try await day.fixture.home.run(
            ["status"] + day.recipes + [
                "--json", "--state", day.fixture.statePath, "--now", try await day.fixture.sandboxNow(),
            ])
        #expect(status.status == 0, "\(status.stderr)")
        let agents = try JSONValue.parse(Data(status.stdout.utf8))["agents"]?.array ?? []
        let reef = agents.first { $0["agent"]?.string == "reef" }
        let requests = reef?["inbox"]?["dm"]?["pending_requests"]?.array ?? []
        #expect(requests.compactMap { $0["from"]?.string } == ["stranger"], "\(status.stdout)")
    }

    /// The ids of `agent`'s posts, read from the feed by a fresh reader.
    static func postIDs(of agent: String, _ fixture: RunFixture) async throws -> Set<String> {
        let anonymous = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL, apiKey: nil, transport: fixture.transport, allowLoopback: true)
        let key = try await anonymous.register(
            name: "reader_\(UUID().uuidString.prefix(6).lowercased())", description: "r"
        )
        .value.apiKey
        let posts = try await anonymous.with(apiKey: key).posts(sort: .new, limit: 100).value.items
        return Set(posts.filter { $0.author?.name == agent }.map(\.id))
    }

    static func describe(_ conversations: [JSONValue]) -> String {
        conversations.map { conversation in
            let messages = (conversation["messages"]?.array ?? []).map {
                "\($0["sender"]?.string ?? "?")@\($0["created_at"]?.string ?? "?")"
            }
            return "\(conversation["from"]?.string ?? "?") \(conversation["status"]?.string ?? "?") "
                + "decided \(conversation["decided_at"]?.string ?? "-"): \(messages.joined(separator: ", "))"
        }.joined(separator: "; ")
    }

}
