import MoltbookAPI

/// Runs `body` and returns the `APIError` it throws, or nil when it succeeds (or throws
/// something else).
public func apiError<T>(_ body: () async throws -> T) async -> APIError? {
    do {
        _ = try await body()
        return nil
    } catch let error as APIError {
        return error
    } catch {
        return nil
    }
}
