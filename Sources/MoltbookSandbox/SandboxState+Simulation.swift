import Determinism
import Foundation

/// The simulated agents at work (`SandboxConfig.simulation`, docs/sandbox.md "Simulated agents").
///
/// Causes schedule events (a real agent's post, its reply to a simulated comment, its DM, an
/// approval; and two recurring draws: mention posts and DM requests); `advanceSimulation(to:)`
/// applies every event due by the request's `now`, in time order, dated at the event's instant.
/// All their randomness comes from the simulation's own seeded stream, in the order of events.
extension SandboxState {
    /// Makes the simulated agents, starts the recurring draws and applies every event due by `now`.
    /// With the simulation off, drops whatever was still scheduled.
    mutating func advanceSimulation(to now: Date) {
        let settings = config.simulation
        guard settings.isOn else {
            simulation.queue.removeAll()
            simulation.mentionTicking = false
            simulation.dmTicking = false
            return
        }
        makeSimulatedAgents(settings.agents, now: now)
        if !simulation.mentionTicking, settings.mentionPostsPerDay > 0 {
            simulation.mentionTicking = true
            simulation.schedule(
                .mentionPost, at: now.addingTimeInterval(simulation.interval(perDay: settings.mentionPostsPerDay)))
        }
        if !simulation.dmTicking, settings.dmRequestsPerDay > 0 {
            simulation.dmTicking = true
            simulation.schedule(
                .dmRequest, at: now.addingTimeInterval(simulation.interval(perDay: settings.dmRequestsPerDay)))
        }
        while let event = simulation.queue.first, event.at <= now {
            simulation.queue.removeFirst()
            run(event)
        }
    }

    /// Registers simulated agents until there are `count`: claimed, 30 days old, named `sim-<word>`
    /// (a name a real agent already has is skipped).
    private mutating func makeSimulatedAgents(_ count: Int, now: Date) {
        while simulation.agentIDs.count < count {
            let name = SimulatedText.agentName(simulation.nameIndex)
            simulation.nameIndex += 1
            guard agentID(named: name) == nil else { continue }
            var agent = SandboxAgent(
                id: simulation.random.uuid(), name: name, description: "A simulated agent of the sandbox",
                apiKey: "moltbook_sk_" + simulation.random.token(32, alphabet: SeededRandom.urlSafe),
                claimToken: "moltbook_claim_" + simulation.random.token(32, alphabet: SeededRandom.urlSafe),
                verificationCode: "sim-" + simulation.random.token(4, alphabet: SeededRandom.upperAlnum),
                createdAt: now.addingTimeInterval(-30 * 86_400), lastActive: now, claimed: true)
            agent.isSimulated = true
            agents[agent.id] = agent
            agentIDByKey[agent.apiKey] = agent.id
            agentIDByName[name.lowercased()] = agent.id
            simulation.agentIDs.append(agent.id)
        }
    }

    /// The simulated agents in play (the first `agents` made).
    private var activeSimulatedAgents: [String] {
        Array(simulation.agentIDs.prefix(config.simulation.agents))
    }

    /// Whether the simulated agents react to this agent: not simulated, and named in `targets` when it is set.
    private func isSimulationTarget(_ agentID: String) -> Bool {
        guard let agent = agents[agentID], !agent.isSimulated else { return false }
        let targets = config.simulation.targets
        return targets.isEmpty || targets.contains { $0.lowercased() == agent.name.lowercased() }
    }

    /// Every agent the simulated ones react to, oldest first.
    private func simulationTargets() -> [String] {
        agents.values.filter { isSimulationTarget($0.id) }.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
            .map(\.id)
    }

    // MARK: Causes

    /// A real agent's post: `min…max_comments_per_post` simulated agents will comment on it.
    mutating func simulationSawPost(_ post: SandboxPost, at time: Date) {
        let settings = config.simulation
        guard settings.isOn, isSimulationTarget(post.authorID) else { return }
        var pool = activeSimulatedAgents
        let wanted = min(
            pool.count, simulation.random.int(in: settings.minCommentsPerPost...settings.maxCommentsPerPost))
        for _ in 0..<wanted {
            let agent = pool.remove(at: simulation.random.index(pool.count))
            let delay = simulation.delay(settings.commentDelayMinSeconds, settings.commentDelayMaxSeconds)
            let mention = simulation.random.chance(settings.mentionProbability)
            let upvote = simulation.random.chance(settings.upvoteProbability)
            let maxReplies = simulation.count(upTo: settings.maxReplyDepth, atLeastOne: true)
            simulation.schedule(
                .comment(agent: agent, post: post.id, mention: mention, upvote: upvote, maxReplies: maxReplies),
                at: time.addingTimeInterval(delay))
        }
    }

