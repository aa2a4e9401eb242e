import Foundation
import MoltbookAPI
import Recipes

/// What planning asks of a step, and the duplicate guard's check of what it expanded to.
extension PlanningMachine {
    /// Whether the step picks its targets with a selector or answers inbound items (so finding
    /// none is worth a line).
    static func selects(_ step: Step) -> Bool { selector(of: step) != nil || inbound(of: step) != nil }

    /// What a `reply:` or `dm:` step reads: its inbound selector, and whether it is about DMs.
    static func inbound(of step: Step) -> InboundQuery? {
        switch step.action {
        case .reply(let action): InboundQuery(select: action.select, messages: false)
        case .dm(let action): InboundQuery(select: action.select, messages: true)
        case .post, .comment, .vote, .follow, .unfollow, .subscribe, .unsubscribe: nil
        }
    }

    /// The step's selector, if it picks its targets with one.
    static func selector(of step: Step) -> Selector? {
        switch step.action {
        case .comment(let action): if case .selected(let selector) = action.target { return selector }
        case .vote(let action): if case .selected(let selector) = action.target { return selector }
        case .post, .follow, .unfollow, .subscribe, .unsubscribe, .reply, .dm: break
        }
        return nil
    }

    /// The step's `max_per_day`, if any.
    static func maxPerDay(_ step: Step) -> Int? {
        switch step.action {
        case .post(let action): action.maxPerDay
        case .comment(let action): action.maxPerDay
        case .vote(let action): action.maxPerDay
        case .reply(let action): action.maxPerDay
        case .dm(let action): action.maxPerDay
        case .follow, .unfollow, .subscribe, .unsubscribe: nil
        }
    }

    /// The step's content queue, if it posts from one.
    static func queue(of step: Step) -> ContentQueue? {
        if case .post(let action) = step.action { return action.queue }
        return nil
    }

    /// A selection read that failed: the report line, and whether trying the occurrence again
    /// next pass can help (a deferred read, a transient failure) or not (a refusal).
    struct SelectionFailure: Equatable {
        var outcome: RunReport.Item.Outcome
        var reason: String
        var until: Date?
        var retry: Bool
    }

    static func selectionFailure(_ error: any Error) -> SelectionFailure {
        if let deferred = error as? ReadDeferred {
            return SelectionFailure(outcome: .deferred, reason: deferred.reason, until: deferred.until, retry: true)
        }
        if let error = error as? APIError,
            [.notFound, .methodNotAllowed, .badRequest, .forbidden, .invalidRequest].contains(error.code)
        {
            let reason = "selection refused by the server: \(error.message); skipped for this occurrence"
            return SelectionFailure(outcome: .failed, reason: reason, retry: false)
        }
        return SelectionFailure(outcome: .deferred, reason: "selection failed: \(error); tried again", retry: true)
    }

    /// `writes` without the posts and comments that repeat content the agent sent or planned
    /// (the duplicate guard, `AccountPass+Duplicates`). Needs `known.contentSeen`.
    mutating func withoutDuplicates(
        _ writes: [StepExpander.Expanded], in work: inout JobWork, queue: ContentQueue?,
        into actions: inout [Action]
    ) -> [StepExpander.Expanded] {
        var kept: [StepExpander.Expanded] = []
        for expanded in writes {
            guard let duplicate = duplicate(of: expanded, in: &work) else {
                kept.append(expanded)
                continue
            }
            if let index = expanded.queueIndex, let queue {
                work.planned.taken.insert(QueueLedger.fingerprint(queue.items[index]))
            }
            actions.append(.line(line(work.recipe, work.job, expanded.write.summary, .skipped, duplicate.reason)))
            actions.append(.duplicateSkipped(action: expanded.write.summary, earlier: duplicate.when))
            // An answer that would repeat earlier text is passed over for good: its
            // notifications may be marked read, or every pass would refuse it again.
            if expanded.write.kind == .reply, let trigger = expanded.write.target {
                actions.append(.inboundDeclined(trigger))
            }
        }
        return kept
    }

    /// An earlier text the write repeats, in words.
    struct Duplicate {
        var when: String
        var reason: String
    }

    /// The earlier text `expanded` repeats, or nil: then its text is noted as planned, so a later
    /// write of the pass that repeats it is caught. Needs `known.contentSeen`.
    mutating func duplicate(of expanded: StepExpander.Expanded, in work: inout JobWork) -> Duplicate? {
        // A write whose text is still to be generated has none to compare yet.
        guard expanded.generation == nil, let print = ContentFingerprint(expanded.write) else { return nil }
        let seen = known.contentSeen ?? ContentSightings()
        // Sent within this recipe's window, or still waiting to be sent (whatever its age).
        let earliest = now.addingTimeInterval(-TimeInterval(work.recipe.duplicateWindow))
        guard let found = seen.repeated(by: print, planned: work.planned.content, except: expanded.key, since: earliest)
        else {
            let sighting = ContentSighting(
                kind: ContentFingerprint.ledgerKind(expanded.write.kind), at: now, journalKey: expanded.key,
                excerpt: AccountPass.excerpt(expanded.write), sent: false, sketch: print.sketch)
            for exact in print.exacts where work.planned.content[exact] == nil {
                work.planned.content[exact] = sighting
            }
            return nil
        }
        let (when, reason) = ContentSightings.describe(
            found, consequence: "not sent: Moltbook suspends agents for repeated content")
        return Duplicate(when: when, reason: reason)
    }
}
