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
        var contentSeen: [String: ContentSighting]?
    }

    /// The pass's running counts: `max_per_day` and the queue items taken.
    struct Counts {
        /// The stored forms, decoded on first use.
        let storedDaily: Data?
        let storedLedger: Data?
        private var decodedDaily: DailyCounts?
        private var decodedLedger: QueueLedger?
        var queueLedgerChanged = false

        init(storedDaily: Data?, storedLedger: Data?) {
            self.storedDaily = storedDaily
            self.storedLedger = storedLedger
        }

        var daily: DailyCounts {
            mutating get {
                if let decodedDaily { return decodedDaily }
                let decoded = storedDaily.flatMap(DailyCounts.init(stored:)) ?? DailyCounts()
                decodedDaily = decoded
                return decoded
            }
            set { decodedDaily = newValue }
        }

        var queueLedger: QueueLedger {
            mutating get {
                if let decodedLedger { return decodedLedger }
                let decoded = storedLedger.flatMap(QueueLedger.init(stored:)) ?? QueueLedger()
                decodedLedger = decoded
                return decoded
            }
            set { decodedLedger = newValue }
        }
    }
}
