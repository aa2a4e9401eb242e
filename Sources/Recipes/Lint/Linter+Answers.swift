import Foundation

extension Linter {
    /// The shortest gap between two runs of a job with a reply or dm step that is not a
    /// warning: each run reads `/home`, the notifications and the conversations.
    public static let inboxMinimumGap = 300

    /// A job that answers (a reply or dm step) and runs more often than every 5 minutes: each
    /// run reads the agent's inbox, spending the read budget for answers that could as well
    /// wait a few minutes (Moltbook's heartbeat.md suggests checking in every 30 minutes or so).
    static func inboxRate(_ job: Job, occurrences: [Date], file: String) -> [Diagnostic] {
        let answers = job.steps.contains { step in
            switch step.action {
            case .reply, .dm: true
            default: false
            }
        }
        guard answers, occurrences.count > 1 else { return [] }
        let gap = zip(occurrences, occurrences.dropFirst()).map { Int($1.timeIntervalSince($0)) }.min() ?? 0
        guard gap < inboxMinimumGap else { return [] }
        return [
            Diagnostic(
                file: file, mark: job.scheduleMark, severity: .warning, code: "lint-inbox",
                message: "job `\(job.id.value)` answers inbound items and runs every \(DurationText.format(gap)): "
                    + "each run reads the agent's inbox, spending the read budget",
                expected: "runs at least \(DurationText.format(inboxMinimumGap)) apart, e.g. `heartbeat: 30m`")
        ]
    }

    /// A reply or dm step whose text is the same for everyone it answers (a template that reads
    /// no `trigger.` or `post.` field): Moltbook suspends agents for repeated content, and the
    /// duplicate guard skips a text the agent already sent. A reply whose `max_per_day` is above
    /// the comment limit: the rest always wait.
    static func answerFindings(_ step: Step, limits: LimitProfile, file: String) -> [Diagnostic] {
        let content: CommentText
        let what: String
        var findings: [Diagnostic] = []
        switch step.action {
        case .reply(let reply):
            content = reply.content
            what = "the reply"
            if let cap = reply.maxPerDay, cap > limits.commentsPerDay {
                findings.append(
                    Diagnostic(
                        file: file, mark: step.mark, severity: .warning, code: "lint-rate",
                        message: "the reply step may answer \(cap) comments a day (max_per_day), the limit allows "
                            + "\(limits.commentsPerDay): the rest wait, and may age out (max_age)",
                        expected: "max_per_day ≤ \(limits.commentsPerDay)"))
            }
        case .dm(let message):
            content = message.content
            what = "the direct message"
        default:
            return []
        }
        if let template = content.template,
            !template.segments.contains(where: { if case .target = $0 { true } else { false } })
        {
            findings.append(
                Diagnostic(
                    file: file, mark: template.mark, severity: .warning, code: "lint-repeat",
                    message: "\(what) says the same to everyone it answers (it reads no `trigger.` or `post.` "
                        + "field): after the first, each copy is repeated content, which Moltbook suspends for",
                    expected: "a text that names what it answers (`{{ trigger.author }}`, `{{ trigger.content }}`) "
                        + "or `generate:`"))
        }
        return findings
    }
}
