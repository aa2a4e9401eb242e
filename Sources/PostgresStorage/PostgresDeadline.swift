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

extension PostgresConnection {
    /// A new connection, or `PostgresUnanswered` when it is not up within `deadline`: the TCP
    /// connect has PostgresNIO's own timeout, but the start-up and authentication after it have
    /// none, and a connection whose handshake went into a partition waited for TCP's
    /// retransmissions long after the network healed (the runner cut off by
    /// `scripts/fleet-check` neither took agents back nor stopped on SIGTERM). The attempt is
    /// left to end on its own; a connection it makes after the deadline is closed at once.
    static func connect(
        configuration: Configuration, id: ID, logger: Logger, deadline: Duration
    ) async throws -> PostgresConnection {
        let race = ConnectRace()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let timer = Task {
                try await Task.sleep(for: deadline)
                _ = race.finish(.failure(PostgresUnanswered(seconds: Int(deadline.components.seconds))))
            }
            Task {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: configuration, id: id, logger: logger)
                    timer.cancel()
                    if !race.finish(.success(connection)) { try? await connection.close() }
                } catch {
                    timer.cancel()
                    _ = race.finish(.failure(error))
                }
            }
        }
    }
}

/// A connection attempt and its deadline: whichever ends first resumes the caller, once.
private final class ConnectRace: Sendable {
    private let waiting = Mutex<CheckedContinuation<PostgresConnection, any Error>?>(nil)

    func start(_ continuation: CheckedContinuation<PostgresConnection, any Error>) {
        waiting.withLock { $0 = continuation }
    }

    /// Resumes the caller with `result` unless the other side did; whether this one did.
    func finish(_ result: Result<PostgresConnection, any Error>) -> Bool {
        guard let continuation = waiting.withLock({ $0.take() }) else { return false }
        continuation.resume(with: result)
        return true
    }
}
