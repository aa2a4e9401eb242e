/// Every metric Moltipass exposes, with its type, labels and help text: the one list the
/// exposition, the factory (`CatalogMetricsFactory` registers nothing else) and the reference
/// table of `docs/deploy.md` ("Metrics") agree on, which a test checks.
///
/// Names follow Prometheus' conventions: the `moltipass_` prefix, base units (`_seconds`),
/// counters end in `_total`, timestamps are `_timestamp_seconds` (Unix seconds). Every label's
/// values come from a bounded set (`MetricLabel`): never a post id, a URL, an error text or a key.
public enum MetricCatalog {
    public static let buildInfo = MetricDefinition(
        "moltipass_build_info", .gauge, labels: [.version, .swift],
        help: "Always 1: the moltipass version and the Swift compiler it was built with.")

    public static let actions = MetricDefinition(
        "moltipass_actions_total", .counter, labels: [.agent, .action, .outcome],
        help: "Lines of the engine's pass reports by agent, action and outcome; a held action counts once while it "
            + "stays held.")

    public static let rateLimited = MetricDefinition(
        "moltipass_rate_limited_responses_total", .counter, labels: [.limitClass],
        help: "HTTP 429 answers of the Moltbook API, by the limit class they hold.")

    public static let hintWaits = MetricDefinition(
        "moltipass_hint_waits_total", .counter, labels: [.limitClass],
        help: "Server hints that made a limit class wait (a 429, or X-RateLimit-Remaining 0), by class.")

    public static let hintWaitSeconds = MetricDefinition(
        "moltipass_hint_wait_seconds_total", .counter, labels: [.limitClass],
        help: "Seconds of waiting the server's hints asked for, by limit class.")

    public static let nextAllowed = MetricDefinition(
        "moltipass_next_allowed_timestamp_seconds", .gauge, labels: [.agent, .limitClass],
        help: "When the agent's limiter next admits the class (Unix seconds); the time of reading when it admits now.")

    public static let challenges = MetricDefinition(
        "moltipass_challenges_total", .counter, labels: [.result],
        help: "Verification challenges by result: received, solved, failed, uncertain, dropped.")

    public static let paused = MetricDefinition(
        "moltipass_agent_paused", .gauge, labels: [.agent, .kind],
        help: "1 while the agent's writes are paused by a pause of this kind (suspended: a suspension by Moltbook), "
            + "else 0.")

    public static let writesUnknown = MetricDefinition(
        "moltipass_writes_unknown", .gauge, labels: [.agent],
        help: "Writes whose outcome reading back could not establish: never sent again by themselves, they wait for "
            + "an operator (moltipass settle KEY --sent or --not-sent).")

    public static let leaseHeld = MetricDefinition(
        "moltipass_lease_held", .gauge, labels: [.agent],
        help: "1 while this runner holds the agent's lease, else 0.")

    public static let passDuration = MetricDefinition(
        "moltipass_pass_duration_seconds", .histogram, labels: [],
        help: "Wall-clock seconds of one engine pass over every agent.",
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300])

    public static let requestDuration = MetricDefinition(
        "moltipass_http_client_request_duration_seconds", .histogram, labels: [.method, .route, .statusClass],
        help: "Seconds of Moltbook API requests by method, route template and status class (error: no answer).",
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])

    public static let lastTick = MetricDefinition(
        "moltipass_last_tick_timestamp_seconds", .gauge, labels: [],
        help: "When this runner's last pass started, on its clock (Unix seconds).")

    /// Every metric, in the order of the reference table.
    public static let all: [MetricDefinition] = [
        buildInfo, actions, rateLimited, hintWaits, hintWaitSeconds, nextAllowed, challenges, paused, writesUnknown,
        leaseHeld,
        passDuration, requestDuration, lastTick,
    ]

    /// The definition named `name`, if any.
    public static func definition(named name: String) -> MetricDefinition? {
        byName[name]
    }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}

/// One metric of the catalog.
public struct MetricDefinition: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case counter, gauge, histogram
    }

    public let name: String
    public let kind: Kind
    /// Its label names, in the order they are exposed.
    public let labels: [MetricLabel]
    public let help: String
    /// Upper bounds of a histogram's buckets (seconds); empty for other kinds.
    public let buckets: [Double]

    init(_ name: String, _ kind: Kind, labels: [MetricLabel], help: String, buckets: [Double] = []) {
        self.name = name
        self.kind = kind
        self.labels = labels
        self.help = help
        self.buckets = buckets
    }
}

/// A label name, and where its values come from: each a set bounded by the configuration or the
/// code, never by what the server or a user's content says.
public enum MetricLabel: String, Sendable, Equatable, CaseIterable {
    case agent
    case action
    case outcome
    case limitClass = "class"
    case result
    case kind
    case method
    case route
    case statusClass = "status_class"
    case version
    case swift

    /// Where the values come from (the reference table of `docs/deploy.md` says the same).
    public var bound: String {
        switch self {
        case .agent: "the agents of the runner's recipes"
        case .action: ActionLabel.allCases.map(\.rawValue).joined(separator: ", ")
        case .outcome: OutcomeLabel.allCases.map(\.rawValue).joined(separator: ", ")
        case .limitClass: "the limit classes (read, write, post, comment, vote, follow, subscribe, submolt, verify, dm)"
        case .result: ChallengeResultLabel.allCases.map(\.rawValue).joined(separator: ", ")
        case .kind: "the pause kinds (challenge_failed, suspended, auth_breaker, key_refused, manual)"
        case .method: "GET, POST, PUT, PATCH, DELETE"
        case .route: "the API's route templates, ids replaced by {id}"
        case .statusClass: StatusClassLabel.allCases.map(\.rawValue).joined(separator: ", ")
        case .version, .swift: "one value per build"
        }
    }
}
