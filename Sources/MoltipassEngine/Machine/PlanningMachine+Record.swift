import Foundation
import MoltbookAPI
import Recipes
import Storage

/// What a step's expansion leaves: report lines, the duplicate guard's and `max_per_day`'s
/// cuts, intents and queue positions.
extension PlanningMachine {
    /// What planning one job records: its intents, queue positions and new cursor.
    struct JobCommit: Sendable, Equatable {
        var recipe: String
        var job: String
        var intents: [JournalIntent]
        var positions: [String: QueuePosition]
        /// Nil for a deferred step planned again: the job's cursor is where it was.
        var cursor: Date?
    }

    /// What one planning transaction records: every job's commit, and the `max_per_day` counts
    /// and queue ledger when they changed.
    struct Journal: Sendable, Equatable {
        var commits: [JobCommit]
        var dailyCounts: Data?
        var queueLedger: Data?
        /// The deferred steps as the pass leaves them, when they changed.
        var deferredSteps: Data? = nil
        /// The jobs found with the clock behind their cursor, when that changed (`ClockBehind`).
        var clockBehind: Data? = nil
    }

    /// Records what a step expanded to: report lines, the duplicate guard, `max_per_day`, intents.
    mutating func record(
        _ outcome: StepExpander.Outcome, occurrence: OccurrencePlanner.Occurrence, queue: ContentQueue?,
        in work: inout JobWork, into actions: inout [Action]
    ) {
        let (recipe, job, index) = (work.recipe, work.job, work.at.step)
        let step = job.steps[index]
        switch outcome {
        case .queueEmpty(let path):
            actions.append(.line(line(recipe, job, "post from queue", .skipped, "content queue \(path) is empty")))
            actions.append(.dryQueue("\(recipe.name)/\(job.id.value): \(path)"))
        case .writes(let found) where found.isEmpty && Self.inbound(of: step) != nil:
            let reason = work.at.inboundPartial ? "nothing to answer in what could be read" : "nothing to answer"
            actions.append(.line(line(recipe, job, step.action.keyword, .skipped, reason)))
        case .writes(let found) where found.isEmpty && Self.selects(step):
            actions.append(
                .line(line(recipe, job, step.action.keyword, .skipped, "the selector found no post to act on")))
        case .answers(let found, _):
            // Turned into `.writes` by the planning before it records (`PlanningMachine.step`).
            record(.writes(found), occurrence: occurrence, queue: queue, in: &work, into: &actions)
        case .writes(var writes):
            writes = withoutDuplicates(writes, in: &work, queue: queue, into: &actions)
            if let cap = Self.maxPerDay(step) {
                let counter = DailyCounts.key(recipe.identity, job.id.value, index)
                let day = DailyCounts.day(of: occurrence.nominal, in: recipe.timeZone)
                let allowed = max(0, cap - work.planned.dailyCounts.used(counter, day: day))
                if writes.count > allowed {
                    actions.append(
                        .line(
                            line(
                                recipe, job, step.action.keyword, .skipped,
                                "max_per_day \(cap) reached for \(day) (\(writes.count - allowed) not planned)")))
                    writes = Array(writes.prefix(allowed))
                }
                work.planned.dailyCounts.add(counter, day: day, writes.count)
            }
            for expanded in writes {
                if let target = expanded.write.target { known.facts?.add(expanded.write.kind, [target]) }
                var write = expanded.write
                write.queueItem = expanded.queueIndex.flatMap { index in
                    queue.map { QueueLedger.fingerprint($0.items[index]) }
                }
                work.planned.intents.append(
                    JournalIntent(
                        key: expanded.key, account: agent, recipe: recipe.identity, job: job.id.value,
                        occurrence: occurrence.nominal, step: expanded.step, action: expanded.write.kind.rawValue,
                        target: expanded.write.target, contentHash: expanded.contentHash, payload: write.payload,
                        notBefore: occurrence.fire))
                if let queueIndex = expanded.queueIndex, let queue {
                    work.planned.taken.insert(QueueLedger.fingerprint(queue.items[queueIndex]))
                    work.planned.positions[queue.path.value] = QueuePosition(
                        next: queueIndex + 1, lastItem: expanded.write.title, updatedAt: now)
                }
            }
        }
    }

    /// The first time `queue` of `recipe` is planned, an index-based position of older state is
    /// carried over into the ledger (stored with the next commit that takes an item). Index
    /// positions were stored under the recipe's name as it was then (the file's name when no
    /// `name:` was written).
    mutating func migrateQueue(recipe: Recipe, queue: ContentQueue) {
        guard !counts.queueLedger.hasMigrated(recipe: recipe.name, queue: queue.path.value) else { return }
        let next = legacyQueuePositions[Self.legacyKey(recipe.name, queue.path.value)] ?? 0
        counts.queueLedger.migrate(recipe: recipe.name, queue: queue, next: next)
    }

    static func legacyKey(_ recipe: String, _ queue: String) -> String { recipe + "|" + queue }

    func line(
        _ recipe: Recipe, _ job: Job, _ action: String, _ outcome: RunReport.Item.Outcome, _ reason: String? = nil,
        _ until: Date? = nil
    ) -> RunReport.Item {
        RunReport.Item(
            agent: agent, recipe: recipe.name, job: job.id.value, action: action, outcome: outcome, reason: reason,
            until: until)
    }
}
