import Foundation
import MoltipassTesting
import Testing

@testable import Recipes

/// Decoding behaviour beyond single fixtures: several errors at once, JSON output, the decoded model, rendering.
struct RecipeLoaderTests {
    func load(_ text: String, files: [String: String] = [:]) -> Result<Recipe, Diagnostics> {
        RecipeLoader.load(bytes: Array(text.utf8), file: "/r/test.yaml") { path in files[path].map { Array($0.utf8) } }
    }

    /// One pass reports every independent mistake.
    @Test func severalErrorsInOnePass() throws {
        let text = """
            agnet: a
            time_zone: Mars/Olympus
            jobs:
              - id: j
                schedule: { cron: "61 * * * *" }
                steps:
                  - upvote: x
            """
        guard case .failure(let diagnostics) = load(text) else {
            Issue.record("loaded")
            return
        }
        let positions = diagnostics.items.map { "\($0.line):\($0.column)" }
        #expect(positions == ["1:1", "1:1", "2:12", "5:24", "7:9"])
        #expect(diagnostics.description.contains("/r/test.yaml:1:1: error: unknown key `agnet` in the recipe"))
        #expect(diagnostics.description.contains("(did you mean `agent`?)"))
    }

    /// Diagnostics encode as a JSON array with stable keys.
    @Test func json() throws {
        guard case .failure(let diagnostics) = load("agent: a\njobs: []\n") else {
            Issue.record("loaded")
            return
        }
        let decoded = try JSONDecoder().decode([Diagnostic].self, from: diagnostics.jsonData())
        #expect(decoded == diagnostics.items)
        let object = try JSONSerialization.jsonObject(with: diagnostics.jsonData()) as? [[String: Any]]
        #expect(object?.first?["file"] as? String == "/r/test.yaml")
        #expect(object?.first?["code"] as? String == "value")
        #expect(object?.first?["line"] as? Int == 2)
    }

