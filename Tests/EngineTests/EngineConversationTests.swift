import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassEngine
import MoltipassTesting
import Recipes
import Testing

/// Issue 22 through the engine and the sandbox model on a virtual clock (no sockets): simulated
/// agents comment on the agent's posts, answer its replies, mention it and write to it; a
/// heartbeat job answers. Checked from the sandbox's own record (`/_sandbox/comments`,
/// `/_sandbox/notifications`, `/_sandbox/counters`), never from the engine's reports.
@Suite("Conversations through the engine", .serialized, .pinsItsDialect)
struct EngineConversationTests {
    /// 2026-03-02T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_772_409_600)

    static func world(simulation: SandboxSimulation, dmMinAge: Int = 86_400) throws -> EngineWorld {
        var config = SandboxConfig(dialect: .moltbookCom, autoClaim: true)
        config.simulation = simulation
        config.dmMinAgeSeconds = dmMinAge
        return try EngineWorld(config: config, start: start.addingTimeInterval(-3 * 86_400))
    }

    /// `GET /_sandbox/PATH` on the model, at the clock's instant.
    static func admin(_ world: EngineWorld, _ path: String) async throws -> JSONValue {
        let url = URL(string: "http://127.0.0.1:9/_sandbox/" + path)!
        let response = try await world.transport.send(HTTPRequest(method: .get, url: url))
        return try JSONValue.parse(response.body)
    }

    static func comments(_ world: EngineWorld) async throws -> [SandboxComment] {
        (try await admin(world, "comments")["comments"]?.array ?? []).compactMap(SandboxComment.init)
    }

    static let recipe = """
        agent: reef
        time_zone: UTC
        jobs:
          - id: notes
            schedule: { every: 3h }
            steps:
              - post:
                  submolt: general
                  title: "Reef note {{ date: dd HH }}"
                  content: "What the tide did on {{ date }} at {{ date: HH:mm }}."
          - id: answers
            schedule: { heartbeat: 30m }
            steps:
              - reply:
                  to: [replies, mentions]
                  content: "Thanks {{ trigger.author }}, noted ({{ trigger.id }})."
                  max_per_run: 10
          - id: more-answers
            schedule: { heartbeat: 30m }
            steps:
              - reply:
                  to: mentions
                  authors: [nobody-in-particular]
                  content: "Never sent ({{ trigger.id }})."
        """

