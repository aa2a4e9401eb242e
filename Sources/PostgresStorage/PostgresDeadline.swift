import Foundation
import Logging
import PostgresNIO
import Storage
import Synchronization

/// A statement whose answer did not come within `PostgresLane.statementDeadline`: the store closed
/// the connection (the next use makes a new one).
///
/// Without a deadline a statement sent into a network partition (packets dropped, no reset) waits
/// for TCP to give up, a quarter of an hour on Linux's defaults: the daemon's pass, its `/metrics`
/// (which reads the state) and its SIGTERM (which waits for the pass) all hung with it, long after
/// the network healed (found by scripts/fleet-check's partition). With it a cut-off runner's pass
/// fails as `unavailable` within the deadline, its leases run out, and it picks up again once the
/// database answers.
struct PostgresUnanswered: Error, Sendable {
    let seconds: Int
}

/// Whether a watchdog closed the connection.
private final class Fired: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

extension PostgresConnection {
    /// `query` and its rows, or `PostgresUnanswered` when they are not all in within `deadline`
    /// (the connection is then closed, which ends the query).
    func roundTrip(
        _ query: PostgresQuery, logger: Logger, deadline: Duration = PostgresLane.statementDeadline
    ) async throws -> [PostgresRow] {
        let fired = Fired()
        let watchdog = Task { [self] in
            try await Task.sleep(for: deadline)
            fired.set()
            try? await close()
        }
        defer { watchdog.cancel() }
        do {
            return try await self.query(query, logger: logger).collect()
        } catch {
            watchdog.cancel()
            if fired.isSet { throw PostgresUnanswered(seconds: Int(deadline.components.seconds)) }
            throw error
        }
    }
}
