import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct RegistrationTests {
    /// Registration answers 201 with a moltbook_sk_ key, claim URL, code and pending_claim status.
    @Test func registerReturnsCredentials() throws {
        let driver = SandboxDriver()
        let answer = driver.call(.post, "/agents/register", json: ["name": "Reef_Bot-1", "description": "hi"])
        #expect(answer.status == 201)
        #expect(answer["success"] == true)
        #expect(answer["status"] == "pending_claim")
        let agent = try #require(answer["agent"])
        let key = try #require(agent["api_key"]?.stringValue)
        #expect(key.hasPrefix("moltbook_sk_") && key.count == 44)
        #expect(agent["claim_url"]?.stringValue?.hasPrefix("https://www.moltbook.com/claim/moltbook_claim_") == true)
        let code = try #require(agent["verification_code"]?.stringValue)
        #expect(code.range(of: #"^[a-z]+-[A-Z0-9]{4}$"#, options: .regularExpression) != nil)
        #expect(agent["created_at"]?.stringValue?.hasSuffix("+00:00") == true)
        #expect(agent["name"] == "Reef_Bot-1")
    }

    /// Bad names get 400 and a taken name (any case) gets 409.
    @Test(arguments: ["a", String(repeating: "x", count: 33), "héllo", "has space", "dot.name"])
    func invalidNamesAre400(name: String) {
        let driver = SandboxDriver()
        #expect(driver.call(.post, "/agents/register", json: ["name": .string(name)]).status == 400)
    }

    /// A second registration of the same name, in any case, is 409.
    @Test func takenNameIs409() {
        let driver = SandboxDriver()
        _ = driver.agent("Lobster")
        #expect(driver.call(.post, "/agents/register", json: ["name": "lobster"]).status == 409)
    }

    /// Status moves from pending_claim to claimed after the admin claim.
    @Test func statusFollowsClaim() {
        let driver = SandboxDriver()
        let key = driver.agent("Pending", claimed: false)
        #expect(driver.call(.get, "/agents/status", key: key)["status"] == "pending_claim")
        let claim = driver.call(.post, "/_sandbox/agents/Pending/claim")
        #expect(claim.status == 200)
        let status = driver.call(.get, "/agents/status", key: key)
        #expect(status["status"] == "claimed")
        #expect(status["agent"]?["name"] == "Pending")
        #expect(driver.model.claim(agentNamed: "nobody") == false)
    }

    /// Missing key gives 401 "Authentication required", an unknown key 401 "Invalid API key"; both counted.
    @Test func authErrors() {
        let driver = SandboxDriver()
        let missing = driver.call(.get, "/agents/me")
        #expect(missing.status == 401)
        #expect(missing["error"] == "Authentication required")
        let unknown = driver.call(.get, "/agents/me", key: "moltbook_sk_nope")
        #expect(unknown.status == 401)
        #expect(unknown["error"] == "Invalid API key")
        let malformed = driver.call(.get, "/agents/me", headers: ["Authorization": "Token abc"])
        #expect(malformed.status == 401)
        #expect(driver.model.counters().authFailures == 3)
    }

    /// An unclaimed agent can read but gets 403 "Agent not yet claimed" with the claim URL on writes.
    @Test func unclaimedAgentCannotWrite() {
        let driver = SandboxDriver()
        let key = driver.agent("Fresh", claimed: false)
        #expect(driver.call(.get, "/agents/me", key: key).status == 200)
        let post = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "hi"])
        #expect(post.status == 403)
        #expect(post["error"] == "Agent not yet claimed")
        #expect(post["hint"]?.stringValue?.contains("https://www.moltbook.com/claim/") == true)
        #expect(driver.call(.post, "/submolts/general/subscribe", key: key).status == 403)
        #expect(driver.model.counters().postsCreated == 0)
        #expect(driver.model.counters().unclaimedWrites == 2)
    }

    /// Unknown routes are 404 "Endpoint not found"; a known path with the wrong method is 405.
    @Test func unknownRouteAndWrongMethod() {
        let driver = SandboxDriver()
        let key = driver.agent("Router")
        let missing = driver.call(.get, "/nothing/here", key: key)
        #expect(missing.status == 404)
        #expect(missing["error"] == "Endpoint not found")
        let wrong = driver.call(.put, "/posts", key: key)
        #expect(wrong.status == 405)
        #expect(driver.call(.post, "/submolts/general/join", key: key).status == 404)
    }

    /// PATCH /agents/me updates description and metadata; /agents/profile finds by name or 404s.
    @Test func profileUpdateAndLookup() {
        let driver = SandboxDriver()
        let key = driver.agent("Profiled")
        let other = driver.agent("Viewer")
        let patch = driver.call(.patch, "/agents/me", key: key, json: ["description": "new", "metadata": ["k": 1]])
        #expect(patch.status == 200)
        #expect(driver.call(.get, "/agents/me", key: key)["agent"]?["description"] == "new")
        #expect(driver.call(.get, "/agents/me", key: key)["agent"]?["metadata"]?["k"] == 1)
        let profile = driver.call(.get, "/agents/profile", key: other, query: ["name": "profiled"])
        #expect(profile["agent"]?["name"] == "Profiled")
        #expect(profile["agent"]?["is_claimed"] == true)
        let missing = driver.call(.get, "/agents/profile", key: other, query: ["name": "ghost"])
        #expect(missing.status == 404)
        #expect(missing["error"] == "Bot not found")
    }

    /// Avatar upload accepts a small PNG, rejects a type mismatch (400) and anything over 1 MB (413).
    @Test func avatarUpload() {
        let driver = SandboxDriver()
        let key = driver.agent("Pictured")
        func upload(_ bytes: [UInt8], type: String) -> Int {
            let boundary = "XyZ"
            var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n".utf8)
            body += Data("Content-Type: \(type)\r\n\r\n".utf8) + Data(bytes) + Data("\r\n--\(boundary)--\r\n".utf8)
            return driver.call(
                .post, "/agents/me/avatar", key: key,
                headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body
            ).status
        }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]
        #expect(upload(png, type: "image/png") == 200)
        #expect(driver.call(.get, "/agents/me", key: key)["agent"]?["avatar_url"]?.stringValue != nil)
        #expect(upload(png, type: "image/jpeg") == 400)
        #expect(upload(Array("hello".utf8), type: "text/plain") == 400)
        #expect(upload(png + [UInt8](repeating: 0, count: 1_048_576), type: "image/png") == 413)
        #expect(driver.call(.delete, "/agents/me/avatar", key: key).status == 200)
        #expect(driver.call(.get, "/agents/me", key: key)["agent"]?["avatar_url"] == .null)
    }
}
