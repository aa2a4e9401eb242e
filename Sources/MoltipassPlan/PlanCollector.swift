import Foundation
import MoltbookAPI
import MoltipassEngine
import RateLimiting
import Recipes
import Storage

/// Turns the engine's run reports into the plan's timeline and sums up per agent and class
/// (challenges are answered by the engine itself, within the pass, as `run` answers them).
package struct PlanCollector {
    let store: RecordingStateStore
    let world: PlanWorld
    private(set) var events: [PlanResult.Event] = []
    /// The last deferral shown per write (or per job step), so a write waiting over many passes
    /// appears once per change of reason or time, not once per pass.
    private var lastDeferral: [String: String] = [:]
    private var deferredKeys: Set<String> = []
    private var challengesIssued = 0
    private var challengesVerified = 0

    init(store: RecordingStateStore, world: PlanWorld) {
        self.store = store
        self.world = world
    }

    /// Adds a pass's items. Returns true when the agent should pass again right away (never since
    /// the engine answers challenges within the pass; kept for the driver's loop).
    mutating func collect(_ report: RunReport, at instant: Date) async -> Bool {
        let answered = false
        for item in report.items {
            // The write an item is about, by its journal key (two writes of a job can share a
            // summary: the same title twice). A verify item carries the key of the content it
            // verifies but is an event of its own class.
            let intent = item.action == "verify" ? nil : await item.key.asyncMap(store.knownIntent(key:))
            let write = intent?.write
            let outcome = PlanResult.Event.Outcome(rawValue: item.outcome.rawValue) ?? .failed
            let identity = intent?.intent.key ?? "\(item.agent)|\(item.recipe)|\(item.job)|\(item.action)"
            if outcome == .deferred {
                // The engine words a deferral found in the journal "deferred by R" and a fresh one "R".
                var reason = item.reason ?? ""
                if reason.hasPrefix("deferred by ") { reason.removeFirst("deferred by ".count) }
                let signature = "\(reason)|\(item.until.map { "\($0.timeIntervalSince1970)" } ?? "")"
                if lastDeferral[identity] == signature { continue }
                lastDeferral[identity] = signature
                if intent != nil { deferredKeys.insert(identity) }
            } else {
                lastDeferral[identity] = nil
            }
            events.append(
                PlanResult.Event(
                    time: instant, agent: item.agent, recipe: item.recipe, job: item.job,
                    action: write?.kind.rawValue ?? item.action, summary: item.action,
                    limitClass: write?.limitClass.rawValue
                        ?? (item.action == "select targets" ? "read" : item.action == "verify" ? "verify" : "schedule"),
                    target: write?.target, submolt: write?.submolt ?? (write?.kind == .subscribe ? write?.target : nil),
                    title: write?.title, excerpt: write?.content.map { PlannedWrite.excerpt($0, limit: 80) },
                    outcome: outcome, reason: item.reason, until: item.until,
                    occurrence: intent?.intent.occurrence, key: intent?.intent.key))
            if let write, [.reply, .directMessage, .approveRequest].contains(write.kind) {
                events[events.count - 1].inReplyTo = write.about
            }
            // The engine answers challenges itself, with the recipe's solver, as `run` would.
            if outcome == .challenged { challengesIssued += 1 }
            if item.action == "verify", outcome == .done { challengesVerified += 1 }
        }
        return answered
    }

    /// The plan. Takes the collected events (the collector is done after it): a month of 100
    /// recipes is ~200,000 events, and naming their targets in a copy held two of them at the
    /// plan's peak of memory.
    mutating func result(
        recipes: [Recipe], options: PlanOptions, feed: PlanFeed, feedDescription: String, stateCopied: Bool,
        passes: Int
    ) -> PlanResult {
        let tally = world.transport.counts
        var zones: [String: String] = [:]
        for recipe in recipes where zones[recipe.agent.value] == nil {
            zones[recipe.agent.value] = recipe.timeZone.identifier
        }
        let scenario = PlanResult.Scenario(
            from: options.start, to: options.end, seed: options.seed, serverProfile: options.serverProfile.name,
            challengeRate: options.challengeRate, faultRate: options.faultRate, newAgent: options.newAgent,
            feed: feedDescription, feedPosts: feed.posts.count, stateCopied: stateCopied,
            stateSkipped: options.stateSkipped, enforceDuplicates: options.enforceDuplicates ? true : nil)
        var server = PlanResult.Server(
            requests: world.transport.inner.requestCount,
            rateLimited: tally.rateLimited.values.flatMap(\.values).reduce(0, +),
            challengesIssued: challengesIssued, challengesVerified: challengesVerified,
            faultsInjected: tally.faults.values.reduce(0, +), passes: passes)
        if options.enforceDuplicates {
            let counters = world.model.counters()
            server.duplicateRefusals = counters.duplicateRefusals
            server.suspensions = counters.suspensions
        }
        let summary = summary(tally: tally)
        let conversations = recipes.contains(where: \.answers) ? Self.conversations(in: events) : nil
        var events = self.events
        self.events = []
        nameTargets(in: &events)
        var result = PlanResult(scenario: scenario, timeZones: zones, events: events, summary: summary, server: server)
        result.conversations = conversations
        let simulated =
            options.simulatedAgents ?? (recipes.contains(where: \.answers) ? PlanOptions.defaultSimulatedAgents : 0)
        if simulated > 0 { result.scenario.simulatedAgents = simulated }
        return result
    }

    func summary(tally: PlanTransport.Tally) -> [PlanResult.ClassSummary] {
        var lines: [String: PlanResult.ClassSummary] = [:]
        func line(_ agent: String, _ limitClass: String) -> PlanResult.ClassSummary {
            lines["\(agent)|\(limitClass)"] ?? PlanResult.ClassSummary(agent: agent, limitClass: limitClass)
        }
        for event in events {
            var summary = line(event.agent, event.limitClass)
            switch event.outcome {
            case .done:
                summary.executed += 1
            case .deferred: if event.key == nil { summary.deferred += 1 }
            case .skipped: summary.skipped += 1
            case .failed, .uncertain: summary.failed += 1
            case .challenged:
                summary.executed += 1
                summary.challenges += 1
            }
            lines["\(event.agent)|\(event.limitClass)"] = summary
        }
        var counted: Set<String> = []
        for event in events where event.outcome == .deferred {
            guard let key = event.key, deferredKeys.contains(key), counted.insert(key).inserted else { continue }
            var summary = line(event.agent, event.limitClass)
            summary.deferred += 1
            lines["\(event.agent)|\(event.limitClass)"] = summary
        }
        for (agent, classes) in tally.rateLimited {
            for (limitClass, count) in classes {
                var summary = line(agent, limitClass)
                summary.rateLimited += count
                lines["\(agent)|\(limitClass)"] = summary
            }
        }
        // Peak use of each limit the simulated server enforced, from what it applied.
        let config = world.model.config
        let created = world.created.withLock { $0 }
        for (agent, classes) in tally.accepted {
            for (limitClass, times) in classes {
                let budget = PlanServerBudget.budgets(
                    times: times, limitClass: limitClass, config: config, createdAt: created[agent])
                var summary = line(agent, limitClass)
                if limitClass == "write" || limitClass == "read" { summary.executed = times.count }
                guard !budget.isEmpty || summary.executed > 0 || lines["\(agent)|\(limitClass)"] != nil else {
                    continue
                }
                summary.budget = budget
                lines["\(agent)|\(limitClass)"] = summary
            }
        }
        return lines.values.sorted { ($0.agent, $0.limitClass) < ($1.agent, $1.limitClass) }
    }

    /// The events with the title and author of each post they target: the feed's posts as
    /// published, and the posts the planned agents created.
    func nameTargets(in events: inout [PlanResult.Event]) {
        var known = world.published.withLock { $0 }
        known.merge(store.createdPosts.withLock { $0 }) { _, created in created }
        for index in events.indices {
            guard let target = events[index].target, Self.targetsPost(events[index].action), let post = known[target]
            else { continue }
            events[index].targetTitle = post.title
            events[index].targetAuthor = post.author
        }
    }

    /// The conversation lines among `events`: answers (with what they answer), items passed over
    /// (the engine's "reply to …"/"answer …" lines), and posts marked read.
    static func conversations(in events: [PlanResult.Event]) -> [PlanResult.Conversation] {
        events.compactMap { event in
            let kind: String
            var trigger = event.inReplyTo ?? ""
            switch event.action {
            // An answer (a step's "nothing to answer" line has the keyword but answers nothing).
            case PlannedWrite.Kind.reply.rawValue, PlannedWrite.Kind.directMessage.rawValue,
                PlannedWrite.Kind.approveRequest.rawValue:
                guard event.inReplyTo != nil else { return nil }
                kind = event.action
            default:
                if event.summary.hasPrefix("reply to @") || event.summary.hasPrefix("answer @") {
                    kind = "skipped"
                    trigger = String(event.summary.drop { $0 != "@" })
                } else if event.summary.hasPrefix("mark notifications of post ") {
                    kind = "mark_read"
                    trigger =
                        "post " + event.summary.dropFirst("mark notifications of post ".count).prefix { $0 != " " }
                } else {
                    return nil
                }
            }
            return PlanResult.Conversation(
                time: event.time, agent: event.agent, kind: kind, trigger: trigger, answer: event.excerpt,
                outcome: event.outcome, reason: event.reason)
        }
    }

    /// Whether an event's action takes a post id as its target.
    package static func targetsPost(_ action: String) -> Bool {
        PlannedWrite.Kind(rawValue: action)?.targetsPost ?? false
    }

    /// The most instants of `times` (sorted) inside any half-open window of `period` seconds.
    static func peak(_ times: [Date], period: Double) -> Int {
        var best = 0
        var low = 0
        for high in times.indices {
            while times[high].timeIntervalSince(times[low]) >= period { low += 1 }
            best = max(best, high - low + 1)
        }
        return best
    }
}

extension Optional {
    /// `map` with an async transform that may give nil.
    package func asyncMap<T>(_ transform: (Wrapped) async -> T?) async -> T? {
        guard let self else { return nil }
        return await transform(self)
    }
}
