import Determinism
import Foundation
import MoltbookAPI

/// The whole mutable world of the sandbox. `SandboxModel` keeps one behind a mutex.
///
/// Handlers are `mutating` methods in `SandboxState+*.swift`; each takes the request time.
struct SandboxState: Sendable {
    var config: SandboxConfig
    let seed: UInt64
    var random: SeededRandom
    var challengeGenerator: ChallengeGenerator
    var counters = SandboxCounters()
    var agents: [String: SandboxAgent] = [:]
    var agentIDByKey: [String: String] = [:]
    var agentIDByName: [String: String] = [:]
    var posts: [String: SandboxPost] = [:]
    var comments: [String: SandboxComment] = [:]
    /// Posts and comments by submolt, author, post and keyword (see `SandboxIndex`).
    var index = SandboxIndex()
    /// Rendered list entries by post id (`listedPostJSON`).
    var listedPosts: [String: ListedPost] = [:]
    var submolts: [String: SandboxSubmolt] = [:]
    /// Vote direction (+1 / -1) by `"agentID|targetID"`.
    var votes: [String: Int] = [:]
    var challenges: [String: SandboxChallenge] = [:]
    /// `keep_unverified: false`: texts (agent and text) whose challenge was answered right and
    /// that the next identical send publishes without a challenge.
    var clearedContent: Set<String> = []
    var faults: [FaultSpec]
    /// Request window of unauthenticated calls (headers only; never enforced).
    var anonymousWindow = RateWindow()
    var nextSeq = 1
    /// Notifications and DM conversations.
    var inbox = SandboxInbox()
    /// Ids of notifications, conversations and messages: a stream of its own, so that the
    /// sandbox's other ids are those it drew before notifications existed.
    var inboxRandom: SeededRandom
    /// The simulated agents and their scheduled events.
    var simulation: SimulationState

    static let seedSubmolts: [(String, String, String)] = [
        ("general", "General", "The town square. Anything goes."),
        ("introductions", "Introductions", "New here? Say hello."),
        ("agents", "Agents", "Agents talking about being agents."),
    ]

    init(config: SandboxConfig, seed: UInt64) {
        self.config = config
        self.seed = seed
        self.random = SeededRandom(seed: seed)
        self.challengeGenerator = ChallengeGenerator(seed: seed ^ 0xC4A1_1E46_E000_0001)
        self.faults = config.faults
        self.inboxRandom = SeededRandom(seed: seed ^ 0x1B0C_5EED_0000_0022)
        self.simulation = SimulationState(seed: seed)
        let epoch = Date(timeIntervalSince1970: 1_769_904_000)  // 2026-02-01T00:00:00Z
        for (name, displayName, description) in Self.seedSubmolts {
            let submolt = SandboxSubmolt(
                id: random.uuid(), seq: takeSeq(), name: name, displayName: displayName, description: description,
                allowCrypto: false, createdAt: epoch, lastActivityAt: epoch, ownerID: nil, status: .published)
            submolts[name] = submolt
        }
    }

    mutating func takeSeq() -> Int {
        defer { nextSeq += 1 }
        return nextSeq
    }

    // MARK: Pipeline

    /// Handles one request end to end: admin routes, faults, auth, limits, the endpoint, headers.
    ///
    /// `handingOverTree`: a successful answer carries its body as a `JSONValue`
    /// (`HTTPResponse.parsedBody`) instead of bytes, for an in-process client that would only
    /// parse them back; errors and faults are always serialised.
    mutating func handle(_ request: SandboxRequest, now: Date, handingOverTree: Bool = false) -> SandboxReply {
        if config.simulation.isOn || !simulation.queue.isEmpty { advanceSimulation(to: now) }
        if request.path == "/_sandbox" || request.path.hasPrefix("/_sandbox/") {
            return SandboxReply(response: Self.render(admin(request, now: now)))
        }
        counters.requestsTotal += 1
        if request.method.isWrite { counters.writes += 1 } else { counters.reads += 1 }

        guard let fault = takeFault(for: request) else {
            let result = api(request, now: now)
            guard handingOverTree, (200...299).contains(result.status), result.body["success"] != false else {
                return SandboxReply(response: Self.render(result))
            }
            return SandboxReply(response: Self.render(result, tree: result.body))
        }
        counters.faultsInjected += 1
        return apply(fault, to: request, now: now)
    }

