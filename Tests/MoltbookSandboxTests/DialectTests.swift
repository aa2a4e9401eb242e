import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// One answer as it came over the wire.
struct WireAnswer {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var json: JSON

    subscript(key: String) -> JSON? { json[key] }

    /// The body's top-level keys, sorted.
    var keys: [String] { Self.keys(json) }

    /// The `X-RateLimit-Limit`, `-Remaining` and `-Reset` headers, nil where absent.
    var rate: [String?] {
        ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"].map { headers[$0] }
    }

    static func keys(_ json: JSON?) -> [String] { json?.objectValue?.keys.sorted() ?? [] }
}

/// A `SandboxServer` on a fixed clock, switched to a dialect through `POST /_sandbox/config` and
/// driven over HTTP with `RawHTTPClient`, one connection per call.
final class WireSandbox: Sendable {
    let server: SandboxServer
    let port: UInt16

    static let t0 = SandboxDriver.t0
    /// `t0` in Unix seconds, as `X-RateLimit-Reset` counts.
    static let t0Unix = Int(t0.timeIntervalSince1970)

    private init(server: SandboxServer, port: UInt16) {
        self.server = server
        self.port = port
    }

    /// Runs `body` against a fresh sandbox in `dialect` (with `config` keys laid over the defaults;
    /// agents are past the new-agent period), then stops it.
    static func with(
        _ dialect: SandboxDialect, _ config: [String: JSON] = [:], _ body: (WireSandbox) async throws -> Void
    ) async throws {
        let server = SandboxServer(model: SandboxModel(), clock: SettableClock(fixed: t0))
        let url = try await server.start()
        let wire = WireSandbox(server: server, port: UInt16(url.port ?? 0))
        do {
            var patch = config
            patch["dialect"] = .string(dialect.rawValue)
            if patch["new_agent_period_seconds"] == nil { patch["new_agent_period_seconds"] = 0 }
            let set = await wire.call("POST", "/_sandbox/config", json: .object(patch))
            try #require(set.status == 200)
            try #require(set["config"]?["dialect"] == .string(dialect.rawValue))
            try await body(wire)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Sends one request (`path` under `/api/v1` unless it is an admin path; a query may be included).
    func call(_ method: String, _ path: String, key: String? = nil, json: JSON? = nil) async -> WireAnswer {
        var headers: [String: String] = [:]
        if let key { headers["Authorization"] = "Bearer \(key)" }
        if json != nil { headers["Content-Type"] = "application/json" }
        let full = path.hasPrefix("/_sandbox") ? path : "/api/v1" + path
        let body = json.map { String(decoding: $0.serialized(), as: UTF8.self) } ?? ""
        let request = RawHTTPClient.request(method, full, headers: headers, body: body)
        guard let response = await RawHTTPClient.exchange(port: port, requests: [request]).first ?? nil else {
            return WireAnswer(status: 0, headers: [:], json: .null)
        }
        return WireAnswer(
            status: response.status, headers: response.headers, json: JSON.parseOrNil(response.body) ?? .null)
    }

    /// Registers and claims `name`; returns its key.
    func agent(_ name: String) async -> String {
        let registered = await call("POST", "/agents/register", json: ["name": .string(name), "description": "d"])
        _ = await call("POST", "/_sandbox/agents/\(name)/claim")
        return registered["agent"]?["api_key"]?.stringValue ?? ""
    }

    /// Creates a post with `submolt` (a key every dialect reads).
    func post(_ key: String, title: String = "Reef news", content: String = "Tide is high") async -> WireAnswer {
        await call(
            "POST", "/posts", key: key,
            json: ["submolt": "general", "title": .string(title), "content": .string(content)])
    }

    func comment(_ key: String, on postID: String, _ content: String, parent: String? = nil) async -> WireAnswer {
        var body: [String: JSON] = ["content": .string(content)]
        if let parent { body["parent_id"] = .string(parent) }
        return await call("POST", "/posts/\(postID)/comments", key: key, json: .object(body))
    }

    func advance(_ seconds: TimeInterval) { server.clock.advance(by: seconds) }

    var counters: SandboxCounters { server.model.counters() }
}

@Suite struct DialectTests {
    static let ossNotFound: JSON = ["success": false, "error": "Endpoint not found", "code": "NOT_FOUND"]
    static let mockNotFound: JSON = ["detail": "Not Found"]

    // MARK: Selecting a dialect

    /// The dialect names are moltbook.com, oss-1.0 and minimal-mock; JSON key `dialect`, default moltbook.com.
    @Test func namesAndConfigKey() throws {
        #expect(SandboxDialect.allCases.map(\.rawValue) == ["moltbook.com", "oss-1.0", "minimal-mock"])
        #expect(SandboxConfig().dialect == .moltbookCom)
        let decoded = try JSONDecoder().decode(SandboxConfig.self, from: Data(#"{"dialect":"oss-1.0"}"#.utf8))
        #expect(decoded.dialect == .oss)
        #expect(decoded.limits == .oss)
        let encoded = try #require(JSON.parseOrNil(JSONEncoder().encode(SandboxConfig(dialect: .minimalMock))))
        #expect(encoded["dialect"] == "minimal-mock")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SandboxConfig.self, from: Data(#"{"dialect":"moltbook.org"}"#.utf8))
        }
    }

    /// Limits follow the dialect unless they were set by hand; a partial `limits` fills in from the dialect's.
    @Test func limitsFollowTheDialect() throws {
        var config = SandboxConfig()
        config.dialect = .oss
        #expect(config.limits == .oss)
        config.dialect = .moltbookCom
        #expect(config.limits == .established)
        var own = SandboxConfig(limits: .unlimited)
        own.dialect = .oss
        #expect(own.limits == .unlimited)
        let switched = try SandboxConfig().updated(withJSON: Data(#"{"dialect":"oss-1.0"}"#.utf8))
        #expect(switched.limits.requestsPerWindow == 100)
        #expect(switched.limits.commentsPerHour == 50)
        let partial = try JSONDecoder().decode(
            SandboxConfig.self, from: Data(#"{"dialect":"oss-1.0","limits":{"post_cooldown_seconds":null}}"#.utf8))
        #expect(partial.limits.postCooldownSeconds == nil)
        #expect(partial.limits.requestsPerWindow == 100)
        #expect(partial.limits.readsPerWindow == nil)
    }

    /// POST /_sandbox/config switches the dialect (unknown names are 400) and GET shows it.
    @Test func adminConfigSwitchesDialect() async throws {
        try await WireSandbox.with(.moltbookCom) { wire in
            #expect(await wire.call("GET", "/nowhere").json["hint"] != nil)
            let bad = await wire.call("POST", "/_sandbox/config", json: ["dialect": "oss-2.0"])
            #expect(bad.status == 400)
            _ = await wire.call("POST", "/_sandbox/config", json: ["dialect": "oss-1.0"])
            let config = await wire.call("GET", "/_sandbox/config")["config"]
            #expect(config?["dialect"] == "oss-1.0")
            #expect(config?["limits"]?["requests_per_window"] == 100)
            #expect(await wire.call("GET", "/nowhere").json == Self.ossNotFound)
        }
    }

    /// `moltbook-sandbox --dialect NAME` serves that dialect; an unknown name is a usage error naming the valid ones.
    @Test func commandLineFlag() async throws {
        let sandbox = try await SandboxProcess.start(arguments: ["--dialect", "minimal-mock"])
        let port = UInt16(sandbox.baseURL.port ?? 0)
        let requests = [
            RawHTTPClient.request("GET", "/_sandbox/config"), RawHTTPClient.request("GET", "/api/v1/nowhere"),
        ]
        let responses = await RawHTTPClient.exchange(port: port, requests: requests)
        await sandbox.stop()
        #expect(JSON.parseOrNil(responses[0]?.body ?? Data())?["config"]?["dialect"] == "minimal-mock")
        #expect(JSON.parseOrNil(responses[1]?.body ?? Data()) == Self.mockNotFound)
        let refused = try await ProcessRunner.run("moltbook-sandbox", ["--dialect", "moltbook.org"], timeout: 30)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("oss-1.0"))
    }

    /// MOLTIPASS_TEST_DIALECT: unset or empty is moltbook.com, a dialect name is that dialect, anything else nil.
    @Test func testDialectNames() {
        #expect(TestDialect.dialect(named: nil) == .moltbookCom)
        #expect(TestDialect.dialect(named: "") == .moltbookCom)
        for dialect in SandboxDialect.allCases { #expect(TestDialect.dialect(named: dialect.rawValue) == dialect) }
        #expect(TestDialect.dialect(named: "oss") == nil)
        #expect(TestDialect.variable == "MOLTIPASS_TEST_DIALECT")
    }

    // MARK: Creating posts

    /// `submolt_name` alone creates a post on moltbook.com and the mock; oss-1.0 answers 500 (TypeError).
    @Test(arguments: SandboxDialect.allCases)
    func submoltNameAlone(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let key = await wire.agent("Namer")
            let answer = await wire.call(
                "POST", "/posts", key: key, json: ["submolt_name": "general", "title": "t", "content": "c"])
            if dialect == .oss {
                #expect(answer.status == 500)
                #expect(
                    answer.json
                        == [
                            "success": false,
                            "error": "Cannot read properties of undefined (reading 'toLowerCase')",
                        ])
                #expect(wire.counters.postsCreated == 0)
            } else {
                #expect(answer.status == 201)
                #expect(answer["post"]?["id"]?.stringValue?.isEmpty == false)
            }
        }
    }

    /// `submolt` alone creates a post in every dialect.
    @Test(arguments: SandboxDialect.allCases)
    func submoltAlone(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let answer = await wire.post(await wire.agent("Poster"))
            #expect(answer.status == 201)
            #expect(answer["success"] == true)
            #expect(answer["post"]?["id"]?.stringValue?.isEmpty == false)
            #expect(wire.counters.postsCreated == 1)
        }
    }

    /// A POST /posts refused by validation (400, then the 500) blocks the next post for 30 minutes on oss-1.0 only.
    @Test(arguments: SandboxDialect.allCases)
    func failedPostUsesTheCooldown(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let key = await wire.agent("Eager")
            #expect(await wire.call("POST", "/posts", key: key, json: ["submolt": "general"]).status == 400)
            wire.advance(60)
            let next = await wire.post(key)
            if dialect == .oss {
                #expect(next.status == 429)
                #expect(next["retryAfter"] == 1740)
                wire.advance(1740)
                let missing = await wire.call("POST", "/posts", key: key, json: ["title": "no submolt"])
                #expect(missing.status == 500)
                #expect(await wire.post(key).status == 429)
                wire.advance(1800)
                #expect(await wire.post(key).status == 201)
            } else {
                #expect(next.status == 201)
            }
        }
    }

    /// A refused comment (unknown post, 404) still counts against oss-1.0's 50-per-hour comment limiter.
    @Test(arguments: SandboxDialect.allCases)
    func failedCommentUsesTheLimiter(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let key = await wire.agent("Chatty")
            let postID = await wire.post(key)["post"]?["id"]?.stringValue ?? ""
            let refused = await wire.comment(key, on: "no-such-post", "hello?")
            #expect(refused.status == 404)
            wire.advance(30)
            let accepted = await wire.comment(key, on: postID, "hello")
            #expect(accepted.status == 201)
            if dialect == .oss {
                #expect(refused.rate == ["50", "49", String(WireSandbox.t0Unix + 3600)])
                #expect(accepted.rate == ["50", "48", String(WireSandbox.t0Unix + 3600)])
            } else {
                #expect(accepted.headers["x-ratelimit-limit"] != "50")
            }
        }
    }

    // MARK: Limits and headers

    /// oss-1.0: X-RateLimit-* describe the 100/min request limiter, except on POST /posts (limit 1) and
    /// comments (limit 50), on success and on the 429, whose body is the camelCase RATE_LIMITED shape.
    @Test func ossHeaderAttribution() async throws {
        try await WireSandbox.with(.oss) { wire in
            let t0 = WireSandbox.t0Unix
            let key = await wire.agent("Counted")
            #expect(await wire.call("GET", "/agents/me", key: key).rate == ["100", "99", String(t0 + 60)])
            let created = await wire.post(key)
            #expect(created.status == 201)
            #expect(created.rate == ["1", "0", String(t0 + 1800)])
            wire.advance(10)
            let refused = await wire.post(key, title: "again")
            #expect(refused.status == 429)
            #expect(refused.rate == ["1", "0", String(t0 + 1800)])
            #expect(refused.headers["retry-after"] == "1790")
            #expect(
                refused.json
                    == [
                        "success": false, "error": "You can only post once every 30 minutes", "code": "RATE_LIMITED",
                        "hint": "Try again in 1790 seconds", "retryAfter": 1790, "retryAfterMinutes": 30,
                    ])
            let postID = created["post"]?["id"]?.stringValue ?? ""
            let comment = await wire.comment(key, on: postID, "first")
            #expect(comment.rate == ["50", "49", String(t0 + 10 + 3600)])
            // Reads and writes share one window: me, post, post, comment, and this one.
            let write = await wire.call("PATCH", "/agents/me", key: key, json: ["description": "x"])
            #expect(write.rate == ["100", "95", String(t0 + 60)])
        }
    }

    /// moltbook.com reports the write window on POST /posts; the minimal mock sends no X-RateLimit-* at all,
    /// and its 429 is `{"detail":"Rate limit exceeded"}` with Retry-After.
    @Test(arguments: [SandboxDialect.moltbookCom, .minimalMock])
    func headersOutsideOSS(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let key = await wire.agent("Plain")
            let answers = [
                await wire.call("GET", "/agents/me", key: key), await wire.post(key),
                await wire.call("GET", "/nowhere"),
            ]
            wire.advance(60)
            let refused = await wire.post(key, title: "again")
            #expect(refused.status == 429)
            #expect(refused.headers["retry-after"] == "1740")
            if dialect == .moltbookCom {
                #expect(answers[1].rate == ["30", "29", String(WireSandbox.t0Unix + 60)])
                #expect(refused["retry_after_minutes"] == 29)
            } else {
                for answer in answers + [refused] { #expect(answer.rate == [nil, nil, nil]) }
                #expect(refused.json == ["detail": "Rate limit exceeded"])
            }
        }
    }

    /// oss-1.0 allows 50 comments in a rolling hour, no cooldown and no daily cap; the 51st is 429 until the first ages out.
    @Test func ossCommentsPerHour() async throws {
        try await WireSandbox.with(.oss) { wire in
            let key = await wire.agent("Talker")
            let postID = await wire.post(key)["post"]?["id"]?.stringValue ?? ""
            let first = WireSandbox.t0Unix + 2
            for index in 0..<50 {
                wire.advance(2)
                #expect(await wire.comment(key, on: postID, "c\(index)").status == 201)
            }
            wire.advance(2)
            let refused = await wire.comment(key, on: postID, "one too many")
            #expect(refused.status == 429)
            #expect(refused["code"] == "RATE_LIMITED")
            #expect(refused.rate == ["50", "0", String(first + 3600)])
            #expect(refused.headers["retry-after"] == String(3600 - 100))
            wire.advance(3600 - 100)
            #expect(await wire.comment(key, on: postID, "next hour").status == 201)
            #expect(wire.counters.commentsCreated == 51)
            #expect(wire.counters.rateLimitedByClass["comment"] == 1)
        }
    }

    /// posts_created, comments_created, votes_removed and rate_limited count in every dialect.
    @Test(arguments: SandboxDialect.allCases)
    func countersCountEverywhere(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let author = await wire.agent("Author")
            let voter = await wire.agent("Voter")
            let postID = await wire.post(author)["post"]?["id"]?.stringValue ?? ""
            #expect(await wire.comment(voter, on: postID, "nice").status == 201)
            _ = await wire.call("POST", "/posts/\(postID)/upvote", key: voter)
            _ = await wire.call("POST", "/posts/\(postID)/upvote", key: voter)
            #expect(await wire.post(author, title: "too soon").status == 429)
            let counters = await wire.call("GET", "/_sandbox/counters")
            #expect(counters["posts_created"] == 1)
            #expect(counters["comments_created"] == 1)
            #expect(counters["votes_cast"] == 1)
            #expect(counters["votes_removed"] == 1)
            #expect(counters["rate_limited"] == 1)
            #expect(counters["limit_violations"] == 1)
        }
    }

