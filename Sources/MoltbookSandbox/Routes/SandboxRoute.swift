import MoltbookAPI

/// The API endpoints the sandbox serves, with their paths under `/api/v1`.
enum SandboxEndpoint: Sendable, Hashable {
    case register, status, me, updateMe, profile, uploadAvatar, deleteAvatar, follow, unfollow
    case createPost, listPosts, getPost, deletePost, feed, submoltFeed
    case createComment, listComments
    case upvotePost, downvotePost, upvoteComment, downvoteComment
    case createSubmolt, listSubmolts, getSubmolt, subscribe, unsubscribe
    case search, verify
    /// The minimal-mock's `POST /verification/submit {code, answer}`.
    case verificationSubmit
    /// moltbook.com's dashboard and notifications (moltbook-api.md §1.8).
    case home, notifications, readNotificationsByPost, readAllNotifications
    /// moltbook.com's direct messages under `/agents/dm` (§1.9).
    case dmCheck, dmRequests, dmApprove, dmReject, dmConversations, dmConversation, dmSend, dmRequest
    /// `GET /agents/dm/conversations/ID/messages`: where `dm_shape: in_conversations` serves a
    /// conversation's messages (404 in moltbook.com's shape).
    case dmMessages

    /// The endpoints only moltbook.com serves: the other dialects answer 404 (§6.2).
    static let inbox: Set<SandboxEndpoint> = [
        .home, .notifications, .readNotificationsByPost, .readAllNotifications, .dmCheck, .dmRequests, .dmApprove,
        .dmReject, .dmConversations, .dmConversation, .dmSend, .dmRequest, .dmMessages,
    ]

    /// The direct-message endpoints (closed to agents younger than `dm_min_age_seconds`).
    static let directMessages: Set<SandboxEndpoint> = [
        .dmCheck, .dmRequests, .dmApprove, .dmReject, .dmConversations, .dmConversation, .dmSend, .dmRequest,
        .dmMessages,
    ]

    /// Whether the endpoint needs `Authorization: Bearer`.
    var requiresAuth: Bool { self != .register }
}

/// Maps a method and path to an endpoint, or says why it cannot (404 unknown path, 405 wrong method),
/// over the routes table of a dialect.
public enum SandboxRouter {
    enum Match: Equatable {
        case endpoint(SandboxEndpoint, params: [String])
        case notFound
        case methodNotAllowed(allowed: [String])
    }

    private struct Route {
        var method: HTTPMethod
        var pattern: [String]
        var endpoint: SandboxEndpoint
    }

    /// moltbook.com's routes.
    private static let routes: [Route] = [
        Route(method: .post, pattern: ["agents", "register"], endpoint: .register),
        Route(method: .get, pattern: ["agents", "status"], endpoint: .status),
        Route(method: .get, pattern: ["agents", "me"], endpoint: .me),
        Route(method: .patch, pattern: ["agents", "me"], endpoint: .updateMe),
        Route(method: .get, pattern: ["agents", "profile"], endpoint: .profile),
        Route(method: .post, pattern: ["agents", "me", "avatar"], endpoint: .uploadAvatar),
        Route(method: .delete, pattern: ["agents", "me", "avatar"], endpoint: .deleteAvatar),
        Route(method: .post, pattern: ["agents", ":", "follow"], endpoint: .follow),
        Route(method: .delete, pattern: ["agents", ":", "follow"], endpoint: .unfollow),
        Route(method: .post, pattern: ["posts"], endpoint: .createPost),
        Route(method: .get, pattern: ["posts"], endpoint: .listPosts),
        Route(method: .get, pattern: ["posts", ":"], endpoint: .getPost),
        Route(method: .delete, pattern: ["posts", ":"], endpoint: .deletePost),
        Route(method: .post, pattern: ["posts", ":", "comments"], endpoint: .createComment),
        Route(method: .get, pattern: ["posts", ":", "comments"], endpoint: .listComments),
        Route(method: .post, pattern: ["posts", ":", "upvote"], endpoint: .upvotePost),
        Route(method: .post, pattern: ["posts", ":", "downvote"], endpoint: .downvotePost),
        Route(method: .post, pattern: ["comments", ":", "upvote"], endpoint: .upvoteComment),
        Route(method: .post, pattern: ["comments", ":", "downvote"], endpoint: .downvoteComment),
        Route(method: .get, pattern: ["feed"], endpoint: .feed),
        Route(method: .post, pattern: ["submolts"], endpoint: .createSubmolt),
        Route(method: .get, pattern: ["submolts"], endpoint: .listSubmolts),
        Route(method: .get, pattern: ["submolts", ":"], endpoint: .getSubmolt),
        Route(method: .get, pattern: ["submolts", ":", "feed"], endpoint: .submoltFeed),
        Route(method: .post, pattern: ["submolts", ":", "subscribe"], endpoint: .subscribe),
        Route(method: .delete, pattern: ["submolts", ":", "subscribe"], endpoint: .unsubscribe),
        Route(method: .get, pattern: ["search"], endpoint: .search),
        Route(method: .post, pattern: ["verify"], endpoint: .verify),
        Route(method: .get, pattern: ["home"], endpoint: .home),
        Route(method: .get, pattern: ["notifications"], endpoint: .notifications),
        Route(method: .post, pattern: ["notifications", "read-by-post", ":"], endpoint: .readNotificationsByPost),
        Route(method: .post, pattern: ["notifications", "read-all"], endpoint: .readAllNotifications),
        Route(method: .get, pattern: ["agents", "dm", "check"], endpoint: .dmCheck),
        Route(method: .get, pattern: ["agents", "dm", "requests"], endpoint: .dmRequests),
        Route(method: .post, pattern: ["agents", "dm", "requests", ":", "approve"], endpoint: .dmApprove),
        Route(method: .post, pattern: ["agents", "dm", "requests", ":", "reject"], endpoint: .dmReject),
        Route(method: .get, pattern: ["agents", "dm", "conversations"], endpoint: .dmConversations),
        Route(method: .get, pattern: ["agents", "dm", "conversations", ":"], endpoint: .dmConversation),
        Route(method: .get, pattern: ["agents", "dm", "conversations", ":", "messages"], endpoint: .dmMessages),
        Route(method: .post, pattern: ["agents", "dm", "conversations", ":", "send"], endpoint: .dmSend),
        Route(method: .post, pattern: ["agents", "dm", "request"], endpoint: .dmRequest),
    ]

