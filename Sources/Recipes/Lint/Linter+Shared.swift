import Foundation

extension Linter {
    /// How many runs of a step are rendered when comparing recipes (templates that vary by date
    /// show their variety long before this).
    static let sharedSampleRuns = 200

    /// Content shared between recipes of one agent: the duplicate guard compares everything an
    /// agent publishes, whichever recipe plans it, so a text (or a queue item) two recipes both
    /// publish is sent once and skipped in the other. One warning per step and other recipe, on
    /// the later recipe's step (or queue item), naming the first one's position.
    ///
    /// `recipes` in the order given on the command line; only recipes of the same agent are
    /// compared, and only across files (a repeat inside one recipe is `lint-repeat`'s).
    /// The findings by the file of the recipe they belong to.
    public static func sharedContent(_ recipes: [Recipe], options: LintOptions) -> [String: [Diagnostic]] {
        var findings: [String: [Diagnostic]] = [:]
        let end = options.from.addingTimeInterval(TimeInterval(options.horizon))
        var firstSeen: [String: [String: (recipe: String, text: PublishedText)]] = [:]  // agent → text → first
        for recipe in recipes {
            var mine: [String: (recipe: String, text: PublishedText)] = [:]
            var reported: Set<String> = []  // where, and the other recipe
            for job in recipe.jobs {
                let occurrences = Array(
                    occurrences(of: job.trigger, from: options.from, until: end).prefix(sharedSampleRuns))
                for step in job.steps {
                    for text in texts(of: step, job: job, recipe: recipe, occurrences: occurrences) {
                        guard let first = firstSeen[recipe.agent.value]?[text.normalized], first.recipe != recipe.file
                        else {
                            if mine[text.normalized] == nil { mine[text.normalized] = (recipe.file, text) }
                            continue
                        }
                        let sameQueue = first.text.file == text.file && first.text.mark == text.mark
                        let place = sameQueue ? text.file : "\(text.file):\(text.mark)"
                        guard reported.insert("\(place)|\(first.recipe)").inserted else { continue }
                        let message =
                            sameQueue
                            ? "queue file \(text.file) is also used by \(first.recipe) for agent "
                                + "`\(recipe.agent.value)`: each item is posted once for the agent, by whichever "
                                + "recipe takes it first"
                            : "\"\(text.excerpt)\" is also published by \(first.text.file):\(first.text.mark) for "
                                + "agent `\(recipe.agent.value)`: the duplicate guard sends it once for the agent "
                                + "and skips the other copy"
                        findings[recipe.file, default: []].append(
                            Diagnostic(
                                file: text.file, mark: sameQueue ? .start : text.mark, severity: .warning,
                                code: "lint-shared", message: message,
                                expected: "content that differs between the agent's recipes"))
                    }
                }
            }
            firstSeen[recipe.agent.value, default: [:]].merge(mine) { earlier, _ in earlier }
        }
        return findings
    }

    /// One text a step publishes: normalised, where it is written, and a short excerpt.
    struct PublishedText {
        var normalized: String
        var file: String
        var mark: Mark
        var excerpt: String
    }

    /// The texts `step` publishes in `occurrences` (queue posts: every item, positioned in the
    /// queue file).
    static func texts(of step: Step, job: Job, recipe: Recipe, occurrences: [Date]) -> [PublishedText] {
        if case .post(let post) = step.action, case .queue(let queue) = post.body {
            let at = occurrences.first ?? Date(timeIntervalSince1970: 0)
            return queue.items.compactMap { item in
                let templates = [item.title] + [item.content, item.url].compactMap { $0 }
                let text = rendered(templates, at: at, job: job, recipe: recipe)
                return text.isEmpty
                    ? nil
                    : PublishedText(normalized: text, file: queue.resolvedPath, mark: item.mark, excerpt: excerpt(text))
            }
        }
        guard let published = published(step) else { return [] }
        var seen: Set<String> = []
        var result: [PublishedText] = []
        for occurrence in occurrences {
            let text = rendered(published.templates, at: occurrence, job: job, recipe: recipe)
            if !text.isEmpty, seen.insert(text).inserted {
                result.append(
                    PublishedText(
                        normalized: text, file: recipe.file, mark: published.templates[0].mark, excerpt: excerpt(text)))
            }
        }
        return result
    }

    /// The first words of a normalised text, for messages.
    static func excerpt(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(39)) + "…"
    }
}