    /// The normal API behaviour, with rate-limit headers on every answer, in the configured dialect.
    mutating func api(_ request: SandboxRequest, now: Date) -> APIResult {
        let result = routed(request, now: now)
        guard config.dialect != .moltbookCom else { return result }
        return Self.shapeError(result, for: config.dialect)
    }

    private mutating func routed(_ request: SandboxRequest, now: Date) -> APIResult {
        let prefix = "/api/v1"
        guard request.path == prefix || request.path.hasPrefix(prefix + "/") else {
            return unknownRoute(hint: "The API lives under /api/v1")
        }
        let relative = String(request.path.dropFirst(prefix.count))
        switch SandboxRouter.match(method: request.method, path: relative, dialect: config.dialect) {
        case .notFound:
            return withAnonymousHeaders(unknownRoute(hint: "Check the path against skill.md"), now)
        case .methodNotAllowed(let allowed):
            var result: APIResult
            switch config.dialect {
            case .moltbookCom:
                result = .error(
                    405, "Method not allowed", hint: "Use \(allowed.joined(separator: " or ")) on this path")
            case .oss:
                // Express: no route for this method, so the catch-all 404.
                return withAnonymousHeaders(unknownRoute(hint: ""), now)
            case .minimalMock:
                result = .detail(405, "Method Not Allowed")
            }
            result.headers.append(("Allow", allowed.joined(separator: ", ")))
            return withAnonymousHeaders(result, now)
        case .endpoint(let endpoint, let params):
            let body = request.body.isEmpty ? nil : JSON.parseOrNil(request.body)
            guard endpoint.requiresAuth else {
                return withAnonymousHeaders(dispatch(endpoint, params, request, body, agentID: "", now: now), now)
            }
            return authenticated(endpoint, params, request, body, now: now)
        }
    }

    /// The dialect's 404 for a path it does not serve.
    private func unknownRoute(hint: String) -> APIResult {
        switch config.dialect {
        case .moltbookCom: .notFound("Endpoint not found", hint: hint)
        case .oss: .notFound("Endpoint not found")
        case .minimalMock: .detail(404, "Not Found")
        }
    }

    private mutating func authenticated(
        _ endpoint: SandboxEndpoint, _ params: [String], _ request: SandboxRequest, _ body: JSON?, now: Date
    ) -> APIResult {
        guard let key = Self.bearerToken(request.headers) else {
            counters.authFailures += 1
            return withAnonymousHeaders(
                .error(401, "Authentication required", hint: "Send Authorization: Bearer YOUR_API_KEY"), now)
        }
        guard let agentID = agentIDByKey[key], let name = agents[agentID]?.name else {
            counters.authFailures += 1
            let hint = config.dialect == .moltbookCom ? "Check the key you saved at registration" : nil
            return withAnonymousHeaders(.error(401, "Invalid API key", hint: hint), now)
        }
        counters.requestsByAgent[name, default: 0] += 1
        count(endpoint, by: name, now: now)
        // In place: a copy of the agent held through the request made the agent's first change
        // of a collection (its content prints) copy the whole collection.
        agents[agentID]?.lastActive = now
        sweepExpiredChallenges(of: agentID, now: now)

        let profile = limitProfile(of: agentID, now: now)
        let isWrite = request.method.isWrite
        let window: RequestWindow
        let limit: Int?
        if let shared = profile.requestsPerWindow {
            (window, limit) = (.shared, shared)
        } else {
            (window, limit) = isWrite ? (.write, profile.writesPerWindow) : (.read, profile.readsPerWindow)
        }
        let seconds = profile.requestWindowSeconds
        var result: APIResult
        var admitted = false
        if let resetAt = admit(agentID: agentID, window: window, limit: limit, windowSeconds: seconds, now: now) {
            let wait = SandboxTime.secondsUntil(resetAt, from: now)
            result = rateLimited(
                LimitRefusal(
                    kind: "request", retryAfterSeconds: wait, resetAt: resetAt, error: "Rate limit exceeded",
                    hint: "Wait \(SandboxWording.plural(wait, "second")) before trying again"))
        } else if isWrite || config.suspensionBlocksReads, endpoint != .verify, endpoint != .verificationSubmit,
            let refusal = suspensionRefusal(of: agentID, now: now)
        {
            counters.suspendedRequests += 1
            result = refusal
        } else {
            admitted = true
            result = dispatch(endpoint, params, request, body, agentID: agentID, now: now)
        }
        switch config.dialect {
        case .moltbookCom:
            break
        case .oss:
            // The post and comment limiters run after the request limiter and overwrite its headers.
            if admitted, let headers = ossActionRateHeaders(endpoint, agentID: agentID, now: now) {
                result.headers.append(contentsOf: headers)
                return result
            }
        case .minimalMock:
            return result
        }
        let current = agents[agentID].map { $0[window] } ?? RateWindow()
        result.headers.append(
            contentsOf: styled(Self.rateHeaders(current, limit: limit, windowSeconds: seconds, now: now), now: now))
        return result
    }

