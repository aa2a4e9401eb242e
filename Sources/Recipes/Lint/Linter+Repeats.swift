import Foundation

extension Linter {
    /// The texts a post or comment step publishes, as the linter renders them, and what they are.
    struct PublishedTexts {
        /// The templates whose text is published, the first one where findings point.
        var templates: [Template]
        /// How many copies each occurrence publishes (a selector's `max_per_run`).
        var copiesPerRun: Int
        /// The occurrences kept by the step's `max_per_day`.
        var cap: Int?
        /// "the post" or "the comment".
        var what: String
    }

    /// What `step` publishes, or nil when it publishes no text the linter can render the way the
    /// engine will: votes and follows, queue posts (each item once), comments whose template names
    /// a `{{ post.… }}` field (each post's own fields make each comment different).
    static func published(_ step: Step) -> PublishedTexts? {
        switch step.action {
        case .post(let post):
            guard case .inline(let title, let content, let url) = post.body else { return nil }
            return PublishedTexts(
                templates: [title] + [content, url].compactMap { $0 }, copiesPerRun: 1, cap: post.maxPerDay,
                what: "the post")
        case .comment(let comment):
            // Generated text is checked when it is written, not here.
            guard let template = comment.content.template else { return nil }
            var copies = 1
            if case .selected(let selector) = comment.target {
                if template.segments.contains(where: { if case .target = $0 { true } else { false } }) {
                    return nil
                }
                copies = selector.maxPerRun
            }
            return PublishedTexts(
                templates: [template], copiesPerRun: copies, cap: comment.maxPerDay, what: "the comment")
        default:
            return nil
        }
    }

    /// The normalised text `templates` render to at `occurrence`, as the engine renders them (the
    /// occurrence's date in the recipe's zone, the same `{{ random }}` seed). Environment
    /// variables count as constant.
    static func rendered(_ templates: [Template], at occurrence: Date, job: Job, recipe: Recipe) -> String {
        let context = TemplateContext(
            date: occurrence, timeZone: recipe.timeZone, agent: recipe.agent.value,
            seed: "\(recipe.seed)|\(job.id.value)|\(Int64(occurrence.timeIntervalSince1970))")
        return ContentText.normalized(templates.map { $0.render(context) }.joined(separator: "\n"))
    }

    /// Posts and comments that would say the same thing again within the duplicate window.
    /// Moltbook suspends agents for repeated content and the engine's duplicate guard skips a text
    /// the agent sent within the window (`duplicates: window:`, 30 days by default), so a step
    /// with fewer variants than runs in the window is worth a warning, with the counts.
    ///
    /// Simulated over the window or the lint horizon, whichever is longer, run by run as the
    /// guard would see them: a text counts as skipped when the same text was sent less than a
    /// window before; the copies a selector's run makes all carry the same text.
    static func repeatFindings(_ step: Step, job: Job, recipe: Recipe, from: Date, horizon: Int) -> [Diagnostic] {
        guard let published = published(step) else { return [] }
        let window = recipe.duplicateWindow
        let span = max(horizon, window)
        var occurrences = occurrences(of: job.trigger, from: from, until: from.addingTimeInterval(TimeInterval(span)))
        if let cap = published.cap { occurrences = capped(occurrences, perDay: cap) }
        let runs = occurrences.count * published.copiesPerRun
        guard runs > 1 else { return [] }
        var lastSent: [String: Date] = [:]
        var skipped = 0
        for occurrence in occurrences {
            let text = rendered(published.templates, at: occurrence, job: job, recipe: recipe)
            for _ in 0..<published.copiesPerRun {
                if let last = lastSent[text], occurrence.timeIntervalSince(last) < TimeInterval(window) {
                    skipped += 1
                } else {
                    lastSent[text] = occurrence
                }
            }
        }
        guard skipped > 0 else { return [] }
        let variants = lastSent.count
        let inSpan = "\(runs) runs in the next \(DurationText.format(span))"
        let reason =
            "within the \(DurationText.format(window)) duplicate window (Moltbook suspends agents for repeated content)"
        let message =
            variants == 1
            ? "\(published.what) says the same every time (\(inSpan)): after the first, every copy is skipped as a "
                + "duplicate \(reason)"
            : "\(published.what) has \(variants) different texts for \(inSpan): \(skipped) will be skipped as "
                + "duplicates \(reason)"
        return [
            Diagnostic(
                file: recipe.file, mark: published.templates[0].mark, severity: .warning, code: "lint-repeat",
                message: message,
                expected: "a text that changes with each run (`{{ post.title }}`, a date, a queue of drafts)")
        ]
    }
}
