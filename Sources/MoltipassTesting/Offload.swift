import Foundation

/// Runs blocking work (waiting for a child process, reading a pipe) on a thread of its own.
///
/// Swift's cooperative pool has one thread per core — two on CI. A test that blocks one while
/// the in-process sandbox needs it to answer a request stalls the whole suite, so every
/// blocking wait in test support goes through here.
public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