    private mutating func dispatch(
        _ endpoint: SandboxEndpoint, _ p: [String], _ request: SandboxRequest, _ body: JSON?, agentID: String,
        now: Date
    ) -> APIResult {
        let q = request.query
        if SandboxEndpoint.directMessages.contains(endpoint), let refusal = dmAgeRefusal(agentID, now: now) {
            return refusal
        }
        switch endpoint {
        case .register: return register(body, now: now)
        case .status: return status(agentID)
        case .me: return me(agentID, now: now)
        case .updateMe: return updateMe(agentID, body)
        case .profile: return profile(name: q["name"], viewer: agentID)
        case .uploadAvatar: return uploadAvatar(agentID, request)
        case .deleteAvatar: return deleteAvatar(agentID)
        case .follow:
            return challengingEveryWrite(
                follow(agentID, name: p[0], now: now), agentID: agentID, kind: "follow", now: now)
        case .unfollow:
            return challengingEveryWrite(
                unfollow(agentID, name: p[0], now: now), agentID: agentID, kind: "follow", now: now)
        case .createPost: return createPost(agentID, body, now: now)
        case .listPosts: return listPosts(agentID, q, submolt: q["submolt"], now: now)
        case .getPost: return getPost(agentID, id: p[0])
        case .deletePost: return deletePost(agentID, id: p[0])
        case .feed: return feed(agentID, q, now: now)
        case .submoltFeed: return submoltFeed(agentID, name: p[0], q, now: now)
        case .createComment: return createComment(agentID, postID: p[0], body, now: now)
        case .listComments: return listComments(agentID, postID: p[0], q)
        case .upvotePost:
            return challengingEveryWrite(
                vote(agentID, target: .post, id: p[0], direction: 1, now: now), agentID: agentID, kind: "vote", now: now
            )
        case .downvotePost:
            return challengingEveryWrite(
                vote(agentID, target: .post, id: p[0], direction: -1, now: now), agentID: agentID, kind: "vote",
                now: now)
        case .upvoteComment:
            return challengingEveryWrite(
                vote(agentID, target: .comment, id: p[0], direction: 1, now: now), agentID: agentID, kind: "vote",
                now: now)
        case .downvoteComment:
            return challengingEveryWrite(
                vote(agentID, target: .comment, id: p[0], direction: -1, now: now), agentID: agentID, kind: "vote",
                now: now)
        case .createSubmolt: return createSubmolt(agentID, body, now: now)
        case .listSubmolts: return listSubmolts(agentID, q)
        case .getSubmolt: return getSubmolt(agentID, name: p[0])
        case .subscribe:
            return challengingEveryWrite(
                subscribe(agentID, name: p[0], now: now), agentID: agentID, kind: "subscription", now: now)
        case .unsubscribe:
            return challengingEveryWrite(
                unsubscribe(agentID, name: p[0], now: now), agentID: agentID, kind: "subscription", now: now)
        case .search: return search(agentID, q)
        case .verify: return verify(agentID, body, now: now)
        case .verificationSubmit: return submitVerification(agentID, body, now: now)
        case .home: return home(agentID, now: now)
        case .notifications: return listNotifications(agentID, q)
        case .readNotificationsByPost: return readNotifications(agentID, postID: p[0], now: now)
        case .readAllNotifications: return readAllNotifications(agentID, now: now)
        case .dmCheck: return dmCheck(agentID)
        case .dmRequests:
            if config.dmShape == .inConversations { return .notFound("Not found") }
            return dmRequests(agentID)
        case .dmApprove:
            return challengingEveryWrite(
                approveDM(agentID, id: p[0], now: now), agentID: agentID, kind: "approval", now: now)
        case .dmReject: return rejectDM(agentID, id: p[0], body, now: now)
        case .dmConversations: return dmConversations(agentID)
        case .dmConversation:
            if config.dmShape == .inConversations { return .notFound("Not found") }
            return dmConversation(agentID, id: p[0], now: now)
        case .dmMessages:
            if config.dmShape == .listed { return .notFound("Not found") }
            return dmMessages(agentID, id: p[0], now: now)
        case .dmSend:
            return challengingEveryWrite(
                sendDM(agentID, id: p[0], body, now: now), agentID: agentID, kind: "message", now: now)
        case .dmRequest: return requestDM(agentID, body, now: now)
        }
    }

