import Foundation
import Generation
import MoltbookAPI
import Recipes

/// Generated text (issue 21): a step whose title or content a generator writes asks the driver
/// for each write's text (`.generate`), checks what comes back (the fields' limits, the secret
/// scan, the deny-list, the duplicate guard), asks again up to the step's `attempts` when a
/// check refuses it, and records the write with its text. The text is journaled in the write's
/// payload in the same transaction as the cursor, so a retry (a 429, a challenge, a kill before
/// sending) sends that text, never a new one.
///
/// A text still being written (`.pending`: the daemon generates in the background, so a slow
/// generator holds up only its own job) withholds the whole job: nothing of it is journaled and
/// its cursor stays, so a later pass plans the same occurrences under the same keys and finds
/// the texts ready.
extension PlanningMachine {
    /// Where the generation of one step's writes stands.
    struct GenerationWork {
        var occurrence: OccurrencePlanner.Occurrence
        var writes: [StepExpander.Expanded]
        var index = 0
        var attempt = 1
        var refusal: String?
        var answer: GenerationAnswer?
        /// The current write's post and thread, once read (`.some(nil)`: asked, not readable).
        var thread: GenerationThread??
        var kept: [StepExpander.Expanded] = []
        var pending = 0
    }

    /// Starts generating when the step's writes need text; false when none does.
    mutating func startGeneration(
        _ outcome: StepExpander.Outcome, occurrence: OccurrencePlanner.Occurrence, in work: inout JobWork,
        into actions: inout [Action]
    ) -> Bool {
        guard case .writes(var writes) = outcome, writes.contains(where: { $0.generation != nil }) else { return false }
        let step = work.job.steps[work.at.step]
        // `max_per_day` cuts before generating: a text nobody may send is not worth writing.
        if let cap = Self.maxPerDay(step) {
            let counter = DailyCounts.key(work.recipe.identity, work.job.id.value, work.at.step)
            let day = DailyCounts.day(of: occurrence.nominal, in: work.recipe.timeZone)
            let allowed = max(0, cap - work.planned.dailyCounts.used(counter, day: day))
            if writes.count > allowed {
                actions.append(
                    .line(
                        line(
                            work.recipe, work.job, step.action.keyword, .skipped,
                            "max_per_day \(cap) reached for \(day) (\(writes.count - allowed) not planned)")))
                writes = Array(writes.prefix(allowed))
            }
        }
        work.at.generation = GenerationWork(occurrence: occurrence, writes: writes)
        work.at.stage = .generating
        return true
    }

    /// Runs the generation on: the next request, or the step's record when every write has its
    /// answer.
    mutating func generate(_ work: inout JobWork, into actions: inout [Action]) -> Action? {
        guard var generation = work.at.generation else {
            work.nextStep()
            return nil
        }
        defer { work.at.generation = generation }
        while generation.index < generation.writes.count {
            let expanded = generation.writes[generation.index]
            guard let pending = expanded.generation else {
                generation.kept.append(expanded)
                generation.index += 1
                continue
            }
            // A comment on a named post: the post (and a reply's thread) is read once first.
            if pending.target == nil, expanded.write.kind == .comment, generation.thread == nil,
                let postID = expanded.write.target
            {
                return .readThread(postID: postID, replyTo: expanded.write.parentID)
            }
            guard let answer = generation.answer else {
                return .generate(request(for: expanded, pending, generation, in: work))
            }
            generation.answer = nil
            settle(answer, for: expanded, spec: pending.spec, generation: &generation, in: &work, into: &actions)
        }
        if generation.pending > 0 {
            work.planned.withheld = true
            actions.append(.generationPending(generation.pending))
            actions.append(
                .line(
                    line(
                        work.recipe, work.job,
                        generation.writes.first.map { Self.generatedSummary($0.write) }
                            ?? work.job.steps[work.at.step].action.keyword, .deferred,
                        "waiting for the generator (\(generation.pending) text\(generation.pending == 1 ? "" : "s") "
                            + "being written); the job is planned when they are ready")))
        } else if !generation.kept.isEmpty {
            record(
                .writes(generation.kept), occurrence: generation.occurrence,
                queue: Self.queue(of: work.job.steps[work.at.step]), in: &work, into: &actions)
        }
        generation = GenerationWork(occurrence: generation.occurrence, writes: [])
        work.at.generation = nil
        work.nextStep()
        return nil
    }

