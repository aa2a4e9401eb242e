import Foundation
import Testing

@testable import Recipes

/// `reply:` and `dm:` steps and `comment:` with `reply_to: trigger` (issue 22): the model they
/// decode to, their defaults, and every mistake at its line and column.
struct InboundStepTests {
    func load(_ text: String) -> Result<Recipe, Diagnostics> {
        RecipeLoader.load(bytes: Array(text.utf8), file: "/r/test.yaml") { _ in nil }
    }

    /// A recipe of one job on a heartbeat whose steps are `steps` (indented as list items).
    func recipe(_ steps: String) -> String {
        "agent: a\njobs:\n  - id: j\n    schedule: { heartbeat: 30m }\n    steps:\n" + steps
    }

    func actions(_ text: String) throws -> [Action] {
        try #require(try load(text).get().jobs.first).steps.map(\.action)
    }

    /// The diagnostics of `text`, as `LINE:COLUMN message` lines; empty if it loads.
    func problems(_ text: String) -> [String] {
        guard case .failure(let diagnostics) = load(text) else { return [] }
        return diagnostics.items.map { "\($0.line):\($0.column) \($0.message)" }
    }

    /// A `reply:` with only `content:` gets the documented defaults: replies only, a day's
    /// `max_age`, 5 a run, no daily cap, depth 4 and 2 a thread.
    @Test func replyDefaults() throws {
        let steps = try actions(recipe("      - reply: { content: \"Thanks, {{ trigger.author }}!\" }\n"))
        guard case .reply(let reply) = steps.first else {
            Issue.record("not a reply: \(steps)")
            return
        }
        #expect(reply.select.sources == [.replies])
        #expect(reply.select.authors.isEmpty && reply.select.excludeAuthors.isEmpty)
        #expect(reply.select.contentMatches == nil)
        #expect(reply.select.maxAge == 86_400)
        #expect(reply.select.maxPerRun == 5)
        #expect(reply.select.mark == Mark(line: 6, column: 16))
        #expect(reply.maxPerDay == nil)
        #expect(reply.loopGuard == LoopGuard(maxDepth: 4, perThread: 2))
        #expect(
            reply.content.template?.segments == [.literal("Thanks, "), .target(field: "trigger.author"), .literal("!")])
    }

    /// Every key of `reply:` lands in the model.
    @Test func replyEveryKey() throws {
        let steps = try actions(
            recipe(
                """
                      - reply:
                          to: [mentions, replies]
                          content: "{{ post.title }}: {{ trigger.content }}"
                          authors: [alice, bob]
                          exclude_authors: spam_bot
                          content_matches: "(?i)\\\\?"
                          max_age: 6h
                          max_per_run: 7
                          max_per_day: 40
                          max_depth: 6
                          per_thread: 1

                """))
        guard case .reply(let reply) = steps.first else {
            Issue.record("not a reply: \(steps)")
            return
        }
        #expect(reply.select.sources == [.mentions, .replies])
        #expect(reply.select.authors == ["alice", "bob"])
        #expect(reply.select.excludeAuthors == ["spam_bot"])
        #expect(reply.select.contentMatches == Located("(?i)\\?", at: Mark(line: 11, column: 28)))
        #expect(reply.select.maxAge == 6 * 3_600)
        #expect(reply.select.maxPerRun == 7)
        #expect(reply.maxPerDay == 40)
        #expect(reply.loopGuard == LoopGuard(maxDepth: 6, perThread: 1))
        #expect(
            reply.content.template?.segments
                == [.target(field: "title"), .literal(": "), .target(field: "trigger.content")])
    }

    /// `generate:` in a reply is issue 21's generator; its prompt reads `trigger.*` and `post.*`
    /// from the generation context.
    @Test func replyGenerated() throws {
        let steps = try actions(
            recipe(
                """
                      - reply:
                          to: mentions
                          generate:
                            openai:
                              base_url: http://127.0.0.1:11434/v1
                              model: llama3.2
                              prompt: "{{ trigger.author }} wrote {{ trigger.content }} under {{ post.title }} ({{ thread }})"

                """))
        guard case .reply(let reply) = steps.first, case .generated(let spec) = reply.content,
            case .openAI(let endpoint) = spec.source
        else {
            Issue.record("not a generated reply: \(steps)")
            return
        }
        #expect(reply.select.sources == [.mentions])
        #expect(
            endpoint.prompt.segments.filter { if case .literal = $0 { false } else { true } }
                == [
                    .context(field: "trigger.author"), .context(field: "trigger.content"),
                    .context(field: "post.title"), .context(field: "thread"),
                ])
    }

    /// `comment:` with `reply_to: trigger` and an inbound selector (`on:` or `select:`) is the
    /// same `.reply` as the `reply:` step, its filters taken from the selector and its loop
    /// guard from the comment.
    @Test func commentWithReplyToTrigger() throws {
        let steps = try actions(
            recipe(
                """
                      - comment:
                          select: { source: [replies, mentions], authors: [alice], max_per_run: 2, max_age: 2h }
                          reply_to: trigger
                          content: "Thanks, {{ trigger.author }}."
                          max_depth: 3
                          per_thread: 1
                          max_per_day: 10
                      - comment:
                          on: { source: mentions }
                          reply_to: trigger
                          content: "Hello {{ trigger.author }}"

                """))
        let expected = ReplyAction(
            select: InboundSelector(
                sources: [.replies, .mentions], authors: ["alice"], maxAge: 7_200, maxPerRun: 2,
                mark: Mark(line: 7, column: 19)),
            content: .template(
                Template(
                    source: "Thanks, {{ trigger.author }}.",
                    segments: [.literal("Thanks, "), .target(field: "trigger.author"), .literal(".")],
                    mark: Mark(line: 9, column: 20))),
            loopGuard: LoopGuard(maxDepth: 3, perThread: 1), maxPerDay: 10)
        #expect(steps.first == .reply(expected))
        guard case .reply(let second) = steps.last else {
            Issue.record("not a reply: \(steps)")
            return
        }
        #expect(second.select.sources == [.mentions])
        #expect(second.select.maxPerRun == 5)
        #expect(second.loopGuard == .standard)
    }

    /// A `dm:` with only `content:`: 3 a run, 5 a conversation, a day's `max_age`, and no
    /// request is ever approved.
    @Test func directMessageDefaults() throws {
        let steps = try actions(recipe("      - dm: { content: \"Got it, {{ trigger.author }}.\" }\n"))
        guard case .dm(let message) = steps.first else {
            Issue.record("not a dm: \(steps)")
            return
        }
        #expect(message.select.sources == [.dms])
        #expect(message.select.maxPerRun == 3)
        #expect(message.select.maxAge == 86_400)
        #expect(message.perConversation == 5)
        #expect(message.maxPerDay == nil)
        #expect(message.approve == .none)
    }

    /// Every key of `dm:`, filters given in its `select:` too, and the three forms of
    /// `approve_from`.
    @Test func directMessageEveryKey() throws {
        let steps = try actions(
            recipe(
                """
                      - dm:
                          select: { source: dms, authors: [alice] }
                          content: "Noted: {{ trigger.content }}"
                          exclude_authors: [mallory]
                          content_matches: "(?i)hello"
                          max_age: 2d
                          max_per_run: 4
                          per_conversation: 9
                          max_per_day: 20
                          approve_from: [alice, bob]
                      - dm: { content: "Hi {{ trigger.author }}", approve_from: "*" }
                      - dm: { content: "Hi {{ trigger.author }}", approve_from: [] }
                      - dm: { content: "Hi {{ trigger.author }}", approve_from: carol }

                """))
        guard case .dm(let message) = steps.first else {
            Issue.record("not a dm: \(steps)")
            return
        }
        #expect(message.select.authors == ["alice"])
        #expect(message.select.excludeAuthors == ["mallory"])
        #expect(message.select.contentMatches?.value == "(?i)hello")
        #expect(message.select.maxAge == 2 * 86_400)
        #expect(message.select.maxPerRun == 4)
        #expect(message.perConversation == 9)
        #expect(message.maxPerDay == 20)
        #expect(
            message.approve
                == .from([
                    Located("alice", at: Mark(line: 15, column: 26)), Located("bob", at: Mark(line: 15, column: 33)),
                ]))
        let approvals = steps.dropFirst().map { step -> DirectMessageAction.Approval? in
            if case .dm(let message) = step { return message.approve }
            return nil
        }
        #expect(
            approvals == [
                .any, DirectMessageAction.Approval.none, .from([Located("carol", at: Mark(line: 18, column: 65))]),
            ])
    }

    struct Mistake: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: String
        /// `LINE:COLUMN message fragment`, one a diagnostic, in order.
        var expected: [String]
        var testDescription: String { name }
    }

    /// Steps start on line 6, column 9 (`reply` in `      - reply:`).
    static let mistakes: [Mistake] = [
        Mistake(
            name: "reply to dms", steps: "      - reply: { to: dms, content: hi }\n",
            expected: ["6:22 a reply does not answer `dms`"]),
        Mistake(
            name: "reply to a misspelt source", steps: "      - reply: { to: [replies, mention], content: hi }\n",
            expected: ["6:32 `mention` is not something a reply answers"]),
        Mistake(
            name: "reply to a source twice", steps: "      - reply: { to: [replies, replies], content: hi }\n",
            expected: ["6:32 `replies` is listed twice"]),
        Mistake(
            name: "reply without text", steps: "      - reply: { to: replies }\n",
            expected: ["6:16 reply has no `content` or `generate`"]),
        Mistake(
            name: "reply with content and generate",
            steps: "      - reply: { content: hi, generate: { command: [x] } }\n",
            expected: ["6:41 reply has both `content` and `generate`"]),
        Mistake(
            name: "reply misspelt key", steps: "      - reply: { content: hi, max_per_rum: 3 }\n",
            expected: ["6:31 unknown key `max_per_rum` in reply"]),
        Mistake(
            name: "reply with a feed key", steps: "      - reply: { content: hi, sort: new }\n",
            expected: ["6:31 `sort` does not apply to reply"]),
        Mistake(
            name: "reply with a selector", steps: "      - reply: { content: hi, on: { source: replies } }\n",
            expected: ["6:31 `on` does not apply to reply"]),
        Mistake(
            name: "reply with a queue", steps: "      - reply: { content: hi, queue: q.yaml }\n",
            expected: ["6:31 `queue` does not apply to reply"]),
        Mistake(
            name: "reply depth out of range", steps: "      - reply: { content: hi, max_depth: 21 }\n",
            expected: ["6:42 max_depth 21 is out of range"]),
        Mistake(
            name: "reply per_thread zero", steps: "      - reply: { content: hi, per_thread: 0 }\n",
            expected: ["6:43 per_thread 0 is out of range"]),
        Mistake(
            name: "reply max_per_run too large", steps: "      - reply: { content: hi, max_per_run: 101 }\n",
            expected: ["6:44 max_per_run 101 is out of range"]),
        Mistake(
            name: "reply bad regex", steps: "      - reply: { content: hi, content_matches: \"(\" }\n",
            expected: ["6:48 content_matches `(` is not a valid regular expression"]),
        Mistake(
            name: "reply bad max_age", steps: "      - reply: { content: hi, max_age: 3x }\n",
            expected: ["6:41 max_age `3x`: unknown unit `x`"]),
        Mistake(
            name: "comment reply_to trigger without selector",
            steps: "      - comment: { reply_to: trigger, content: hi }\n",
            expected: ["6:30 `reply_to: trigger` needs an inbound selector"]),
        Mistake(
            name: "comment reply_to trigger on a feed",
            steps: "      - comment: { on: { source: global }, reply_to: trigger, content: hi }\n",
            expected: ["6:54 `reply_to: trigger` needs an inbound selector"]),
        Mistake(
            name: "comment reply_to trigger with a post",
            steps: "      - comment: { post: p1, on: { source: replies }, reply_to: trigger, content: hi }\n",
            expected: ["6:26 `reply_to: trigger` takes no `post`"]),
        Mistake(
            name: "comment on replies without reply_to trigger",
            steps: "      - comment: { on: { source: replies }, content: hi }\n",
            expected: ["6:34 source `replies` needs `reply_to: trigger` in a comment"]),
        Mistake(
            name: "comment select on mentions without reply_to trigger",
            steps: "      - comment: { select: { source: [mentions] }, content: hi }\n",
            expected: ["6:39 source `mentions` needs `reply_to: trigger` in a comment"]),
        Mistake(
            name: "comment on dms", steps: "      - comment: { on: { source: dms }, content: hi }\n",
            expected: ["6:34 source `dms` is not a feed"]),
        Mistake(
            name: "vote on replies", steps: "      - vote: { ensure: upvoted, on: { source: replies } }\n",
            expected: ["6:48 source `replies` is not a feed"]),
        Mistake(
            name: "inbound selector with feed keys",
            steps:
                "      - comment: { on: { source: replies, sort: new, not_mine: true }, reply_to: trigger, content: hi }\n",
            expected: [
                "6:43 `sort` does not apply to inbound comments", "6:54 `not_mine` does not apply to inbound comments",
            ]),
        Mistake(
            name: "comment on both on and select",
            steps: "      - comment: { on: { source: global }, select: { source: global }, content: hi }\n",
            expected: ["6:52 comment has both `on` and `select`"]),
        Mistake(
            name: "loop guard on a plain comment",
            steps: "      - comment: { on: { source: global }, max_depth: 2, content: hi }\n",
            expected: ["6:55 `max_depth` applies to `reply_to: trigger` only"]),
        Mistake(
            name: "dm select on replies",
            steps: "      - dm: { select: { source: replies }, content: hi }\n",
            expected: ["6:33 a dm step answers `dms`, not `replies`"]),
        Mistake(
            name: "dm filter given twice",
            steps: "      - dm: { select: { authors: [a] }, authors: [b], content: hi }\n",
            expected: ["6:34 `authors` is given both in `select` and in the dm step"]),
        Mistake(
            name: "dm per_conversation out of range",
            steps: "      - dm: { content: hi, per_conversation: 51 }\n",
            expected: ["6:46 per_conversation 51 is out of range"]),
        Mistake(
            name: "dm with the reply loop guard", steps: "      - dm: { content: hi, max_depth: 2 }\n",
            expected: ["6:28 `max_depth` does not apply to dm"]),
        Mistake(
            name: "dm approve_from star and names",
            steps: "      - dm: { content: hi, approve_from: [\"*\", alice] }\n",
            expected: ["6:42 approve_from lists `*` with names"]),
        Mistake(
            name: "dm approve_from bad name", steps: "      - dm: { content: hi, approve_from: [a b] }\n",
            expected: ["6:43 approve_from `a b` has characters outside"]),
        Mistake(
            name: "dm without text", steps: "      - dm: { max_per_run: 2 }\n",
            expected: ["6:13 dm has no `content` or `generate`"]),
        Mistake(
            name: "post in a dm", steps: "      - dm: { content: \"Re {{ post.title }}\" }\n",
            expected: ["6:31 in content: `{{ post.title }}` has no post in a dm step"]),
        Mistake(
            name: "post in a dm prompt",
            steps: """
                      - dm:
                          generate:
                            openai: { base_url: "http://127.0.0.1:1/v1", model: m, prompt: "{{ post.content }}" }

                """,
            expected: ["8:80 in prompt: `{{ post.content }}` has no post in a dm step"]),
        Mistake(
            name: "unknown trigger field", steps: "      - reply: { content: \"{{ trigger.autor }}\" }\n",
            expected: ["6:39 in content: unknown trigger field `autor`"]),
        Mistake(
            name: "trigger in a plain comment",
            steps: "      - comment: { post: p1, content: \"{{ trigger.author }}\" }\n",
            expected: ["6:43 in content: `{{ trigger.author }}` has no trigger to read here"]),
        Mistake(
            name: "trigger in a post", steps: "      - post: { submolt: s, title: \"{{ trigger.id }}\" }\n",
            expected: ["6:40 in title: `{{ trigger.id }}` has no trigger to read here"]),
        Mistake(
            name: "trigger in a comment prompt",
            steps: """
                      - comment:
                          post: p1
                          generate:
                            openai: { base_url: "http://127.0.0.1:1/v1", model: m, prompt: "{{ trigger.thread }}" }

                """,
            expected: ["9:80 in prompt: `{{ trigger.thread }}` has no trigger to read here"]),
    ]

    @Test(arguments: mistakes) func mistake(_ mistake: Mistake) {
        let found = problems(recipe(mistake.steps))
        #expect(found.count == mistake.expected.count, "\(found)")
        for (want, got) in zip(mistake.expected, found) {
            let position = String(want.prefix { $0 != " " })
            let fragment = want.dropFirst(position.count + 1)
            #expect(got.hasPrefix(position + " ") && got.contains(fragment), "wanted \(want), got \(got)")
        }
    }

    /// Unknown keys are suggested the nearest known one, and the expected list names the
    /// step's keys.
    @Test func suggestions() {
        guard case .failure(let diagnostics) = load(recipe("      - reply: { content: hi, per_threads: 3 }\n")) else {
            Issue.record("loaded")
            return
        }
        #expect(diagnostics.items.map(\.suggestion) == ["per_thread"])
        #expect(diagnostics.items.first?.expected?.contains("`max_depth`") == true)
        guard case .failure(let dm) = load(recipe("      - dm: { content: hi, aprove_from: [x] }\n")) else {
            Issue.record("loaded")
            return
        }
        #expect(dm.items.map(\.suggestion) == ["approve_from"])
        guard case .failure(let post) = load(recipe("      - dm: { content: \"{{ post.author }}\" }\n")) else {
            Issue.record("loaded")
            return
        }
        #expect(post.items.map(\.suggestion) == ["trigger.author"])
    }

    /// A plain template reads a trigger field from the target fields under its full name.
    @Test func renderingTriggerFields() throws {
        let template = try Template.parse(
            "@{{ trigger.author }} ({{ trigger.kind }}) on {{ post.title }}", at: .start,
            scope: Template.Scope(environment: [], hasTarget: true, hasTrigger: true))
        let context = TemplateContext(
            date: .distantPast, timeZone: zone("UTC"), agent: "a",
            target: ["trigger.author": "alice", "trigger.kind": "reply", "title": "Reefs"], seed: "s")
        #expect(template.render(context) == "@alice (reply) on Reefs")
        #expect(Template.triggerFields == ["author", "content", "id", "kind", "thread"])
    }
}