    /// A full recipe decodes into the model, with positions and a queue read relative to the recipe.
    @Test func decodesModel() throws {
        let text = """
            agent: bot
            time_zone: Europe/Berlin
            env: [TAG]
            limits: { post_interval: 1h, i_know_the_server_limits: false }
            jobs:
              - id: daily
                schedule:
                  cron: "0 9 * * MON-FRI"
                  randomized_delay: 5m
                  active_hours: "08:00-18:00"
                  missed: { catch_up: 2 }
                steps:
                  - post: { submolt: general, queue: q.yaml }
                  - vote: { ensure: downvoted, post: p1 }
                  - comment: { post: p1, reply_to: c1, content: "hi {{ post.author }} {{ env.TAG }}" }
            """
        let recipe = try load(text, files: ["/r/q.yaml": "- title: one\n- title: two\n  url: https://x.example\n"])
            .get()
        #expect(recipe.agent == Located("bot", at: Mark(line: 1, column: 8)))
        #expect(recipe.name == "test")
        #expect(recipe.limits.postInterval?.value == 3600)
        let job = try #require(recipe.jobs.first)
        #expect(job.trigger.randomizedDelay == 300)
        #expect(job.trigger.missed == .catchUp(max: 2))
        #expect(job.trigger.timeZone.identifier == "Europe/Berlin")
        guard case .post(let post) = job.steps[0].action, case .queue(let queue) = post.body else {
            Issue.record("not a queue post")
            return
        }
        #expect(queue.items.count == 2)
        #expect(queue.resolvedPath == "/r/q.yaml")
        #expect(
            job.steps[1].action
                == .vote(
                    VoteAction(
                        ensure: .downvoted, target: .post(Located("p1", at: Mark(line: 14, column: 42))), maxPerDay: nil
                    )))
        #expect(LimitProfile.standard.applying(recipe.limits).postInterval == 3600)
    }

    /// A comment may be downvoted as well as upvoted (issue 20, the comment downvote), with the
    /// id's position kept; a direction that is not one is still refused at its line and column.
    @Test func commentVotes() throws {
        let text = """
            agent: a
            jobs:
              - id: j
                schedule: { cron: "@daily" }
                steps:
                  - vote: { ensure: downvoted, comment: c-1 }
                  - vote: { ensure: upvoted, comment: c-2 }
            """
        let steps = try #require(try load(text).get().jobs.first).steps.map(\.action)
        #expect(
            steps == [
                .vote(VoteAction(ensure: .downvoted, target: .comment(Located("c-1", at: Mark(line: 6, column: 45))))),
                .vote(VoteAction(ensure: .upvoted, target: .comment(Located("c-2", at: Mark(line: 7, column: 43))))),
            ])
        let bad = text.replacingOccurrences(of: "ensure: downvoted", with: "ensure: downvote")
        guard case .failure(let diagnostics) = load(bad) else {
            Issue.record("loaded")
            return
        }
        #expect(diagnostics.items.map { "\($0.line):\($0.column)" } == ["6:25"])
        #expect(diagnostics.description.contains("/r/test.yaml:6:25: error: vote cannot ensure `downvote`"))
        #expect(diagnostics.description.contains("(did you mean `downvoted`?)"))
    }

    /// Templates render in the recipe zone; random choices are stable per seed.
    @Test func rendering() throws {
        let scope = Template.Scope(environment: ["TAG"], hasTarget: true)
        let template = try Template.parse(
            "{{ agent }} {{ date: yyyy-MM-dd HH:mm }} {{ post.title }} {{ env.TAG }}!",
            at: .start, scope: scope)
        let context = TemplateContext(
            date: instant("2026-03-29T01:30:00Z"), timeZone: zone("Europe/Berlin"), agent: "bot",
            target: ["title": "Hello"], environment: ["TAG": "v1", "SECRET": "no"], seed: "s")
        #expect(template.render(context) == "bot 2026-03-29 03:30 Hello v1!")
        let random = try Template.parse("{{ random: [a, b, c] }}", at: .start, scope: scope)
        let picks = (0..<20).map {
            random.render(TemplateContext(date: .distantPast, timeZone: zone("UTC"), agent: "", seed: "\($0)"))
        }
        #expect(Set(picks).count > 1)
        #expect(
            picks
                == (0..<20).map {
                    random.render(TemplateContext(date: .distantPast, timeZone: zone("UTC"), agent: "", seed: "\($0)"))
                })
    }

    /// Loosening a limit is allowed only with the explicit flag.
    @Test func loosenWithFlag() throws {
        let base = "jobs:\n  - id: j\n    schedule: { every: 1h }\n    steps: [{ subscribe: x }]\nagent: a\n"
        #expect(throws: Diagnostics.self) { try load("limits: { post_interval: 5m }\n" + base).get() }
        let recipe = try load("limits: { post_interval: 5m, i_know_the_server_limits: true }\n" + base).get()
        #expect(LimitProfile.standard.applying(recipe.limits).postInterval == 300)
    }

    /// A huge file is refused by size before it is read.
    @Test func hugeFileRefusedBySize() throws {
        let text = "agent: a\n" + String(repeating: "# padding\n", count: 120_000)
        guard case .failure(let diagnostics) = load(text) else {
            Issue.record("loaded")
            return
        }
        #expect(
            diagnostics.items.map(\.message) == [
                "document is 1200009 bytes, over the limit of 1048576 bytes (max document size)"
            ])
    }

    /// The fuzz entry point survives hostile and random inputs.
    @Test func fuzzEntryPoint() {
        var inputs: [[UInt8]] = [
            [], [0xFF, 0xFE], Array("a: &a [*a]".utf8), Array(String(repeating: "[", count: 5000).utf8),
            Array("agent: a\njobs: [{id: j, schedule: {cron: '* * * * *'}, steps: [{subscribe: x}]}]".utf8),
        ]
        var random = SeededRandom(seed: 42)
        let alphabet = Array("agent:jobs- {}[]*&!:#\"'\n schedule cron every at steps post".utf8)
        for _ in 0..<200 {
            inputs.append((0..<64).map { _ in random.pick(alphabet) })
        }
        // Known answers: an empty file and a lone byte order mark are one error each (empty); the
        // self-referencing alias and the 5000 brackets are refused with a diagnostic; the last
        // known input is a valid recipe. Every input gives the same answer twice.
        let counts = inputs.map { input in input.withUnsafeBytes { RecipeFuzzing.parse(bytes: $0) } }
        let again = inputs.map { input in input.withUnsafeBytes { RecipeFuzzing.parse(bytes: $0) } }
        #expect(counts == again)
        #expect(counts[0] == 1 && counts[1] == 1, "\(counts.prefix(5))")
        #expect(counts[2] >= 1 && counts[3] >= 1, "\(counts.prefix(5))")
        let valid = inputs[4].withUnsafeBytes { RecipeLoader.load(bytes: [UInt8]($0), file: "fuzz.yaml") }
        #expect((try? valid.get()) != nil, "the last known input is a valid recipe")
        // Every random input is refused or accepted the same way the loader alone says.
        for (input, count) in zip(inputs, counts).dropFirst(5) {
            if case .failure(let diagnostics) = RecipeLoader.load(bytes: input, file: "fuzz.yaml") {
                #expect(count == diagnostics.items.count)
            }
        }
    }
}
