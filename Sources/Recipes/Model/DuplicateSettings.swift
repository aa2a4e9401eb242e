/// The recipe's `duplicates:` block: how far back the duplicate guard compares what the agent
/// is about to post or comment with what it already sent.
///
/// ```yaml
/// duplicates:
///   window: 30d              # from 1d to 365d; default 30d
/// ```
///
/// Moltbook does not publish how long it remembers content; operators were suspended for
/// repeats an hour, a day and a week apart (moltbook-api.md §6.1). The default is a month, and
/// a shorter window is allowed only down to a day: an operator who shortens it takes that risk
/// knowingly (`lint` says so). The guard compares across every recipe of the agent; each write
/// uses the window of the recipe that plans it.
public struct DuplicateSettings: Sendable, Equatable {
    /// The default window: 30 days.
    public static let defaultWindow = 30 * 86_400
    /// The bounds `window:` accepts.
    public static let windowRange = 86_400...(365 * 86_400)

    /// Seconds back the guard compares.
    public var window: Int
    /// Where `duplicates:` is written.
    public var mark: Mark

    public init(window: Int = DuplicateSettings.defaultWindow, mark: Mark) {
        self.window = window
        self.mark = mark
    }
}

extension Recipe {
    /// The duplicate guard's window for this recipe's writes, in seconds.
    public var duplicateWindow: Int { duplicates?.window ?? DuplicateSettings.defaultWindow }
}
