import Foundation
import MoltbookAPI
import Recipes

/// Turns one step of one occurrence into concrete writes. Pure: a selector's posts are read by
/// the driver before (`AccountMachine.Action.fetch`) and handed in.
public struct StepExpander: Sendable {
    /// A write with its identity.
    public struct Expanded: Sendable, Equatable {
        public var key: String
        public var write: PlannedWrite
        /// `write.contentHash`, computed once (it is part of the key and of the journal entry).
        public var contentHash: String
        public var step: Int
        /// The queue index a post took from its content queue, if any.
        public var queueIndex: Int?
        /// The text is still to be written by a generator (the write has no title or content yet).
        public var generation: PendingText?
    }

    /// What a generated write's text is made from: the generator, and the post it answers.
    public struct PendingText: Sendable, Equatable {
        public var spec: GeneratorSpec
        public var target: Post?
        /// The topic queue's item the post is about, rendered (`title`, `content`, `url`).
        public var topic: [String: String]?
        /// What a reply or message answers, with its thread (issue 22).
        public var trigger: Inbound?
    }

    /// Why a step produced nothing.
    public enum Outcome: Sendable, Equatable {
        case writes([Expanded])
        /// A `reply:` or `dm:` step: the answers, and the inbound items passed over with why.
        case answers([Expanded], skipped: [InboundPlanner.Skip])
        /// The content queue is exhausted.
        case queueEmpty(String)

        /// The writes found, whichever kind of outcome holds them.
        public var found: [Expanded] {
            switch self {
            case .writes(let writes), .answers(let writes, _): writes
            case .queueEmpty: []
            }
        }
    }

    public var recipe: Recipe
    public var job: Job
    public var occurrence: OccurrencePlanner.Occurrence
    public var environment: [String: String]

    public init(recipe: Recipe, job: Job, occurrence: OccurrencePlanner.Occurrence, environment: [String: String]) {
        self.recipe = recipe
        self.job = job
        self.occurrence = occurrence
        self.environment = environment
    }

    /// The stable name of the recipe in keys and cursors (`Recipe.identity`).

    public var recipeID: String { recipe.identity }

    /// What a template is rendered against. The target's fields are text from other agents (a post's title, a
    /// reply's content): cleaned on the way in (`InboundText.clean`), so no control character or key-shaped
    /// string of theirs reaches a published write.
    func context(target: [String: String] = [:]) -> TemplateContext {
        TemplateContext(
            date: occurrence.nominal, timeZone: recipe.timeZone, agent: recipe.agent.value,
            target: target.mapValues(InboundText.clean),
            environment: environment.filter { recipe.environment.contains($0.key) },
            seed: "\(recipe.seed)|\(job.id.value)|\(Int64(occurrence.nominal.timeIntervalSince1970))")
    }

    func expanded(_ write: PlannedWrite, step: Int, queueIndex: Int? = nil) -> Expanded {
        let contentHash = write.contentHash
        return Expanded(
            key: PlannedWrite.idempotencyKey(
                recipe: recipeID, job: job.id.value, occurrence: occurrence.nominal, step: step, target: write.target,
                contentHash: contentHash),
            write: write, contentHash: contentHash, step: step, queueIndex: queueIndex)
    }

    /// A write whose text a generator writes. Its key leaves the text out (`generatedMarker`),
    /// so every text generated for this occurrence of the step and target is the same write:
    /// the journal keeps the first, and a retry sends that one.
    func generated(
        _ write: PlannedWrite, step: Int, spec: GeneratorSpec, target: Post? = nil, topic: [String: String]? = nil,
        queueIndex: Int? = nil, trigger: Inbound? = nil
    ) -> Expanded {
        Expanded(
            key: PlannedWrite.idempotencyKey(
                recipe: recipeID, job: job.id.value, occurrence: occurrence.nominal, step: step, target: write.target,
                contentHash: Self.generatedMarker),
            write: write, contentHash: "", step: step, queueIndex: queueIndex,
            generation: PendingText(spec: spec, target: target, topic: topic, trigger: trigger))
    }

    /// What stands for the text in a generated write's key.
    static let generatedMarker = "generated"

