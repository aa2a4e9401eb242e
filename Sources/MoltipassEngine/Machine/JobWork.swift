import Foundation
import MoltbookAPI
import Recipes
import Storage

/// One job being planned: its due occurrences, where the loop stands in them, and what it has
/// planned so far.
struct JobWork {
    /// Where the current step stands.
    enum Stage {
        case start
        /// Skipping queue items the duplicate guard refuses, from `position`.
        case scanning(position: Int)
        /// Reading the selection (after the client, when the identity is unknown).
        case selecting(position: Int)
        /// Expanding with the selection read.
        case expanding(position: Int, selection: [Post])
        /// Asking for the generated texts of the step's writes (`at.generation`).
        case generating
    }

    /// Where the loop stands in the job: its occurrence and step, the step's stage, and the
    /// answers the step got.
    struct Position {
        var occurrence = 0
        var step = 0
        var stage = Stage.start
        var clientAsked = false
        var selection: Result<[Post], any Error>?
        /// A `reply:` or `dm:` step's inbound items, once read.
        var inbound: Result<InboundRead, any Error>?
        var inboundRead: InboundRead?
        /// Part of the step's inbox could not be read (said on a line of its own): an empty
        /// expansion is then not "nothing to answer".
        var inboundPartial = false
        var generation: PlanningMachine.GenerationWork?
    }

    /// What the job has planned so far.
    struct Planned {
        var dailyCounts: DailyCounts
        var intents: [JournalIntent] = []
        var positions: [String: QueuePosition] = [:]
        /// Queue items this job takes (their fingerprints), added to the ledger when it commits.
        var taken: Set<String> = []
        /// Content this job plans (fingerprint → sighting), for the duplicate guard.
        var content: [String: ContentSighting] = [:]
        /// Steps whose reads were deferred, kept to be planned again (`DeferredSteps`).
        var deferred: [DeferredStep] = []
        /// A text is still being generated: nothing of the job is journaled this pass.
        var withheld = false
    }

    let ref: JobRef
    var recipe: Recipe { ref.recipe }
    var job: Job { ref.job }
    let result: OccurrencePlanner.Result
    let due: [OccurrencePlanner.Occurrence]
    var at = Position()
    var planned: Planned
    /// Set when this work plans one deferred step again: it ends after that step.
    var only: DeferredStep?

    init(ref: JobRef, result: OccurrencePlanner.Result, due: [OccurrencePlanner.Occurrence], dailyCounts: DailyCounts) {
        self.ref = ref
        self.result = result
        self.due = due
        planned = Planned(dailyCounts: dailyCounts)
    }

    var isDone: Bool { at.occurrence >= due.count || job.steps.isEmpty }

    mutating func nextStep() {
        at.stage = .start
        at.inboundPartial = false
        if only != nil {
            at.occurrence = due.count
            return
        }
        at.step += 1
        if at.step >= job.steps.count {
            at.step = 0
            at.occurrence += 1
        }
    }
}