    /// `METHOD /path` of each endpoint with `:id` for its parameters (`POST /posts/:id/comments`):
    /// the keys of the per-agent request counters.
    static let counterKeys: [SandboxEndpoint: String] = {
        var keys: [SandboxEndpoint: String] = [:]
        for route in routes + minimalMockRoutes where keys[route.endpoint] == nil {
            let path = route.pattern.map { $0 == ":" ? ":id" : $0 }.joined(separator: "/")
            keys[route.endpoint] = route.method.rawValue + " /" + path
        }
        return keys
    }()

    /// The OSS server's: no `/verify`, `/home`, notifications or DMs.
    private static let ossRoutes = routes.filter {
        $0.endpoint != .verify && !SandboxEndpoint.inbox.contains($0.endpoint)
    }

    /// The minimal mock's: no search, profile, status, submolt feed, `/verify`, `/home`,
    /// notifications or DMs; challenges are answered at `/verification/submit`.
    private static let minimalMockRoutes =
        routes.filter {
            ![.search, .profile, .status, .submoltFeed, .verify].contains($0.endpoint)
                && !SandboxEndpoint.inbox.contains($0.endpoint)
        }
        + [Route(method: .post, pattern: ["verification", "submit"], endpoint: .verificationSubmit)]

    /// Matches `path` (relative to `/api/v1`, e.g. `/posts/ID`) for `method` in `dialect`.
    static func match(method: HTTPMethod, path: String, dialect: SandboxDialect = .moltbookCom) -> Match {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let table: [Route]
        switch dialect {
        case .moltbookCom: table = routes
        case .oss: table = ossRoutes
        case .minimalMock: table = minimalMockRoutes
        }
        var allowed: [String] = []
        for route in table {
            guard let params = bind(route.pattern, to: segments) else { continue }
            if route.method == method { return .endpoint(route.endpoint, params: params) }
            allowed.append(route.method.rawValue)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func bind(_ pattern: [String], to segments: [String]) -> [String]? {
        guard pattern.count == segments.count else { return nil }
        var params: [String] = []
        for (part, segment) in zip(pattern, segments) {
            if part == ":" {
                params.append(segment)
            } else if part != segment {
                return nil
            }
        }
        return params
    }
}

extension SandboxEndpoint {
    /// The limit class a request to the endpoint counts against, as `plan` tallies it: reads,
    /// each write class, or the generic write budget. Every endpoint is listed (no `default:`):
    /// a new one is classified where it is added.
    var limitClass: String {
        switch self {
        case .status, .me, .profile, .listPosts, .getPost, .feed, .submoltFeed, .listComments, .listSubmolts,
            .getSubmolt, .search, .home, .notifications, .dmCheck, .dmRequests, .dmConversations, .dmConversation,
            .dmMessages:
            "read"
        case .dmSend, .dmRequest: "dm"
        case .createPost: "post"
        case .createComment: "comment"
        case .upvotePost, .downvotePost, .upvoteComment, .downvoteComment: "vote"
        case .follow, .unfollow: "follow"
        case .subscribe, .unsubscribe: "subscribe"
        case .createSubmolt: "submolt"
        case .verify, .verificationSubmit: "verify"
        case .register, .updateMe, .uploadAvatar, .deleteAvatar, .deletePost, .readNotificationsByPost,
            .readAllNotifications, .dmApprove, .dmReject:
            "write"
        }
    }
}

extension SandboxRouter {
    /// The limit class of a request to the sandbox at `path` (with or without the `/api/v1`
    /// prefix): its endpoint's class, "read" for any other GET, "write" for any other method.
    public static func limitClass(method: HTTPMethod, path: String, dialect: SandboxDialect = .moltbookCom) -> String {
        let relative = path.range(of: "/api/v1").map { String(path[$0.upperBound...]) } ?? path
        if case .endpoint(let endpoint, _) = match(method: method, path: relative, dialect: dialect) {
            return endpoint.limitClass
        }
        return method == .get ? "read" : "write"
    }
}
