import Foundation
import MoltbookAPI
import MoltipassEngine
import Recipes
import Testing

/// What a `reply:` or `dm:` step answers, and why it passes over the rest (issue 22): table
/// tests of `InboundPlanner` at a fixed instant, no server.
@Suite("Inbound planner")
struct InboundPlannerTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let me = AgentIdentity(name: "reef")

    static func comment(
        _ id: String, by author: String, _ text: String = "a thought", minutesAgo: Double = 5,
        thread: [Inbound.Entry] = [], answered: Bool = false, source: InboundSource = .replies
    ) -> Inbound {
        Inbound(
            source: source, id: id, author: author, content: text, createdAt: now.addingTimeInterval(-minutesAgo * 60),
            thread: thread, postID: "p1", postTitle: "A post", commentID: id, answered: answered)
    }

    static func entry(_ author: String, mine: Bool = false) -> Inbound.Entry {
        Inbound.Entry(author: author, content: "…", mine: mine, isComment: true)
    }

    static func reply(
        sources: [InboundSource] = [.replies], maxPerRun: Int = 5, guardrail: LoopGuard = .standard,
        authors: [String] = [], exclude: [String] = [], matches: String? = nil
    ) -> ReplyAction {
        ReplyAction(
            select: InboundSelector(
                sources: sources, authors: authors, excludeAuthors: exclude,
                contentMatches: matches.map { Located($0, at: .start) }, maxPerRun: maxPerRun, mark: .start),
            content: .template(Self.text("ok")), loopGuard: guardrail)
    }

    static func text(_ literal: String) -> Template {
        try! Template.parse(literal, at: .start, scope: Template.Scope(environment: [], hasTarget: false))
    }

    static func planner(done: Set<String> = []) -> InboundPlanner {
        InboundPlanner(identity: me, now: now) { kind, id in kind == .reply && done.contains(id) }
    }

    @Test func answersOthersOnceAndNeverItself() {
        let items = [
            Self.comment("c1", by: "alice"), Self.comment("c2", by: "REEF"),
            Self.comment("c3", by: "bob", answered: true),
            Self.comment("c4", by: "carol"),
        ]
        let plan = Self.planner(done: ["c4"]).replies(items, action: Self.reply())
        #expect(plan.accepted.map(\.id) == ["c1"])
        let reasons = Dictionary(uniqueKeysWithValues: plan.skipped.map { ($0.id, $0) })
        #expect(reasons["c2"]?.reason == "the agent's own words")
        #expect(reasons["c3"]?.reason == "already answered")
        #expect(reasons["c4"]?.reason == "already answered")
        #expect(plan.skipped.allSatisfy { $0.silent && $0.forGood })
    }

    /// The loop guard: one comment too deep, or a branch where the agent already spoke
    /// `per_thread` times, is passed over for good, with the reason.
    @Test func loopGuardStopsDeepThreadsAndChattyBranches() {
        let deep = Self.comment(
            "deep", by: "alice",
            thread: [Self.entry("a"), Self.entry("reef", mine: true), Self.entry("a"), Self.entry("b")])
        let chatty = Self.comment(
            "chatty", by: "bob",
            thread: [Self.entry("reef", mine: true), Self.entry("bob"), Self.entry("reef", mine: true)])
        let shallow = Self.comment("ok", by: "carol", thread: [Self.entry("reef", mine: true)])
        let plan = Self.planner().replies(
            [deep, chatty, shallow], action: Self.reply(guardrail: LoopGuard(maxDepth: 4, perThread: 2)))
        #expect(plan.accepted.map(\.id) == ["ok"])
        let reasons = Dictionary(uniqueKeysWithValues: plan.skipped.map { ($0.id, $0.reason) })
        #expect(reasons["deep"] == "loop guard: the comment is 4 replies deep (max_depth 4)")
        #expect(reasons["chatty"]?.hasPrefix("loop guard: the agent already answered 2 times in this thread") == true)
        #expect(plan.skipped.allSatisfy { $0.forGood && !$0.silent })
    }

    /// Two agents each answering the other's last reply go one level deeper every time: the
    /// exchange ends when either side's guard holds, however the two are configured.
    @Test func twoGuardedAgentsCannotPingPongForEver() {
        for (depthA, depthB, perThread) in [(4, 4, 2), (2, 9, 9), (20, 20, 1), (20, 20, 20)] {
            var thread: [Inbound.Entry] = []
            var speaker = "bob"
            var exchanged = 0
            while exchanged < 100 {
                let answering = speaker == "bob" ? "reef" : "bob"
                let guardrail = LoopGuard(maxDepth: answering == "reef" ? depthA : depthB, perThread: perThread)
                let planner = InboundPlanner(identity: AgentIdentity(name: answering), now: Self.now) { _, _ in false }
                let item = Inbound(
                    source: .replies, id: "c\(exchanged)", author: speaker, content: "x", createdAt: Self.now,
                    thread: thread.map {
                        Inbound.Entry(author: $0.author, content: "x", mine: $0.author == answering, isComment: true)
                    },
                    postID: "p", commentID: "c\(exchanged)")
                guard !planner.replies([item], action: Self.reply(guardrail: guardrail)).accepted.isEmpty else { break }
                thread.append(Inbound.Entry(author: speaker, content: "x", mine: false, isComment: true))
                speaker = answering
                exchanged += 1
            }
            #expect(
                exchanged <= min(max(depthA, depthB), 2 * perThread + 1), "depths \(depthA)/\(depthB) per \(perThread)")
            #expect(exchanged < 100)
        }
    }

    @Test func filtersAndAgeArePermanentCapsWait() {
        let items = [
            Self.comment("old", by: "alice", minutesAgo: 60 * 25), Self.comment("x", by: "mallory"),
            Self.comment("nomatch", by: "bob", "hello"), Self.comment("a1", by: "bob", "a question?"),
            Self.comment("a2", by: "carol", "another question?"),
        ]
        let plan = Self.planner().replies(
            items, action: Self.reply(maxPerRun: 1, exclude: ["Mallory"], matches: #"\?"#))
        #expect(plan.accepted.map(\.id) == ["a1"])
        let byID = Dictionary(uniqueKeysWithValues: plan.skipped.map { ($0.id, $0) })
        #expect(byID["old"]?.reason == "older than max_age (1d)")
        #expect(byID["x"]?.reason == "@mallory is excluded (exclude_authors)")
        #expect(byID["nomatch"]?.reason == "the text does not match content_matches")
        #expect(byID["a2"]?.forGood == false)
        #expect(byID["a2"]?.reason.hasPrefix("max_per_run 1 reached") == true)
    }

    @Test func sourcesAreKeptApart() {
        let items = [Self.comment("r", by: "a"), Self.comment("m", by: "b", source: .mentions)]
        #expect(Self.planner().replies(items, action: Self.reply()).accepted.map(\.id) == ["r"])
        #expect(Self.planner().replies(items, action: Self.reply(sources: [.mentions])).accepted.map(\.id) == ["m"])
        #expect(
            Self.planner().replies(items, action: Self.reply(sources: [.replies, .mentions])).accepted.map(\.id)
                .sorted()
                == ["m", "r"])
    }

    /// DM requests are approved only for the agents a recipe names; conversations stop at
    /// `per_conversation` answers a day.
    @Test func directMessages() {
        let requests = [
            InboundRead.Request(id: "q1", from: "Alice", preview: nil),
            InboundRead.Request(id: "q2", from: "eve", preview: nil),
        ]
        let planner = Self.planner()
        #expect(planner.approvals(requests, approve: .none).isEmpty)
        #expect(planner.approvals(requests, approve: .from([Located("alice", at: .start)])).map(\.id) == ["q1"])
        #expect(planner.approvals(requests, approve: .any).map(\.id) == ["q1", "q2"])
        let done = InboundPlanner(identity: Self.me, now: Self.now) { kind, id in kind == .approveRequest && id == "q1"
        }
        #expect(done.approvals(requests, approve: .any).map(\.id) == ["q2"])

        let select = InboundSelector(sources: [.dms], maxPerRun: 3, mark: .start)
        let action = DirectMessageAction(
            select: select, content: .template(Self.text("hi")),
            perConversation: 2)
        var chatty = Inbound(
            source: .dms, id: "m1", author: "alice", content: "hi", createdAt: Self.now, conversationID: "k1")
        chatty.answersToday = 2
        let quiet = Inbound(
            source: .dms, id: "m2", author: "bob", content: "yo", createdAt: Self.now, conversationID: "k2")
        let plan = planner.messages([chatty, quiet], action: action)
        #expect(plan.accepted.map(\.id) == ["m2"])
        #expect(
            plan.skipped.first?.reason.hasPrefix("loop guard: the agent already answered 2 times in this conversation")
                == true)
    }
}