    /// Counts a request in `requests_by_agent_endpoint`, and a `GET /home` in `home_reads`.
    private mutating func count(_ endpoint: SandboxEndpoint, by name: String, now: Date) {
        if let key = SandboxRouter.counterKeys[endpoint] {
            counters.requestsByAgentEndpoint[name, default: [:]][key, default: 0] += 1
        }
        guard endpoint == .home else { return }
        counters.homeReads[name, default: []].append(SandboxTime.iso(now))
        if let kept = counters.homeReads[name]?.count, kept > SandboxCounters.homeReadsKept {
            counters.homeReads[name]?.removeFirst(kept - SandboxCounters.homeReadsKept)
        }
    }

    // MARK: Helpers

    /// The key from `Authorization: Bearer KEY`, or nil.
    static func bearerToken(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let key = HTTPHeaders.trimmingOWS(parts[1])
        return key.isEmpty ? nil : key
    }

    /// Adds the anonymous window's headers (counted, never enforced).
    mutating func withAnonymousHeaders(_ result: APIResult, _ now: Date) -> APIResult {
        guard config.dialect.sendsRateHeaders else { return result }
        let window = config.limits.requestWindowSeconds
        Self.roll(&anonymousWindow, windowSeconds: window, now: now)
        anonymousWindow.count += 1
        var result = result
        let limit = config.limits.requestsPerWindow ?? config.limits.writesPerWindow
        result.headers.append(
            contentsOf: styled(
                Self.rateHeaders(anonymousWindow, limit: limit, windowSeconds: window, now: now), now: now))
        return result
    }

    /// Serialises a result into an HTTP response with a JSON body.
    /// With `tree`, the body is handed over as that value and not serialised.
    static func render(_ result: APIResult, tree: JSONValue? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        for (name, value) in result.headers { headers.add(name: name, value: value) }
        guard let tree else {
            return HTTPResponse(status: result.status, headers: headers, body: result.body.serialized())
        }
        return HTTPResponse(status: result.status, headers: headers, parsedBody: tree)
    }

    /// Parses a JSON object body, or nil.
    static func object(_ body: JSON?) -> [String: JSON]? {
        body?.objectValue
    }
}
