import Foundation
import Logging
import PostgresNIO
import Storage

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

extension PostgresConnection {
    /// `query` and its rows, or `PostgresUnanswered` when they are not all in within `deadline`:
    /// the connection is then closed and the caller resumed at once. Closing alone does not end
    /// every wait: PostgresNIO writes a query to its channel without a promise, and a query
    /// written to a channel that had just closed is never answered nor failed (a runner cut off
    /// mid-pass waited for its `ROLLBACK` for ever, nothing else pending in the process: found
    /// by `scripts/fleet-check` with the stacks of the daemon that did not stop). So the caller
    /// does not wait for the query once the deadline passed; the query is left to end on its own.
    func roundTrip(
        _ query: PostgresQuery, logger: Logger, deadline: Duration = PostgresLane.statementDeadline
    ) async throws -> [PostgresRow] {
        try await Self.within(deadline, onExpiry: { [self] in try? await close() }) { [self] in
            try await self.query(query, logger: logger).collect()
        }
    }

    /// A new connection, or `PostgresUnanswered` when it is not up within `deadline`: the TCP
    /// connect has PostgresNIO's own timeout, but the start-up and authentication after it have
    /// none, and a connection whose handshake went into a partition waited for TCP's
    /// retransmissions long after the network healed. A connection the attempt makes after the
    /// deadline is closed at once.
    static func connect(
        configuration: Configuration, id: ID, logger: Logger, deadline: Duration
    ) async throws -> PostgresConnection {
        try await within(deadline, onExpiry: {}, discard: { try? await $0.close() }) {
            try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        }
    }

    /// `operation`'s result, or `PostgresUnanswered` once `deadline` passed (after `onExpiry`),
    /// whichever comes first (`Deadline.within`).
    static func within<T: Sendable>(
        _ deadline: Duration, onExpiry: @escaping @Sendable () async -> Void,
        discard: @escaping @Sendable (T) async -> Void = { _ in },
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await Deadline.within(
            deadline, onExpiry: onExpiry, discard: discard,
            expired: { PostgresUnanswered(seconds: Int(deadline.components.seconds)) }, operation)
    }
}
