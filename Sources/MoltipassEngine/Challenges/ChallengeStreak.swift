import Foundation
import Storage

/// Failed challenges in a row, counted two ways from the state's record of the agent's challenges (issue 34).
public enum ChallengeStreak {
    /// Since the last solved challenge or the last `moltipass resume`: what `stop_after` counts.
    public static func sinceResume(account: String, in reader: any StateReader) async throws -> Int {
        let resumed = try await reader.limiterState(account: account, key: ResumeMarker.stateKey)
            .flatMap(ResumeMarker.date(stored:))
        return try await count(account: account, in: reader, since: resumed, countingOpen: false)
    }

    /// As the server counts them: since the last solved challenge only (a resume is ours, not the server's), an
    /// open challenge counted as the failure it becomes if nobody answers it. What `ChallengePolicy.safeStreak`
    /// bounds.
    public static func onServer(account: String, in reader: any StateReader) async throws -> Int {
        try await count(account: account, in: reader, since: nil, countingOpen: true)
    }

    private static func count(account: String, in reader: any StateReader, since: Date?, countingOpen: Bool)
        async throws -> Int
    {
        var streak = 0
        for challenge in try await reader.challenges(account: account, status: nil, limit: 50) {
            if let since, challenge.updatedAt < since { break }
            switch challenge.status {
            case .failed, .expired: streak += 1
            case .solved: return streak
            case .open: if countingOpen { streak += 1 }
            }
        }
        return streak
    }

    /// Why the agent stays stopped, when the server's count is at the bound.
    public static func stopReason(_ streak: Int) -> String {
        """
        \(streak) verification challenges failed in a row on the server's count (Moltbook suspends at \
        \(ChallengePolicy.serverThreshold)): one more failure could suspend the agent, so its writes stay stopped \
        whatever `stop_after` or `moltipass resume` say, until a challenge is solved
        """
    }
}
