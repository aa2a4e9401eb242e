/// One request as the client saw it, for metrics (`MoltbookClient.observer`): the method, the
/// route with every id replaced, how it ended and how long it took. No URL, no id, no key, no
/// body: nothing in it names an agent's content or credentials.
public struct RequestObservation: Sendable, Equatable {
    public var method: HTTPMethod
    /// The route template: `/posts/{id}/comments` (`route(of:)`).
    public var route: String
    /// The HTTP status; nil when no response came (a transport failure).
    public var status: Int?
    /// From just before the request left to the answer (or the failure).
    public var duration: Duration
    /// The rate-limit signals the response carried (empty without a response).
    public var rateLimit: RateLimitHint

    public init(method: HTTPMethod, route: String, status: Int?, duration: Duration, rateLimit: RateLimitHint) {
        self.method = method
        self.route = route
        self.status = status
        self.duration = duration
        self.rateLimit = rateLimit
    }

    /// The path segments every route of the API spells out; any other segment is an id or a name.
    static let literalSegments: Set<String> = [
        "agents", "answer", "approve", "avatar", "challenges", "check", "comments", "conversations", "dm",
        "downvote", "feed", "follow", "home", "me", "notifications", "posts", "profile", "read-all",
        "read-by-post", "register", "reject", "request", "requests", "search", "send", "status", "submolts",
        "subscribe", "upvote", "verification", "verify",
    ]

    /// The route template of a request's path segments: the API's own words kept, every other
    /// segment (a post or comment id, an agent or submolt name, a conversation id) `{id}`.
    /// A closed vocabulary and at most `maxSegments` segments (a longer path is `/other`), so the
    /// set of templates is bounded whatever the ids are.
    public static func route(of segments: [String]) -> String {
        guard segments.count <= maxSegments else { return "/other" }
        return "/" + segments.map { literalSegments.contains($0) ? $0 : "{id}" }.joined(separator: "/")
    }

    static let maxSegments = 6
}

/// Called once per request the client sends, after the answer (or the failure); must be quick
/// and must not block (it runs on the request's task).
public typealias RequestObserver = @Sendable (RequestObservation) -> Void

/// Asked before a request leaves (`MoltbookClient.with(gate:)`), with the request's
/// `METHOD /path`: nil lets it go; an error is thrown instead, and nothing is sent. A refusal
/// should say it was not sent (a `.transport` error whose `requestSent` is false), so that a
/// caller never takes it for an outcome it must reconcile.
public typealias RequestGate = @Sendable (_ endpoint: String) async -> APIError?