    /// A real agent's comment: when it answers a simulated agent (its comment, or a top-level
    /// comment on its post), that agent may answer back, within its thread's bounds.
    mutating func simulationSawComment(_ comment: SandboxComment, at time: Date) {
        let settings = config.simulation
        guard settings.isOn, isSimulationTarget(comment.authorID) else { return }
        let key: String
        if let parentID = comment.parentID {
            guard let thread = simulation.threadOfComment[parentID] else { return }
            key = thread
        } else {
            guard let post = posts[comment.postID], agents[post.authorID]?.isSimulated == true else { return }
            key = "post:" + post.id
        }
        guard var thread = simulation.threads[key], !thread.closed, thread.replies < thread.maxReplies else { return }
        let probability = settings.replyProbability * pow(settings.replyDecay, Double(thread.replies))
        if simulation.random.chance(probability) {
            thread.replies += 1
            let delay = simulation.delay(settings.replyDelayMinSeconds, settings.replyDelayMaxSeconds)
            let mention = simulation.random.chance(settings.mentionProbability)
            simulation.schedule(
                .reply(agent: thread.agentID, post: comment.postID, parent: comment.id, thread: key, mention: mention),
                at: time.addingTimeInterval(delay))
        } else {
            thread.closed = true
        }
        simulation.threads[key] = thread
    }

    /// A real agent's DM request to a simulated agent: its human may approve it.
    mutating func simulationSawRequest(_ conversation: SandboxConversation, at time: Date) {
        guard config.simulation.isOn, activeSimulatedAgents.contains(conversation.recipientID),
            isSimulationTarget(conversation.initiatorID)
        else { return }
        adopt(conversation, agent: conversation.recipientID, at: time)
    }

    /// An approved conversation with a simulated agent: its unprompted messages are scheduled, and
    /// a real agent's request message may be answered.
    mutating func simulationSawApproval(_ conversation: SandboxConversation, at time: Date) {
        let settings = config.simulation
        guard settings.isOn, let state = simulation.conversations[conversation.id] else { return }
        for _ in 0..<state.followups {
            let delay = simulation.delay(settings.commentDelayMinSeconds, settings.commentDelayMaxSeconds)
            simulation.schedule(
                .message(agent: state.agentID, conversation: conversation.id, answer: false),
                at: time.addingTimeInterval(delay))
        }
        if conversation.initiatorID != state.agentID, let first = conversation.messages.first {
            simulationSawMessage(first, in: conversation, at: time)
        }
    }

    /// A real agent's message to a simulated agent: answered with `dm_answer_probability`, at most
    /// the conversation's answer budget; a message left unanswered ends the answers.
    mutating func simulationSawMessage(_ message: SandboxMessage, in conversation: SandboxConversation, at time: Date) {
        let settings = config.simulation
        guard settings.isOn, var state = simulation.conversations[conversation.id], message.senderID != state.agentID,
            isSimulationTarget(message.senderID), state.answersLeft > 0
        else { return }
        if simulation.random.chance(settings.dmAnswerProbability) {
            state.answersLeft -= 1
            let delay = simulation.delay(settings.replyDelayMinSeconds, settings.replyDelayMaxSeconds)
            simulation.schedule(
                .message(agent: state.agentID, conversation: conversation.id, answer: true),
                at: time.addingTimeInterval(delay))
        } else {
            state.answersLeft = 0
        }
        simulation.conversations[conversation.id] = state
    }

    /// Takes a conversation with a simulated agent in hand: its budgets, and maybe the human's approval.
    private mutating func adopt(_ conversation: SandboxConversation, agent: String, at time: Date) {
        let settings = config.simulation
        simulation.conversations[conversation.id] = SimulationState.Conversation(
            agentID: agent, answersLeft: simulation.count(upTo: settings.dmMaxAnswers, atLeastOne: true),
            followups: simulation.count(upTo: settings.dmFollowupsMax, atLeastOne: false))
        if simulation.random.chance(settings.dmAutoApproveFraction) {
            let delay = simulation.delay(settings.approveDelayMinSeconds, settings.approveDelayMaxSeconds)
            simulation.schedule(.approve(conversation: conversation.id), at: time.addingTimeInterval(delay))
        }
    }

    // MARK: Events