    /// Expands step `index`.
    ///
    /// - Parameters:
    ///   - queuePosition: the next unposted item of the step's content queue.
    ///   - selection: the posts the step's selector found (read by the driver); ignored by steps
    ///     that name their targets.
    ///   - alreadyDone: whether this step must not act on a target again with a kind of write
    ///     (dedup facts).
    ///   - identity: who the agent is on the server (`not_mine`); the recipe's agent name by default.
    public func expand(
        step index: Int, queuePosition: Int, now: Date, identity: AgentIdentity? = nil,
        selection: [Post] = [], inbound: InboundRead? = nil, alreadyDone: (PlannedWrite.Kind, String) -> Bool
    ) -> Outcome {
        let identity = identity ?? AgentIdentity(name: recipe.agent.value)
        let step = job.steps[index]
        switch step.action {
        case .post(let action):
            switch action.body {
            case .inline(let title, let content, let url):
                let context = context()
                return .writes([
                    expanded(
                        PlannedWrite(
                            kind: .post, submolt: action.submolt.value, title: title.render(context),
                            content: content?.render(context), url: url?.render(context)), step: index)
                ])
            case .queue(let queue):
                guard queuePosition < queue.items.count else { return .queueEmpty(queue.path.value) }
                let item = queue.items[queuePosition]
                let context = context()
                let write = PlannedWrite(
                    kind: .post, submolt: action.submolt.value, title: item.title.render(context),
                    content: item.content?.render(context), url: item.url?.render(context))
                return .writes([expanded(write, step: index, queueIndex: queuePosition)])
            case .generated(let spec):
                let write = PlannedWrite(kind: .post, submolt: action.submolt.value)
                guard let topics = action.topics else { return .writes([generated(write, step: index, spec: spec)]) }
                guard queuePosition < topics.items.count else { return .queueEmpty(topics.path.value) }
                let item = topics.items[queuePosition]
                let context = context()
                var topic = ["title": item.title.render(context)]
                topic["content"] = item.content?.render(context)
                topic["url"] = item.url?.render(context)
                return .writes([
                    generated(write, step: index, spec: spec, topic: topic, queueIndex: queuePosition)
                ])
            }
        case .comment(let action):
            switch action.target {
            case .post(let id, let replyTo):
                switch action.content {
                case .template(let template):
                    let write = PlannedWrite(
                        kind: .comment, target: id.value, content: template.render(context()),
                        parentID: replyTo?.value)
                    return .writes([expanded(write, step: index)])
                case .generated(let spec):
                    let write = PlannedWrite(kind: .comment, target: id.value, parentID: replyTo?.value)
                    return .writes([generated(write, step: index, spec: spec)])
                }
            case .selected(let selector):
                let fetched = selection
                let posts = TargetFilter.select(
                    fetched, selector: selector, identity: identity, now: now,
                    excluded: Self.done(.comment, among: fetched, alreadyDone))
                return .writes(
                    posts.map { post in
                        switch action.content {
                        case .template(let template):
                            let content = template.render(context(target: TargetFilter.templateFields(of: post)))
                            return expanded(
                                PlannedWrite(kind: .comment, target: post.id, content: content, oncePerTarget: true),
                                step: index)
                        case .generated(let spec):
                            return generated(
                                PlannedWrite(kind: .comment, target: post.id, oncePerTarget: true), step: index,
                                spec: spec, target: post)
                        }
                    })
            }
        case .vote(let action):
            // Every direction and target is named: a new one is decided here, not defaulted.
            let kind: PlannedWrite.Kind
            switch (action.ensure, action.target) {
            case (.upvoted, .post), (.upvoted, .selected): kind = .upvotePost
            case (.downvoted, .post), (.downvoted, .selected): kind = .downvotePost
            case (.upvoted, .comment): kind = .upvoteComment
            case (.downvoted, .comment): kind = .downvoteComment
            }
            switch action.target {
            case .post(let id), .comment(let id):
                return .writes(
                    alreadyDone(kind, id.value)
                        ? [] : [expanded(PlannedWrite(kind: kind, target: id.value), step: index)])
            case .selected(let selector):
                let fetched = selection
                let posts = TargetFilter.select(
                    fetched, selector: selector, identity: identity, now: now,
                    excluded: Self.done(kind, among: fetched, alreadyDone))
                return .writes(posts.map { expanded(PlannedWrite(kind: kind, target: $0.id), step: index) })
            }
        case .follow(let names):
            return .writes(ensure(.follow, names.map(\.value), step: index, alreadyDone: alreadyDone))
        case .unfollow(let names):
            return .writes(ensure(.unfollow, names.map(\.value), step: index, alreadyDone: alreadyDone))
        case .subscribe(let names):
            return .writes(ensure(.subscribe, names.map(\.value), step: index, alreadyDone: alreadyDone))
        case .unsubscribe(let names):
            return .writes(ensure(.unsubscribe, names.map(\.value), step: index, alreadyDone: alreadyDone))
        case .reply(let action):
            let plan = withoutActuallyEscaping(alreadyDone) { done in
                InboundPlanner(identity: identity, now: now, alreadyDone: done).replies(
                    inbound?.items ?? [], action: action)
            }
            return .answers(
                plan.accepted.map { answer(.reply, to: $0, content: action.content, step: index) },
                skipped: plan.skipped)
        case .dm(let action):
            let read = inbound ?? InboundRead()
            let (approved, plan) = withoutActuallyEscaping(alreadyDone) { done in
                let planner = InboundPlanner(identity: identity, now: now, alreadyDone: done)
                return (
                    planner.approvals(read.requests, approve: action.approve),
                    planner.messages(read.items, action: action)
                )
            }
            let approvals = approved.map { request in
                var write = PlannedWrite(kind: .approveRequest, target: request.id)
                write.about = "from @\(request.from)"
                return expanded(write, step: index)
            }
            return .answers(
                approvals + plan.accepted.map { answer(.directMessage, to: $0, content: action.content, step: index) },
                skipped: plan.skipped)
        }
    }

    /// The write answering `trigger`: a reply under the comment (or on the post that mentions
    /// the agent), or a message in the conversation.
    func answer(_ kind: PlannedWrite.Kind, to trigger: Inbound, content: CommentText, step: Int) -> Expanded {
        var write = PlannedWrite(kind: kind, target: trigger.id)
        write.about = trigger.about
        if kind == .reply {
            write.post = trigger.postID
            write.parentID = trigger.commentID
        } else {
            write.conversation = trigger.conversationID
        }
        switch content {
        case .template(let template):
            write.content = template.render(context(target: trigger.templateFields))
            return expanded(write, step: step)
        case .generated(let spec):
            return generated(write, step: step, spec: spec, trigger: trigger)
        }
    }

    func ensure(
        _ kind: PlannedWrite.Kind, _ names: [String], step: Int, alreadyDone: (PlannedWrite.Kind, String) -> Bool
    ) -> [Expanded] {
        names.filter { !alreadyDone(kind, $0) }.map { expanded(PlannedWrite(kind: kind, target: $0), step: step) }
    }

    /// The ids of `posts` already acted on with `kind`.
    static func done(
        _ kind: PlannedWrite.Kind, among posts: [Post], _ alreadyDone: (PlannedWrite.Kind, String) -> Bool
    ) -> Set<String> {
        Set(posts.map(\.id).filter { alreadyDone(kind, $0) })
    }
}
