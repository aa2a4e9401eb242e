import Foundation
import MoltbookAPI
import Recipes

/// What another agent was asked for a `reply:` or `dm:` step (issue 22).
struct InboundQuery: Sendable, Equatable {
    var select: InboundSelector
    /// A `dm:` step (direct messages and requests); else comments (replies, mentions).
    var messages: Bool
}

/// Answering (issue 22): a `reply:` or `dm:` step asks the driver for its inbound items
/// (`.fetchInbound`, read once per pass however many steps ask), expands them into answers with
/// `InboundPlanner`, and tells the driver which items it passed over for good and which it
/// wants (`.inboundDisposition`), so notifications are marked read only for items settled.
extension PlanningMachine {
    mutating func selectInbound(
        _ query: InboundQuery, position: Int, in work: inout JobWork, into actions: inout [Action]
    ) -> Action? {
        // "Mine" is the server's name for the agent: made first, the client tells it.
        if !known.identityKnown, !work.at.clientAsked { return .prepareClient }
        guard let result = work.at.inbound else { return .fetchInbound(query) }
        work.at.inbound = nil
        work.at.clientAsked = false
        switch result {
        case .success(let read):
            if let reason = read.unavailable {
                // Nothing to answer here, for a reason the server or the agent's age gives.
                actions.append(
                    .line(line(work.recipe, work.job, work.job.steps[work.at.step].action.keyword, .skipped, reason)))
                work.nextStep()
                return nil
            }
            if !read.unreadable.isEmpty {
                // Part of the inbox could not be read: what was read is answered, and the rest
                // is said, so a 404 on one route never reads as "nothing to answer".
                actions.append(
                    .line(
                        line(
                            work.recipe, work.job, "read direct messages", .failed,
                            "cannot read: " + read.unreadable.joined(separator: "; "))))
                work.at.inboundPartial = true
            }
            work.at.inboundRead = read
            work.at.stage = .expanding(position: position, selection: [])
            return nil
        case .failure(let error):
            let failure = Self.selectionFailure(error)
            actions.append(
                .line(
                    line(
                        work.recipe, work.job, "read \(query.messages ? "direct messages" : "replies")",
                        failure.outcome,
                        failure.reason, failure.until)))
            if failure.retry, !(error is ReadDeferred) { actions.append(.transientFailure) }
            if failure.retry {
                deferStep(&work, what: "read \(query.messages ? "direct messages" : "replies")", failure)
            }
            work.nextStep()
            return nil
        }
    }

    /// Report lines for the items passed over (not the agent's own words or those answered
    /// before: they come back every pass until read), and the disposition of every item.
    func report(
        _ skipped: [InboundPlanner.Skip], answering writes: [StepExpander.Expanded], in work: JobWork,
        into actions: inout [Action]
    ) {
        for skip in skipped where !skip.silent {
            let what = skip.postID.map { "reply to \(skip.about) on \($0)" } ?? "answer \(skip.about)"
            actions.append(.line(line(work.recipe, work.job, what, .skipped, skip.reason)))
        }
        let wanted = writes.compactMap { $0.write.kind == .approveRequest ? nil : $0.write.target }
        actions.append(
            .inboundDisposition(
                skipped: Set(skipped.filter(\.forGood).map(\.id)),
                wanted: Set(wanted + skipped.filter { !$0.forGood }.map(\.id))))
    }
}
