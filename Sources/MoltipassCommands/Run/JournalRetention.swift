import Foundation
import MoltipassEngine
import Recipes

/// `run --journal-retention`: how long done journal entries are kept (`docs/state.md`, Retention).
public enum JournalRetention: Sendable, Equatable {
    /// Never pruned.
    case forever
    /// Pruned once created longer ago than this many seconds.
    case keep(TimeInterval)

    /// `forever`, or a duration as recipes write them (`90d`, `12h30m`); nil for anything else.
    public init?(_ text: String) {
        if text == "forever" {
            self = .forever
        } else if let seconds = try? DurationText.seconds(text) {
            self = .keep(TimeInterval(seconds))
        } else {
            return nil
        }
    }

    /// The retention in seconds; nil: for ever.
    public var seconds: TimeInterval? {
        switch self {
        case .forever: nil
        case .keep(let seconds): seconds
        }
    }
}
