import Foundation
import MoltbookAPI
import Recipes

/// Which inbound items a `reply:` or `dm:` step answers, and why it passes over the others
/// (issue 22). Pure: the items were read by the driver; the facts say what was answered before.
///
/// The order of the checks is the order of the reasons a person would give: not to itself,
/// not twice, not stale, not someone the recipe leaves out, not one level too deep (the loop
/// guard), and at most `max_per_run` a pass (the rest wait for the next one).
public struct InboundPlanner {
    /// An item passed over, and why.
    public struct Skip: Sendable, Equatable {
        public var id: String
        public var postID: String?
        public var about: String
        public var reason: String
        /// Passed over for good (its notifications may be marked read); false: it waits for a
        /// later pass (`max_per_run`).
        public var forGood: Bool
        /// Not worth a report line (the agent's own words, already answered).
        public var silent: Bool
    }

    /// The items to answer, and the others.
    public struct Plan: Sendable, Equatable {
        public var accepted: [Inbound] = []
        public var skipped: [Skip] = []
    }

    var identity: AgentIdentity
    var now: Date
    var alreadyDone: (PlannedWrite.Kind, String) -> Bool

    public init(identity: AgentIdentity, now: Date, alreadyDone: @escaping (PlannedWrite.Kind, String) -> Bool) {
        self.identity = identity
        self.now = now
        self.alreadyDone = alreadyDone
    }

    /// The inbound comments a reply step answers.
    public func replies(_ items: [Inbound], action: ReplyAction) -> Plan {
        plan(items, select: action.select, kind: .reply) { item in
            if item.depth >= action.loopGuard.maxDepth {
                return "loop guard: the comment is \(item.depth) replies deep (max_depth \(action.loopGuard.maxDepth))"
            }
            if item.mineInThread >= action.loopGuard.perThread {
                return "loop guard: the agent already answered \(Self.times(item.mineInThread)) in this thread "
                    + "(per_thread \(action.loopGuard.perThread))"
            }
            return nil
        }
    }

    /// The latest messages a dm step answers.
    public func messages(_ items: [Inbound], action: DirectMessageAction) -> Plan {
        plan(items, select: action.select, kind: .directMessage) { item in
            guard item.answersToday >= action.perConversation else { return nil }
            return "loop guard: the agent already answered \(Self.times(item.answersToday)) in this conversation today "
                + "(per_conversation \(action.perConversation))"
        }
    }

    /// The pending requests the step approves: only from the agents it names.
    public func approvals(_ requests: [InboundRead.Request], approve: DirectMessageAction.Approval) -> [InboundRead
        .Request]
    {
        requests.filter { request in
            guard !alreadyDone(.approveRequest, request.id) else { return false }
            switch approve {
            case .none: return false
            case .any: return true
            case .from(let names): return names.contains { $0.value.lowercased() == request.from.lowercased() }
            }
        }
    }

    static func times(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }

    private func plan(
        _ items: [Inbound], select: InboundSelector, kind: PlannedWrite.Kind, loopGuard: (Inbound) -> String?
    ) -> Plan {
        var plan = Plan()
        // ICU, as `validate` checks it and as selectors match (case-sensitive unless `(?i)`).
        let pattern = select.contentMatches.map { TargetFilter.compile($0.value) }
        let oldest = now.addingTimeInterval(-TimeInterval(select.maxAge))
        // Oldest first: a conversation is answered in the order it was spoken.
        let ordered = items.filter { select.sources.contains($0.source) }
            .sorted { ($0.createdAt ?? .distantPast, $0.id) < ($1.createdAt ?? .distantPast, $1.id) }
        var seen = Set<String>()
        for item in ordered where seen.insert(item.id).inserted {
            func skip(_ reason: String, forGood: Bool = true, silent: Bool = false) {
                plan.skipped.append(
                    Skip(
                        id: item.id, postID: item.postID, about: item.about, reason: reason, forGood: forGood,
                        silent: silent))
            }
            if identity.isSelf(AuthorRef(id: nil, name: item.author)) {
                skip("the agent's own words", silent: true)
            } else if item.answered || alreadyDone(kind, item.id) {
                skip("already answered", silent: true)
            } else if let created = item.createdAt, created < oldest {
                skip("older than max_age (\(DurationText.format(select.maxAge)))")
            } else if !select.authors.isEmpty,
                !select.authors.contains(where: { $0.lowercased() == item.author.lowercased() })
            {
                skip("@\(item.author) is not among the step's authors")
            } else if select.excludeAuthors.contains(where: { $0.lowercased() == item.author.lowercased() }) {
                skip("@\(item.author) is excluded (exclude_authors)")
            } else if let pattern, !TargetFilter.matches(pattern, item.content) {
                skip("the text does not match content_matches")
            } else if let reason = loopGuard(item) {
                skip(reason)
            } else if plan.accepted.count >= select.maxPerRun {
                skip("max_per_run \(select.maxPerRun) reached; answered on a later pass", forGood: false)
            } else {
                plan.accepted.append(item)
            }
        }
        return plan
    }
}