    /// A simulated day: each comment on the agent's posts and each reply to its comments is
    /// answered exactly once, within the heartbeat (and the comment cooldown), never its own;
    /// each post's notifications are marked read only after every answer on it was published;
    /// `/home` is read once per pass, however many jobs answer.
    @Test func aDayOfRepliesIsAnsweredOnce() async throws {
        let world = try Self.world(simulation: SandboxSimulation(agents: 4, targets: ["reef"], dmRequestsPerDay: 0))
        defer { world.remove() }
        let reader = try await world.register("reef")
        world.clock.set(Self.start)
        let runner = world.runner([try world.recipe("reef.yaml", Self.recipe)])
        let end = Self.start.addingTimeInterval(86_400)
        let reports = await world.drive(runner, until: end)
        #expect(reports.count > 48)

        let comments = try await Self.comments(world)
        let byID = SandboxComment.byID(comments)
        let mine = comments.filter { $0.author == "reef" }
        let posts = try await reader.posts(sort: .new, limit: 100).value.items
        let reefPostIDs = Set(posts.filter { $0.author?.name == "reef" }.map(\.id))
        #expect(reefPostIDs.count >= 7)
        // Triggers: others' top-level comments on reef's posts, others' replies to reef's comments.
        let triggers = SandboxComment.triggers(for: "reef", posts: reefPostIDs, in: comments)
        #expect(triggers.count >= 10, "the simulation made too little to answer: \(triggers.count)")
        // The guard (max_depth 4, per_thread 2) may pass over deep ones; the rest are answered.
        var answered = 0
        for trigger in triggers {
            let answers = mine.filter { $0.parent == trigger.id }
            #expect(answers.count <= 1, "\(trigger.id) answered \(answers.count) times")
            guard let answer = answers.first else {
                let depth = Self.depth(of: trigger, in: byID)
                let mineAbove = trigger.ancestors(in: byID).filter { $0.author == "reef" }.count
                let late = trigger.at > end.addingTimeInterval(-45 * 60)
                #expect(
                    depth >= 4 || mineAbove >= 2 || late,
                    "\(trigger.id) by \(trigger.author) (depth \(depth)) was never answered")
                continue
            }
            answered += 1
            // The heartbeat is 30 minutes; the comment cooldown may add a few 20-second steps.
            #expect(answer.at.timeIntervalSince(trigger.at) <= 45 * 60, "\(trigger.id) answered late")
        }
        #expect(answered >= 10)
        // Never an answer to itself.
        for answer in mine where answer.parent != nil {
            #expect(byID[answer.parent!]?.author != "reef", "reef answered itself: \(answer.id)")
        }
        // Notifications marked read only after the answer was published.
        let notes = try await Self.admin(world, "notifications?agent=reef")["notifications"]?.array ?? []
        var marked = 0
        for note in notes {
            guard let readAt = note["read_at"]?.string.flatMap(SandboxTime.parse),
                let comment = note["comment_id"]?.string
            else { continue }
            marked += 1
            if let answer = mine.first(where: { $0.parent == comment }) {
                #expect(answer.at <= readAt, "notification of \(comment) read at \(readAt) before its answer")
            }
        }
        #expect(marked >= 10)
        // One `/home` read per pass: never two at one instant, though two jobs answer.
        let counters = try await Self.admin(world, "counters")
        let homeReads = (counters["home_reads"]?["reef"]?.array ?? []).compactMap(\.string)
        #expect(homeReads.count >= 40)
        #expect(Set(homeReads).count == homeReads.count, "a pass read /home twice")
    }

    static func depth(of comment: SandboxComment, in byID: [String: SandboxComment]) -> Int {
        comment.ancestors(in: byID).count
    }

    /// Two agents that both run Moltipass and both answer every reply: their exchange under one
    /// comment stops at the loop guard, and neither answers a comment twice.
    @Test func twoMoltipassAgentsDoNotPingPong() async throws {
        let world = try Self.world(simulation: SandboxSimulation())
        defer { world.remove() }
        try await world.register("reef")
        try await world.register("kelp")
        world.clock.set(Self.start)
        let reef = """
            agent: reef
            time_zone: UTC
            jobs:
              - id: post
                schedule: { at: 2026-03-02T00:01:00Z }
                steps:
                  - post: { submolt: general, title: "Tides", content: "Which tide table do you trust?" }
              - id: answers
                schedule: { heartbeat: 10m }
                steps:
                  - reply:
                      content: "reef says: {{ trigger.id }} is a fair point."
                      max_depth: 6
                      per_thread: 3
            """
        let kelp = """
            agent: kelp
            time_zone: UTC
            jobs:
              - id: chime-in
                schedule: { every: 1h, start: 2026-03-02T00:05:00Z }
                steps:
                  - comment:
                      on: { source: global, sort: new, limit: 10, max_per_run: 1 }
                      content: "kelp here: I use the harbour's own table."
              - id: answers
                schedule: { heartbeat: 10m }
                steps:
                  - reply:
                      content: "kelp says: {{ trigger.id }}, agreed."
                      max_depth: 6
                      per_thread: 3
            """
        let runner = world.runner([try world.recipe("reef.yaml", reef), try world.recipe("kelp.yaml", kelp)])
        _ = await world.drive(runner, until: Self.start.addingTimeInterval(12 * 3_600))
        let comments = try await Self.comments(world)
        let byID = SandboxComment.byID(comments)
        #expect(comments.contains { $0.author == "kelp" && $0.parent == nil }, "kelp never commented")
        #expect(comments.contains { $0.author == "reef" && $0.parent != nil }, "reef never answered")
        let deepest = comments.map { Self.depth(of: $0, in: byID) }.max() ?? 0
        // Each answer goes one level deeper. kelp's comment is at depth 0; with per_thread 3 each
        // side speaks at most three times in the branch: kelp at 0, 2, 4 and reef at 1, 3, 5,
        // and kelp passes over reef's third answer (max_depth 6 would have stopped them at 6).
        #expect(deepest == 5, "the exchange went \(deepest) deep")
        for agent in ["reef", "kelp"] {
            let answers = comments.filter { $0.author == agent && $0.parent != nil }
            #expect(Set(answers.map(\.parent)).count == answers.count, "\(agent) answered one comment twice")
        }
        let total = comments.count
        // Quiet by the end: nothing more to say.
        let runner2 = world.runner([try world.recipe("reef.yaml", reef), try world.recipe("kelp.yaml", kelp)])
        _ = await world.drive(runner2, until: Self.start.addingTimeInterval(24 * 3_600))
        let later = try await Self.comments(world)
        let newAnswers = later.filter { $0.parent != nil }.count - comments.filter { $0.parent != nil }.count
        #expect(newAnswers <= later.count - total)
        #expect(
            (later.map { Self.depth(of: $0, in: SandboxComment.byID(later)) }.max()
                ?? 0) <= 6)
    }

    /// DMs: answered only in approved conversations; a young agent reads no DM route at all;
    /// requests are approved only for the names a recipe lists.
    @Test func directMessagesOnlyInApprovedConversationsAndNeverWhenYoung() async throws {
        let simulation = SandboxSimulation(
            agents: 4, targets: ["reef"], minCommentsPerPost: 0, maxCommentsPerPost: 0, mentionPostsPerDay: 0,
            dmRequestsPerDay: 12, dmAutoApproveFraction: 0.5)
        let world = try Self.world(simulation: simulation)
        defer { world.remove() }
        // Registered at the start: under 24 hours old for the first day.
        world.clock.set(Self.start)
        try await world.register("reef")
        let recipe = """
            agent: reef
            time_zone: UTC
            jobs:
              - id: inbox
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      content: "Thanks {{ trigger.author }} ({{ trigger.id }})."
                  - dm:
                      content: "Hello {{ trigger.author }}, reef here ({{ trigger.id }})."
            """
        let runner = world.runner([try world.recipe("reef.yaml", recipe)])
        _ = await world.drive(runner, until: Self.start.addingTimeInterval(86_400 - 60))
        var counters = try await Self.admin(world, "counters")
        let young = counters["requests_by_agent_endpoint"]?["reef"]?.object ?? [:]
        #expect(
            young.keys.filter { $0.contains("/agents/dm") }.isEmpty, "a young agent read DMs: \(young.keys.sorted())")
        _ = await world.drive(runner, until: Self.start.addingTimeInterval(3 * 86_400))
        counters = try await Self.admin(world, "counters")
        let routes = counters["requests_by_agent_endpoint"]?["reef"]?.object ?? [:]
        #expect(routes.keys.contains { $0.hasPrefix("GET /agents/dm") }, "DMs were never read: \(routes.keys.sorted())")
        let conversations = try await Self.admin(world, "dm/conversations?agent=reef")["conversations"]?.array ?? []
        var sent = 0
        for conversation in conversations {
            let messages = conversation["messages"]?.array ?? []
            let mineCount = messages.filter { $0["sender"]?.string == "reef" }.count
            if conversation["status"]?.string != "approved" {
                #expect(mineCount == 0, "reef wrote in a conversation that is \(conversation["status"]?.string ?? "?")")
                // Nobody approves for reef: the recipe names no one.
                #expect(conversation["decided_by"]?.string != "agent")
            }
            sent += mineCount
            // Never twice in a row to one message, at most 5 answers a day per conversation.
            for (earlier, later) in zip(messages, messages.dropFirst()) {
                #expect(
                    !(earlier["sender"]?.string == "reef" && later["sender"]?.string == "reef"),
                    "reef answered one message twice")
            }
        }
        #expect(sent >= 1, "no DM was answered in \(conversations.count) conversations")
        #expect(conversations.contains { $0["status"]?.string == "pending" }, "no request stayed pending")
    }

    /// Servers without /home, notifications and DMs (the open-source server, a community mock):
    /// the steps are skipped with the reason, every pass, and nothing else of the agent stops.
    @Test(arguments: [SandboxDialect.oss, .minimalMock])
    func serversWithoutAnInboxSkipWithTheReason(_ dialect: SandboxDialect) async throws {
        var config = SandboxConfig(dialect: dialect, autoClaim: true)
        config.dmMinAgeSeconds = 0
        let world = try EngineWorld(config: config, start: Self.start.addingTimeInterval(-3 * 86_400))
        defer { world.remove() }
        try await world.register("reef")
        world.clock.set(Self.start)
        let recipe = """
            agent: reef
            time_zone: UTC
            jobs:
              - id: notes
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "Note {{ date: HH }}", content: "At {{ date: HH:mm }}." }
              - id: heartbeat
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      content: "Thanks {{ trigger.author }} ({{ trigger.id }})."
                  - dm:
                      content: "Hello ({{ trigger.id }})."
            """
        let reports = await world.drive(
            world.runner([try world.recipe("reef.yaml", recipe)]), until: Self.start.addingTimeInterval(3 * 3_600))
        let items = reports.flatMap(\.items)
        #expect(
            items.contains {
                $0.action == "reply" && $0.outcome == .skipped
                    && $0.reason
                        == "this server has neither /home nor /notifications: replies and mentions cannot be read"
            }, "\(items.map { "\($0.action) \($0.reason ?? "")" })")
        #expect(
            items.contains { $0.action == "dm" && $0.reason?.hasPrefix("this server has no direct messages") == true })
        #expect(items.filter { $0.action.hasPrefix("post to") && $0.outcome == .done }.count >= 3)
        #expect(reports.allSatisfy { $0.paused.isEmpty && $0.authBroken.isEmpty })
    }

    /// Answers 401 to the routes named, passes the rest to the sandbox: a server that refuses
    /// one route while the others work (moltbook-api.md §6.1).
    struct RefusingTransport: HTTPTransport {
        let inner: any HTTPTransport
        let refused: [String]

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard refused.contains(where: { request.url.path.hasSuffix($0) }) else {
                return try await inner.send(request)
            }
            return HTTPResponse(
                status: 401, headers: ["Content-Type": "application/json"],
                body: Data(#"{"success":false,"error":"Unauthorized"}"#.utf8))
        }
    }

    /// A 401 on the notifications alone: `/home` is the source and the replies are answered; a
    /// 401 on both: the step is skipped saying so, and the agent is neither paused nor broken.
    @Test func aRefusedInboxRouteIsNotABrokenKey() async throws {
        for refused in [["/notifications"], ["/notifications", "/home"]] {
            let world = try Self.world(simulation: SandboxSimulation(agents: 3, targets: ["reef"], dmRequestsPerDay: 0))
            defer { world.remove() }
            try await world.register("reef")
            world.clock.set(Self.start)
            let runner = world.runner(
                [try world.recipe("reef.yaml", Self.recipe)],
                transport: RefusingTransport(inner: world.transport, refused: refused))
            let reports = await world.drive(runner, until: Self.start.addingTimeInterval(12 * 3_600))
            let items = reports.flatMap(\.items)
            #expect(reports.allSatisfy { $0.paused.isEmpty && $0.authBroken.isEmpty }, "\(refused)")
            #expect(items.filter { $0.action.hasPrefix("post to") && $0.outcome == .done }.count >= 4)
            let answered = items.filter { $0.action.hasPrefix("reply to") && $0.outcome == .done }.count
            if refused.count == 1 {
                #expect(answered >= 3, "nothing answered with /home alone")
            } else {
                #expect(answered == 0)
                #expect(
                    items.contains {
                        $0.action == "reply" && $0.reason?.hasPrefix("the server refused /home (") == true
                            && $0.reason?.contains("and /notifications (") == true
                    }, "\(items.map { $0.reason ?? "" })")
            }
        }
    }
}
