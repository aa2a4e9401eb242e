import Determinism
import Foundation

/// A seeded variant of the server (issue 33, deliverable 7): instead of one of three named
/// dialects, each answer's shape is drawn from the space independent servers were seen to use,
/// so the engine is judged on combinations nobody wrote down. The same seed gives the same
/// server; `moltbook-sandbox --variant SEED`, or `variant_seed` in the config.
///
/// What a variant draws (each independently):
/// - the dialect's envelopes, ids and field names (moltbook.com, the open-source server, the
///   community mock);
/// - the create answer: the object, its id alone (`{"post_id"}`), or `{"success": true}`;
/// - paging honoured, or ignored (the first page is all a client sees);
/// - the submolt filter honoured, or ignored;
/// - the request window reported as `X-RateLimit-*`, the IETF draft's `RateLimit-*`, or not at all;
/// - challenges on none of the content or on a third, answered in two decimals or as a whole
///   number (said in the instructions either way), and on the other writes too or not;
/// - the claim as `is_claimed` or in words (`status`), direct messages listed or in the
///   conversation list (drawn last: a seed's earlier draws stay what they were).
public struct SandboxVariant: Sendable, Equatable, CustomStringConvertible {
    public var seed: UInt64
    public var dialect: SandboxDialect
    public var createAnswer: CreateAnswerShape
    public var ignorePaging: Bool
    public var ignoreSubmoltFilter: Bool
    public var rateLimitHeaders: RateLimitHeaderStyle
    public var challengeRate: Double
    public var challengeAnswerForm: ChallengeAnswerForm
    public var challengeEveryWrite: Bool
    public var claimShape: ClaimShape
    public var dmShape: DMShape

    public init(seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x5641_5249_414E_5453)  // "VARIANTS"
        func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
        self.seed = seed
        dialect = pick(SandboxDialect.allCases)
        createAnswer = pick(CreateAnswerShape.allCases)
        ignorePaging = pick([false, false, true])
        ignoreSubmoltFilter = pick([false, true])
        rateLimitHeaders = pick(RateLimitHeaderStyle.allCases)
        challengeRate = dialect.issuesChallenges ? pick([0, 0.3]) : 0
        challengeAnswerForm = pick([.twoDecimals, .wholeNumber])
        challengeEveryWrite = challengeRate > 0 && pick([false, true])
        claimShape = pick(ClaimShape.allCases)
        dmShape = pick(DMShape.allCases)
    }

    /// `config` with what this variant draws in place (its other settings kept).
    public func applied(to config: SandboxConfig) -> SandboxConfig {
        var config = config
        config.dialect = dialect
        config.createAnswer = createAnswer
        config.ignorePaging = ignorePaging
        config.ignoreSubmoltFilter = ignoreSubmoltFilter
        config.rateLimitHeaders = rateLimitHeaders
        config.challengeRate = challengeRate
        config.challengeAnswerForm = challengeAnswerForm
        config.challengeEveryWrite = challengeEveryWrite
        config.claimShape = claimShape
        config.dmShape = dmShape
        return config
    }

    public var description: String {
        "variant \(seed): \(dialect.rawValue), create \(createAnswer.rawValue), paging \(ignorePaging ? "ignored" : "kept"), "
            + "submolt filter \(ignoreSubmoltFilter ? "ignored" : "kept"), headers \(rateLimitHeaders.rawValue), "
            + "challenges \(challengeRate) (\(challengeAnswerForm.rawValue)\(challengeEveryWrite ? ", every write" : "")), "
            + "claim \(claimShape.rawValue), DMs \(dmShape.rawValue)"
    }
}
