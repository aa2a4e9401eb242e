import Foundation

extension Linter {
    /// Posts and comments that would say the same thing run after run. Moltbook suspends agents
    /// for repeated content and the engine's duplicate guard skips every repeat within 30 days,
    /// so a text with fewer variants than runs in the horizon is worth a warning, with the count.
    ///
    /// Rendered as the engine renders (the occurrence's date in the recipe's zone, the same
    /// `{{ random }}` seed); a comment on posts a selector picks varies with the post only when
    /// its template names a `{{ post.… }}` field. Environment variables count as constant.
    static func repeatFindings(_ step: Step, job: Job, recipe: Recipe, occurrences: [Date], horizon: Int)
        -> [Diagnostic]
    {
        let runs: Int
        let templates: [Template]
        let what: String
        switch step.action {
        case .post(let post):
            guard case .inline(let title, let content, let url) = post.body else { return [] }
            templates = [title] + [content, url].compactMap { $0 }
            runs = post.maxPerDay.map { capped(occurrences, perDay: $0).count } ?? occurrences.count
            what = "the post"
        case .comment(let comment):
            if case .selected(let selector) = comment.target {
                if comment.content.segments.contains(where: { if case .target = $0 { true } else { false } }) {
                    return []  // each post's own fields make each comment different
                }
                runs = occurrences.count * selector.maxPerRun
            } else {
                runs = occurrences.count
            }
            templates = [comment.content]
            what = "the comment"
        default:
            return []
        }
        guard runs > 1 else { return [] }
        var variants: Set<String> = []
        for occurrence in occurrences.prefix(runs) {
            let context = TemplateContext(
                date: occurrence, timeZone: recipe.timeZone, agent: recipe.agent.value,
                seed: "\(recipe.seed)|\(job.id.value)|\(Int64(occurrence.timeIntervalSince1970))")
            variants.insert(ContentText.normalized(templates.map { $0.render(context) }.joined(separator: "\n")))
            if variants.count >= runs { return [] }
        }
        let span = DurationText.format(horizon)
        let message =
            variants.count == 1
            ? "\(what) says the same every time (\(runs) runs in the next \(span)): after the first, every copy "
                + "is skipped as a duplicate (Moltbook suspends agents for repeated content)"
            : "\(what) has \(variants.count) different texts for \(runs) runs in the next \(span): "
                + "\(runs - variants.count) will be skipped as duplicates (Moltbook suspends agents for repeated content)"
        return [
            Diagnostic(
                file: recipe.file, mark: templates[0].mark, severity: .warning, code: "lint-repeat",
                message: message,
                expected: "a text that changes with each run (`{{ post.title }}`, a date, a queue of drafts)")
        ]
    }
}
