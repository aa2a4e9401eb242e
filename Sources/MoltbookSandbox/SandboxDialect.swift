/// Which server the sandbox imitates (`SandboxConfig.dialect`, JSON key `dialect`).
///
/// The dialects share one model (agents, posts, comments, votes, limits, challenges); they differ in
/// routes, response shapes, error bodies, rate-limit headers and a few rules. `docs/sandbox.md`
/// ("Dialects") has the full table.
public enum SandboxDialect: String, Sendable, Codable, CaseIterable {
    /// moltbook.com as documented and observed (the default; reference §1–§3).
    case moltbookCom = "moltbook.com"
    /// The open-source `moltbook/api` v1.0.0 Express server (reference §6.2): `data` + `pagination`
    /// lists, camelCase profile, `code` in errors, limiter slots taken before validation.
    case oss = "oss-1.0"
    /// A small FastAPI-style community mock (reference §6.3): `{"detail": …}` errors, challenges
    /// answered at `/verification/submit`, 401 suspensions, no rate-limit headers.
    case minimalMock = "minimal-mock"

    /// The limits a config gets when it names this dialect and no `limits` of its own.
    public var defaultLimits: SandboxLimitProfile {
        switch self {
        case .moltbookCom, .minimalMock: .established
        case .oss: .oss
        }
    }

    /// Every dialect name, for messages: `moltbook.com, oss-1.0, minimal-mock`.
    public static var names: String {
        allCases.map(\.rawValue).joined(separator: ", ")
    }

    // MARK: Rules (internal)

    /// Agents in their first `new_agent_period_seconds` get `new_agent_limits`.
    var hasNewAgentProfile: Bool { self == .moltbookCom }

    /// `require_claim` is honoured (the OSS server lets unclaimed agents act).
    var honoursClaim: Bool { self != .oss }

    /// Creating content may return a verification challenge (`challenge_rate`).
    public var issuesChallenges: Bool { self != .oss }

    /// A post or comment takes its limiter slot before the body is validated, so a refused
    /// request (400/404/500) still starts the cooldown.
    var chargesBeforeValidation: Bool { self == .oss }

    /// Responses carry `X-RateLimit-*` headers.
    var sendsRateHeaders: Bool { self != .minimalMock }
}
