import Foundation
import MoltbookAPI
import Storage

/// What the planning machine holds across its jobs.
extension PlanningMachine {
    /// What the machine knows of the agent: who it is, what it acted on and published.
    struct Known {
        var identity: AgentIdentity
        var identityKnown: Bool
        /// Nil until the first due step (`loadFacts`).
        var facts: DoneTargets?
        /// The duplicate guard's sightings, once the driver has read them (`loadContentLedger`).
        var contentSeen: ContentSightings?
    }

    /// The pass's running counts: `max_per_day` and the queue items taken, decoded from their
    /// stored forms on first use (most passes never look at them).
    struct Counts {
        private var dailyCounts: Decoded<DailyCounts>
        private var ledger: Decoded<QueueLedger>
        var queueLedgerChanged = false
        private var deferred: Decoded<DeferredSteps>
        var deferredChanged = false
        private var behind: Decoded<ClockBehind>
        var behindChanged = false

        init(storedDaily: Data?, storedLedger: Data?, storedDeferred: Data? = nil, storedBehind: Data? = nil) {
            dailyCounts = Decoded(stored: storedDaily)
            ledger = Decoded(stored: storedLedger)
            deferred = Decoded(stored: storedDeferred)
            behind = Decoded(stored: storedBehind)
        }

        /// The jobs found with the clock behind their cursor since they last planned (`ClockBehind`).
        var clockBehind: ClockBehind {
            mutating get { behind.value }
            set {
                behind.value = newValue
                behindChanged = true
            }
        }

        /// The steps whose reads were deferred (`DeferredSteps`), as this pass leaves them.
        var deferredSteps: DeferredSteps {
            mutating get { deferred.value }
            set {
                deferred.value = newValue
                deferredChanged = true
            }
        }

        var daily: DailyCounts {
            mutating get { dailyCounts.value }
            set { dailyCounts.value = newValue }
        }

        var queueLedger: QueueLedger {
            mutating get { ledger.value }
            set { ledger.value = newValue }
        }
    }
}

/// A value kept in the state in a stored form (`limiter_state` rows read as `Data`).
protocol StoredForm {
    init()
    init?(stored: Data)
}

extension DailyCounts: StoredForm {}
extension ClockBehind: StoredForm {}
extension QueueLedger: StoredForm {}

/// A stored value decoded on first use; an absent or unreadable form reads as the empty value.
struct Decoded<Value: StoredForm> {
    private let stored: Data?
    private var decoded: Value?

    init(stored: Data?) { self.stored = stored }

    var value: Value {
        mutating get {
            if let decoded { return decoded }
            let value = stored.flatMap(Value.init(stored:)) ?? Value()
            decoded = value
            return value
        }
        set { decoded = newValue }
    }
}