    /// Applies one event at its own instant; one whose target is gone does nothing.
    private mutating func run(_ event: SimulationState.Event) {
        let settings = config.simulation
        let time = event.at
        var happened = false
        switch event.kind {
        case .comment(let agent, let postID, let mention, let upvote, let maxReplies):
            guard let post = posts[postID], !post.deleted, post.status.isVisible else { break }
            let targets = mention ? simulationTargets() : []
            let named = targets.isEmpty ? nil : agents[targets[simulation.random.index(targets.count)]]?.name
            let text = SimulatedText.comment(on: post.title, mention: named, random: &simulation.random)
            let comment = simulatedComment(by: agent, on: postID, parent: nil, text, at: time)
            simulation.threads[comment.id] = SimulationState.Thread(agentID: agent, maxReplies: maxReplies)
            simulation.threadOfComment[comment.id] = comment.id
            if upvote, simulatedUpvote(by: agent, postID: postID, at: time) {
                counters.simulatedEvents["upvote", default: 0] += 1
            }
            happened = true
        case .reply(let agent, let postID, let parentID, let thread, let mention):
            guard let post = posts[postID], !post.deleted, let parent = comments[parentID] else { break }
            let named = mention ? agents[parent.authorID]?.name : nil
            let text = SimulatedText.reply(mention: named, random: &simulation.random)
            let comment = simulatedComment(by: agent, on: post.id, parent: parentID, text, at: time)
            simulation.threadOfComment[comment.id] = thread
            happened = true
        case .mentionPost:
            happened = simulatedMentionPost(at: time)
            if settings.mentionPostsPerDay > 0 {
                simulation.schedule(
                    .mentionPost, at: time.addingTimeInterval(simulation.interval(perDay: settings.mentionPostsPerDay)))
            } else {
                simulation.mentionTicking = false
            }
        case .dmRequest:
            happened = simulatedRequest(at: time)
            if settings.dmRequestsPerDay > 0 {
                simulation.schedule(
                    .dmRequest, at: time.addingTimeInterval(simulation.interval(perDay: settings.dmRequestsPerDay)))
            } else {
                simulation.dmTicking = false
            }
        case .approve(let id):
            guard let conversation = inbox.conversations[id], conversation.status == .pending else { break }
            _ = decide(conversation, approve: true, block: false, by: "human", now: time)
            happened = true
        case .message(let agent, let id, let answer):
            guard inbox.conversations[id]?.status == .approved else { break }
            let text = SimulatedText.message(answer: answer, random: &simulation.random)
            inbox.conversations[id]?.messages.append(
                SandboxMessage(id: inboxRandom.uuid(), senderID: agent, content: text, createdAt: time))
            happened = true
        }
        if happened { counters.simulatedEvents[event.name, default: 0] += 1 }
    }

    /// Publishes a simulated agent's comment at `time` (no limits, no challenge).
    private mutating func simulatedComment(
        by agent: String, on postID: String, parent: String?, _ content: String, at time: Date
    ) -> SandboxComment {
        let comment = SandboxComment(
            id: simulation.random.uuid(), seq: takeSeq(), postID: postID, parentID: parent, authorID: agent,
            content: content, createdAt: time, status: .published)
        comments[comment.id] = comment
        _ = index.insert(comment)
        published(comment, at: time)
        return comment
    }

    /// A simulated agent's upvote on a post it has not voted on; false when it already had.
    private mutating func simulatedUpvote(by agent: String, postID: String, at time: Date) -> Bool {
        let key = Self.voteKey(agent, postID)
        guard votes[key] == nil, let post = posts[postID] else { return false }
        votes[key] = 1
        posts[postID]?.upvotes += 1
        index.addKarma(1, to: post.authorID)
        notifyUpvote(postID: postID, voter: agent, at: time)
        return true
    }

    /// A post in `general` by a random simulated agent that mentions a random real agent.
    private mutating func simulatedMentionPost(at time: Date) -> Bool {
        let targets = simulationTargets()
        let authors = activeSimulatedAgents
        guard !targets.isEmpty, !authors.isEmpty, submolts["general"] != nil else { return false }
        let target = targets[simulation.random.index(targets.count)]
        let author = authors[simulation.random.index(authors.count)]
        let (title, content) = SimulatedText.mentionPost(for: agents[target]?.name ?? "", random: &simulation.random)
        let post = SandboxPost(
            id: simulation.random.uuid(), seq: takeSeq(), authorID: author, submolt: "general", title: title,
            content: content, url: nil, type: "text", createdAt: time, createdAtText: SandboxTime.iso(time),
            status: .published)
        posts[post.id] = post
        _ = index.insert(post)
        submolts["general"]?.lastActivityAt = time
        let maxReplies = simulation.count(upTo: config.simulation.maxReplyDepth, atLeastOne: true)
        simulation.threads["post:" + post.id] = SimulationState.Thread(agentID: author, maxReplies: maxReplies)
        published(post, at: time)
        return true
    }

    /// A DM request from a random simulated agent to a random real agent it has never asked.
    private mutating func simulatedRequest(at time: Date) -> Bool {
        var pairs: [(agent: String, target: String)] = []
        for target in simulationTargets() where agents[target]?.claimed == true {
            for agent in activeSimulatedAgents {
                let key = SandboxConversation.pairKey(agent, target)
                if !simulation.asked.contains(key), inbox.conversationByPair[key] == nil {
                    pairs.append((agent, target))
                }
            }
        }
        guard !pairs.isEmpty else { return false }
        let (agent, target) = pairs[simulation.random.index(pairs.count)]
        simulation.asked.insert(SandboxConversation.pairKey(agent, target))
        let message = SimulatedText.dmRequest(random: &simulation.random)
        let conversation = openConversation(from: agent, to: target, message: message, at: time)
        adopt(conversation, agent: agent, at: time)
        return true
    }
}
