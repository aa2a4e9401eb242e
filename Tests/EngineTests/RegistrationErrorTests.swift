import Foundation
import MoltbookAPI
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Testing

/// Registration failures in plain words with their exit statuses (429 cannot be produced by
/// the sandbox on register, so the wording is checked here).
@Suite("registration errors")
struct RegistrationErrorTests {
    /// 409 → 14 "taken", 400 → 64 with the name rules, 429 → 75 naming the registration limit
    /// and the server's wait; anything else passes through unchanged.
    @Test func explained() {
        func failure(_ code: APIError.Code, _ status: Int, hint: RateLimitHint = RateLimitHint()) -> KeysFailure? {
            let error = APIError(
                code: code, message: "m", endpoint: "POST /agents/register", status: status, serverError: "e",
                rateLimit: hint)
            return RegistrationFlow.explain(error, name: "reef") as? KeysFailure
        }
        #expect(failure(.conflict, 409)?.status == .conflict)
        #expect(failure(.conflict, 409)?.message.contains("the agent name reef is taken") == true)
        #expect(failure(.badRequest, 400)?.status == .usage)
        #expect(failure(.badRequest, 400)?.message.contains("2-32 letters") == true)
        var hint = RateLimitHint()
        hint.retryAfterSeconds = 120
        let limited = failure(.rateLimited, 429, hint: hint)
        #expect(limited?.status == .transient)
        #expect(limited?.message.contains("limits how many agents can be registered") == true)
        #expect(limited?.message.contains("Try again in 120 s") == true)
        #expect(limited.map { ExitStatus.transient == ErrorReporting.exitStatus(for: $0) } == true)
        #expect(failure(.serverError, 500) == nil)
    }
}