    /// Takes one answer: the write with its text, another attempt, or the write skipped.
    private mutating func settle(
        _ answer: GenerationAnswer, for expanded: StepExpander.Expanded, spec: GeneratorSpec,
        generation: inout GenerationWork, in work: inout JobWork, into actions: inout [Action]
    ) {
        func next() {
            generation.index += 1
            generation.attempt = 1
            generation.refusal = nil
            generation.thread = nil
        }
        let what = Self.generatedSummary(expanded.write)
        switch answer {
        case .pending:
            // Its target counts as acted on for the rest of the pass: a later occurrence of the
            // job must not pick it again and have a second text written for it.
            if let target = expanded.write.target { known.facts?.add(expanded.write.kind, [target]) }
            generation.pending += 1
            next()
        case .skip(let reason):
            actions.append(.line(line(work.recipe, work.job, what, .skipped, "the generator skipped it: \(reason)")))
            settledForGood(expanded, into: &actions)
            next()
        case .failed(let reason):
            actions.append(
                .line(
                    line(
                        work.recipe, work.job, what, .failed,
                        "generation failed: \(reason); the next occurrence tries again")))
            actions.append(.generationFailed(job: "\(work.recipe.name)/\(work.job.id.value)", reason: reason))
            next()
        case .text(let text):
            switch fill(expanded, with: text, spec: spec, in: &work) {
            case .success(let filled):
                actions.append(.generationSucceeded(job: "\(work.recipe.name)/\(work.job.id.value)"))
                generation.kept.append(filled)
                next()
            case .failure(let refusal):
                guard generation.attempt < spec.attempts else {
                    let tries = spec.attempts == 1 ? "" : " (\(spec.attempts) attempts)"
                    let reason = "generated text refused\(tries): \(refusal.reason)"
                    actions.append(
                        .line(line(work.recipe, work.job, what, .skipped, reason + "; skipped for this occurrence")))
                    // Not a failure of this run, but a streak of them needs someone (health).
                    actions.append(.generationRefused(job: "\(work.recipe.name)/\(work.job.id.value)", reason: reason))
                    settledForGood(expanded, into: &actions)
                    next()
                    return
                }
                generation.attempt += 1
                generation.refusal = refusal.reason
            }
        }
    }

    /// An answer the generator declined, or whose every text was refused, is passed over for good:
    /// its notifications may be marked read (a failure is not: the next pass tries again).
    private func settledForGood(_ expanded: StepExpander.Expanded, into actions: inout [Action]) {
        guard expanded.write.kind == .reply || expanded.write.kind == .directMessage, let id = expanded.write.target
        else { return }
        actions.append(.inboundDeclined(id))
    }

    /// The write with the generated text, or why the text cannot be sent.
    private mutating func fill(
        _ expanded: StepExpander.Expanded, with text: GeneratedText, spec: GeneratorSpec, in work: inout JobWork
    ) -> Result<StepExpander.Expanded, GeneratedTextCheck.Refusal> {
        let fields: (String?, String)
        switch GeneratedTextCheck.fields(of: text, for: expanded.write.kind) {
        case .success(let found): fields = found
        case .failure(let refusal): return .failure(refusal)
        }
        if let refusal = GeneratedTextCheck.refusal(
            title: fields.0, content: fields.1, kind: expanded.write.kind, deny: spec.deny.map(\.value))
        {
            return .failure(refusal)
        }
        var filled = expanded
        filled.write.title = fields.0
        filled.write.content = fields.1
        filled.contentHash = filled.write.contentHash
        filled.generation = nil
        if let duplicate = duplicate(of: filled, in: &work) {
            return .failure(
                GeneratedTextCheck.Refusal(duplicate.reason.replacingOccurrences(of: "; not sent:", with: ";")))
        }
        return .success(filled)
    }

    /// The request for one attempt at `expanded`'s text.
    private func request(
        for expanded: StepExpander.Expanded, _ pending: StepExpander.PendingText, _ generation: GenerationWork,
        in work: JobWork
    ) -> GenerationRequest {
        var pending = pending
        let thread = generation.thread ?? nil
        if pending.target == nil { pending.target = thread?.post }
        return GenerationRequest.make(
            for: expanded, pending, agent: agent, recipe: work.recipe, job: work.job,
            occurrence: generation.occurrence, attempt: generation.attempt, refusal: generation.refusal,
            recentTitles: recentTitles(in: work), thread: thread?.chain ?? [], environment: environment)
    }

    /// The agent's recent posts and comments (first lines), newest first, at most 20.
    private func recentTitles(in work: JobWork) -> [String] {
        ContentSightings.recentTitles((known.contentSeen?.all ?? []) + Array(work.planned.content.values))
    }

    /// A generated write in report lines, before its text exists.
    static func generatedSummary(_ write: PlannedWrite) -> String {
        switch write.kind {
        case .post: "post to m/\(write.submolt ?? "?") (generated)"
        case .comment: "comment on \(write.target ?? "?") (generated)"
        case .reply: "reply to \(write.about ?? write.target ?? "?") (generated)"
        case .directMessage: "dm \(write.about ?? write.conversation ?? "?") (generated)"
        case .approveRequest: write.summary
        case .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe,
            .unsubscribe:
            write.summary
        }
    }
}