    // MARK: Shapes

    /// Lists: moltbook.com `posts` + cursor; oss-1.0 `data` + `pagination` with offsets and flat items;
    /// the mock a bare `{posts}` whose items have `author{name}`, `submolt{name}`, `score` and no `created_at`.
    @Test(arguments: SandboxDialect.allCases)
    func listShapes(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            var ids: [String] = []
            for name in ["First", "Second", "Third"] {
                ids.append(await wire.post(await wire.agent(name), title: name)["post"]?["id"]?.stringValue ?? "")
                wire.advance(1)
            }
            let key = await wire.agent("Reader")
            let page = await wire.call("GET", "/posts?sort=new&limit=2", key: key)
            #expect(page.status == 200)
            switch dialect {
            case .moltbookCom:
                #expect(page.keys == ["authenticated", "count", "has_more", "next_cursor", "posts", "success"])
                #expect(page["posts"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2], ids[1]])
            case .oss:
                #expect(page.keys == ["data", "pagination", "success"])
                let items = page["data"]?.arrayValue ?? []
                #expect(items.compactMap { $0["id"]?.stringValue } == [ids[2], ids[1]])
                #expect(
                    WireAnswer.keys(items.first)
                        == [
                            "author_name", "comment_count", "content", "created_at", "id", "score", "submolt", "title",
                            "url",
                        ])
                #expect(items.first?["author_name"] == "Third")
                #expect(items.first?["submolt"] == "general")
                #expect(page["pagination"] == ["count": 2, "limit": 2, "offset": 0, "hasMore": true])
                let next = await wire.call("GET", "/posts?sort=new&limit=2&offset=2", key: key)
                #expect(next["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[0]])
                #expect(next["pagination"] == ["count": 1, "limit": 2, "offset": 2, "hasMore": false])
                let feed = await wire.call("GET", "/submolts/general/feed?sort=new", key: key)
                #expect(feed["data"]?.arrayValue?.count == 3)
            case .minimalMock:
                #expect(page.keys == ["posts"])
                let items = page["posts"]?.arrayValue ?? []
                #expect(items.compactMap { $0["id"]?.stringValue } == [ids[2], ids[1]])
                #expect(WireAnswer.keys(items.first) == ["author", "content", "id", "score", "submolt", "title"])
                #expect(items.first?["author"] == ["name": "Third"])
                #expect(items.first?["submolt"] == ["name": "general"])
            }
        }
    }

    /// GET /posts/ID: moltbook.com embeds comments and `your_vote`; oss-1.0 has `userVote` and no comments
    /// (those come from /posts/ID/comments as a tree); the mock answers `{post, comments}` with no vote state.
    @Test(arguments: SandboxDialect.allCases)
    func detailShapes(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let author = await wire.agent("Author")
            let reader = await wire.agent("Reader")
            let postID = await wire.post(author)["post"]?["id"]?.stringValue ?? ""
            _ = await wire.call("POST", "/posts/\(postID)/upvote", key: reader)
            let root = await wire.comment(reader, on: postID, "root")["comment"]?["id"]?.stringValue ?? ""
            wire.advance(30)
            let reply = await wire.comment(author, on: postID, "reply", parent: root)["comment"]?["id"]?.stringValue
            let detail = await wire.call("GET", "/posts/\(postID)", key: reader)
            #expect(detail.status == 200)
            let comments = await wire.call("GET", "/posts/\(postID)/comments", key: reader)
            switch dialect {
            case .moltbookCom:
                #expect(detail["post"]?["your_vote"] == "upvote")
                #expect(detail["comments"]?.arrayValue?.count == 1)
            case .oss:
                #expect(detail.keys == ["post", "success"])
                #expect(detail["post"]?["userVote"] == "up")
                #expect(detail["post"]?["author_name"] == "Author")
                #expect(detail["post"]?["comment_count"] == 2)
                #expect(comments.keys == ["comments", "success"])
                let first = comments["comments"]?.arrayValue?.first
                #expect(
                    WireAnswer.keys(first)
                        == ["author_name", "content", "created_at", "id", "parent_id", "replies", "score"])
                #expect(first?["id"]?.stringValue == root)
                #expect(first?["replies"]?.arrayValue?.first?["id"]?.stringValue == reply)
                #expect(first?["replies"]?.arrayValue?.first?["parent_id"]?.stringValue == root)
                let own = await wire.call("GET", "/posts/\(postID)", key: author)
                #expect(own["post"]?["userVote"] == .null)
            case .minimalMock:
                #expect(detail.keys == ["comments", "post"])
                #expect(WireAnswer.keys(detail["post"]) == ["author", "content", "id", "score", "submolt", "title"])
                #expect(detail["post"]?["score"] == 1)
                let first = detail["comments"]?.arrayValue?.first
                #expect(WireAnswer.keys(first) == ["author", "content", "id", "parent_id", "replies", "score"])
                #expect(first?["replies"]?.arrayValue?.first?["id"]?.stringValue == reply)
                #expect(comments.keys == ["comments"])
            }
        }
    }

    /// oss-1.0's GET /agents/me is camelCase, and its agents count as claimed.
    @Test func ossProfileAndStatus() async throws {
        try await WireSandbox.with(.oss) { wire in
            let registered = await wire.call("POST", "/agents/register", json: ["name": "Fresh", "description": "d"])
            let key = registered["agent"]?["api_key"]?.stringValue ?? ""
            let me = await wire.call("GET", "/agents/me", key: key)
            #expect(me.keys == ["agent", "success"])
            #expect(
                WireAnswer.keys(me["agent"])
                    == [
                        "createdAt", "description", "displayName", "followerCount", "followingCount", "id", "isClaimed",
                        "karma", "lastActive", "name",
                    ])
            #expect(await wire.call("GET", "/agents/status", key: key).json == ["success": true, "status": "claimed"])
        }
    }

    /// oss-1.0 ignores require_claim and challenge_rate: an unclaimed agent posts, and nothing is challenged.
    @Test func ossHasNoClaimOrChallenges() async throws {
        try await WireSandbox.with(.oss, ["challenge_rate": 1, "require_claim": true]) { wire in
            let registered = await wire.call(
                "POST", "/agents/register", json: ["name": "Unclaimed", "description": "d"])
            let key = registered["agent"]?["api_key"]?.stringValue ?? ""
            let post = await wire.post(key)
            #expect(post.status == 201)
            #expect(post["post"]?["verification"] == nil)
            #expect(wire.counters.challengesIssued == 0)
            #expect(wire.counters.unclaimedWrites == 0)
        }
    }

    /// oss-1.0's search is keyword search answering `{success, posts, agents, submolts}`.
    @Test func ossSearch() async throws {
        try await WireSandbox.with(.oss) { wire in
            let key = await wire.agent("Diver")
            _ = await wire.post(key, title: "Molting season", content: "shells everywhere")
            let found = await wire.call("GET", "/search?q=molting", key: key)
            #expect(found.keys == ["agents", "posts", "submolts", "success"])
            #expect(found["posts"]?.arrayValue?.first?["title"] == "Molting season")
            #expect(found["posts"]?.arrayValue?.first?["author_name"] == "Diver")
            let agents = await wire.call("GET", "/search?q=dive", key: key)["agents"]?.arrayValue
            #expect(agents?.compactMap { $0["name"]?.stringValue } == ["Diver"])
            let submolts = await wire.call("GET", "/search?q=intro", key: key)["submolts"]?.arrayValue
            #expect(submolts?.compactMap { $0["name"]?.stringValue } == ["introductions"])
        }
    }

    // MARK: Votes

    /// Votes toggle in every dialect (upvoted, removed, downvoted, changed); oss-1.0 shows it in `userVote`.
    @Test(arguments: SandboxDialect.allCases)
    func votesToggle(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let author = await wire.agent("Author")
            let voter = await wire.agent("Voter")
            let postID = await wire.post(author)["post"]?["id"]?.stringValue ?? ""
            var actions: [String] = []
            var states: [JSON?] = []
            for direction in ["upvote", "upvote", "downvote", "upvote"] {
                let answer = await wire.call("POST", "/posts/\(postID)/\(direction)", key: voter)
                actions.append(answer["action"]?.stringValue ?? "?")
                if dialect == .minimalMock { #expect(answer.keys == ["action", "success"]) }
                if dialect == .oss { #expect(answer.keys == ["action", "message", "success"]) }
                let post = await wire.call("GET", "/posts/\(postID)", key: voter)["post"]
                states.append(dialect == .oss ? post?["userVote"] : post?["your_vote"])
            }
            #expect(actions == ["upvoted", "removed", "downvoted", "changed"])
            switch dialect {
            case .moltbookCom: #expect(states == ["upvote", .null, "downvote", "upvote"])
            case .oss: #expect(states == ["up", .null, "down", "up"])
            case .minimalMock: #expect(states == [nil, nil, nil, nil])
            }
            #expect(wire.counters.votesRemoved == 1)
            #expect(wire.counters.votesChanged == 1)
        }
    }

    /// Voting on your own post is 400 everywhere, in each dialect's error shape.
    @Test(arguments: SandboxDialect.allCases)
    func selfVote(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let author = await wire.agent("Narcissus")
            let postID = await wire.post(author)["post"]?["id"]?.stringValue ?? ""
            let answer = await wire.call("POST", "/posts/\(postID)/upvote", key: author)
            #expect(answer.status == 400)
            switch dialect {
            case .moltbookCom:
                #expect(answer.json == ["success": false, "error": "You cannot vote on your own post"])
            case .oss:
                #expect(
                    answer.json
                        == [
                            "success": false, "error": "Cannot vote on your own content", "code": "VALIDATION_ERROR",
                        ])
            case .minimalMock:
                #expect(answer.json == ["detail": "You cannot vote on your own post"])
            }
        }
    }

    // MARK: Routes and errors

    /// Each dialect serves its own routes; the others answer its 404 body.
    @Test(arguments: SandboxDialect.allCases)
    func missingRoutes(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let key = await wire.agent("Walker")
            let routes: [(String, String)] = [
                ("POST", "/verify"), ("POST", "/verification/submit"), ("GET", "/home"), ("GET", "/notifications"),
                ("GET", "/agents/dm/check"), ("GET", "/search?q=reef"), ("GET", "/agents/profile?name=Walker"),
                ("GET", "/agents/status"), ("GET", "/submolts/general/feed"), ("GET", "/feed"),
            ]
            var missing: [String] = []
            for (method, path) in routes {
                let answer = await wire.call(method, path, key: key, json: method == "POST" ? [:] : nil)
                let notFound: Bool
                switch dialect {
                case .moltbookCom: notFound = answer.status == 404 && answer["error"] == "Endpoint not found"
                case .oss: notFound = answer.status == 404 && answer.json == Self.ossNotFound
                case .minimalMock: notFound = answer.status == 404 && answer.json == Self.mockNotFound
                }
                if notFound { missing.append(path) }
            }
            switch dialect {
            case .moltbookCom:
                #expect(missing == ["/verification/submit"])
            case .oss:
                #expect(missing == ["/verify", "/verification/submit", "/home", "/notifications", "/agents/dm/check"])
            case .minimalMock:
                #expect(
                    missing == [
                        "/verify", "/home", "/notifications", "/agents/dm/check", "/search?q=reef",
                        "/agents/profile?name=Walker", "/agents/status", "/submolts/general/feed",
                    ])
            }
        }
    }

    /// A bad key is 401 in each dialect's shape; other errors follow it (oss-1.0 adds `code`, the mock `detail`).
    @Test(arguments: SandboxDialect.allCases)
    func errorBodies(dialect: SandboxDialect) async throws {
        try await WireSandbox.with(dialect) { wire in
            let bad = await wire.call("GET", "/agents/me", key: "moltbook_sk_" + String(repeating: "x", count: 32))
            #expect(bad.status == 401)
            let key = await wire.agent("Seeker")
            let missingPost = await wire.call("GET", "/posts/nope", key: key)
            #expect(missingPost.status == 404)
            let taken = await wire.call("POST", "/agents/register", json: ["name": "Seeker", "description": "d"])
            #expect(taken.status == 409)
            switch dialect {
            case .moltbookCom:
                #expect(
                    bad.json
                        == [
                            "success": false, "error": "Invalid API key",
                            "hint": "Check the key you saved at registration",
                        ])
                #expect(missingPost.json == ["success": false, "error": "Post not found"])
            case .oss:
                #expect(bad.json == ["success": false, "error": "Invalid API key", "code": "UNAUTHORIZED"])
                #expect(missingPost.json == ["success": false, "error": "Post not found", "code": "NOT_FOUND"])
                #expect(taken["code"] == "CONFLICT")
                #expect(taken["hint"] != nil)
            case .minimalMock:
                #expect(bad.json == ["detail": "Invalid API key"])
                #expect(missingPost.json == ["detail": "Post not found"])
                #expect(taken.json == ["detail": "Agent name already taken"])
            }
        }
    }

    // MARK: The minimal mock's challenges and suspension

    /// minimal-mock: a challenged post or comment is HTTP 200 `success:false, verification_required` with
    /// `verification{code, challenge, instructions}` and no content object.
    @Test func minimalMockChallengeShape() async throws {
        try await WireSandbox.with(.minimalMock, ["challenge_rate": 1]) { wire in
            let key = await wire.agent("Solver")
            let post = await wire.post(key)
            #expect(post.status == 200)
            #expect(post.keys == ["message", "success", "verification", "verification_required"])
            #expect(post["success"] == false)
            #expect(post["verification_required"] == true)
            #expect(post["message"] == "Post created! Complete verification to publish.")
            let verification = post["verification"]
            #expect(WireAnswer.keys(verification) == ["challenge", "code", "instructions"])
            #expect(verification?["challenge"]?.stringValue?.isEmpty == false)
            #expect(
                verification?["instructions"]
                    == "Solve the math problem and respond with ONLY the number (with 2 decimal places, e.g., '525.00')"
            )
            // The challenged post is hidden until verified.
            let code = verification?["code"]?.stringValue ?? ""
            let answer = wire.server.model.expectedAnswer(forVerificationCode: code) ?? ""
            #expect(await wire.call("GET", "/posts", key: key)["posts"]?.arrayValue?.isEmpty == true)
            let verified = await wire.call(
                "POST", "/verification/submit", key: key, json: ["code": .string(code), "answer": .string(answer)])
            #expect(verified.json == ["success": true, "message": "Verified! Your post is now published."])
            let listed = await wire.call("GET", "/posts", key: key)["posts"]?.arrayValue ?? []
            #expect(listed.count == 1)
            let postID = listed.first?["id"]?.stringValue ?? ""
            wire.advance(30)
            let comment = await wire.comment(key, on: postID, "me too")
            #expect(comment.status == 200)
            #expect(comment["message"] == "Comment created! Complete verification to publish.")
            #expect(comment["comment"] == nil)
            #expect(wire.counters.commentsCreated == 1)
        }
    }

    /// minimal-mock's /verification/submit: wrong 400 `Incorrect answer`, used 409, unknown 404, expired 410.
    @Test func minimalMockSubmitOutcomes() async throws {
        try await WireSandbox.with(.minimalMock, ["challenge_rate": 1, "limits": ["post_cooldown_seconds": nil]]) {
            wire in
            let key = await wire.agent("Guesser")
            let code = await wire.post(key)["verification"]?["code"]?.stringValue ?? ""
            let submit: (String, String) async -> WireAnswer = { code, answer in
                await wire.call(
                    "POST", "/verification/submit", key: key, json: ["code": .string(code), "answer": .string(answer)])
            }
            let wrong = await submit(code, "-1.00")
            #expect(wrong.status == 400)
            #expect(wrong.json == ["success": false, "error": "Incorrect answer"])
            let used = await submit(code, "-1.00")
            #expect(used.status == 409)
            #expect(used["detail"]?.stringValue != nil)
            let unknown = await submit("moltbook_verify_nope", "1.00")
            #expect(unknown.status == 404)
            #expect(unknown.json == ["detail": "Verification code not found"])
            let late = await wire.post(key, title: "late")["verification"]?["code"]?.stringValue ?? ""
            wire.advance(301)
            let expired = await submit(late, wire.server.model.expectedAnswer(forVerificationCode: late) ?? "")
            #expect(expired.status == 410)
            #expect(expired["detail"]?.stringValue != nil)
            #expect(wire.counters.challengesFailed == 1)
            #expect(wire.counters.challengesExpired == 1)
        }
    }

    /// minimal-mock: failed challenges suspend; writes then get 401 `{"detail":{"error":"Account suspended","hint":…}}`
    /// worded from the suspension's length; reads still work.
    @Test func minimalMockSuspension() async throws {
        let config: [String: JSON] = [
            "challenge_rate": 1, "suspension_threshold": 2, "suspension_durations_seconds": [604_800],
            "limits": ["post_cooldown_seconds": nil],
        ]
        try await WireSandbox.with(.minimalMock, config) { wire in
            let key = await wire.agent("Unlucky")
            for title in ["one", "two"] {
                let code = await wire.post(key, title: title)["verification"]?["code"]?.stringValue ?? ""
                let answer = await wire.call(
                    "POST", "/verification/submit", key: key, json: ["code": .string(code), "answer": "-1.00"])
                #expect(answer.status == 400)
            }
            let refused = await wire.post(key, title: "three")
            #expect(refused.status == 401)
            #expect(
                refused.json
                    == [
                        "detail": [
                            "error": "Account suspended",
                            "hint": "Failing verification challenges (offense #1). Suspension ends in 1 week.",
                        ]
                    ])
            #expect(await wire.call("GET", "/agents/me", key: key).status == 200)
            #expect(wire.counters.suspensions == 1)
            #expect(wire.counters.suspendedRequests == 1)
        }
    }

    /// The mock words a suspension's length as hours, days or weeks ("in 10 hours", "in 1 day", "in 2 weeks").
    @Test(arguments: [(36_000, "10 hours"), (86_400, "1 day"), (3 * 86_400, "3 days"), (1_209_600, "2 weeks")])
    func minimalMockSuspensionWording(seconds: Int, wording: String) async throws {
        try await WireSandbox.with(.minimalMock) { wire in
            let key = await wire.agent("Benched")
            _ = await wire.call("POST", "/_sandbox/agents/Benched/suspend", json: ["seconds": .int(seconds)])
            let refused = await wire.call("POST", "/submolts/general/subscribe", key: key)
            #expect(refused.status == 401)
            #expect(
                refused["detail"]?["hint"]
                    == .string("Failing verification challenges (offense #1). Suspension ends in \(wording)."))
        }
    }

    /// moltbook.com keeps its challenge shape (verification inside `post`, answered at /verify) and 403 suspension.
    @Test func moltbookComChallengeUnchanged() async throws {
        try await WireSandbox.with(.moltbookCom, ["challenge_rate": 1, "suspension_threshold": 1]) { wire in
            let key = await wire.agent("Classic")
            let post = await wire.post(key)
            #expect(post.status == 201)
            let code = post["post"]?["verification"]?["verification_code"]?.stringValue ?? ""
            let wrong = await wire.call(
                "POST", "/verify", key: key, json: ["verification_code": .string(code), "answer": "-1.00"])
            #expect(wrong.status == 400)
            #expect(wrong["content_type"] == "post")
            let refused = await wire.post(key, title: "again")
            #expect(refused.status == 403)
            #expect(refused["hint"]?.stringValue?.hasSuffix("Suspension ends in 1 day.") == true)
        }
    }
}
