import Synchronization

/// A wait with an end: the caller is resumed at `deadline` whatever the operation does.
///
/// Cancelling a task does not end every wait (a PostgreSQL query written to a channel that had
/// just closed is never answered nor failed), so the operation runs in a task of its own and the
/// caller simply stops waiting for it: whichever of the operation and the deadline ends first
/// resumes the caller, once; a late result goes to `discard`.
public enum Deadline {
    /// `operation`'s result, or the error `expired` makes once `deadline` passed (after
    /// `onExpiry`), whichever comes first.
    public static func within<T: Sendable>(
        _ deadline: Duration, onExpiry: @escaping @Sendable () async -> Void = {},
        discard: @escaping @Sendable (T) async -> Void = { _ in },
        expired: @escaping @Sendable () -> any Error,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let timer = Task {
                try await Task.sleep(for: deadline)
                guard race.claim() else { return }
                await onExpiry()
                race.resume(with: .failure(expired()))
            }
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                timer.cancel()
                if race.claim() {
                    race.resume(with: result)
                } else if case .success(let late) = result {
                    await discard(late)
                }
            }
        }
    }

    /// An operation and its deadline: whichever ends first claims the caller's continuation, once.
    private final class Race<T: Sendable>: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, claimed: Bool)>((nil, false))

        func start(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// Whether the caller takes this side's outcome (the first to ask wins).
        func claim() -> Bool {
            state.withLock { state in
                defer { state.claimed = true }
                return !state.claimed
            }
        }

        /// Resumes the caller (by the side that claimed it).
        func resume(with result: Result<T, any Error>) {
            state.withLock { $0.continuation.take() }?.resume(with: result)
        }
    }
}
