import Foundation
import Logging
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// The key never shows up in log output or error text.
@Suite("Secret hygiene")
struct SecretHygieneTests {
    /// A run touching every endpoint kind, successes and failures, logged at trace level:
    /// the raw key appears in no log line and no error description; the fingerprint does.
    @Test func keyNeverLogged() async throws {
        let store = CapturingLogHandler.Store()
        let logger = CapturingLogHandler.logger(store)
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let registration = try await sandbox.client(logger: logger).register(name: "secretive", description: "x").value
        try await sandbox.admin(.post, "agents/secretive/claim")
        let raw = registration.apiKey.withRawValue { $0 }
        let client = try sandbox.client(key: registration.apiKey, logger: logger)
        var texts: [String] = []
        func attempt<T>(_ body: () async throws -> T) async {
            do { _ = try await body() } catch { texts.append("\(error)"); texts.append(String(reflecting: error)) }
        }
        await attempt { try await client.me() }
        await attempt { try await client.createPost(.text(submolt: "general", title: "t", content: "c")) }
        await attempt { try await client.createPost(.text(submolt: "general", title: "t2", content: "c2")) }
        await attempt { try await client.post(id: "missing") }
        await attempt { try await client.upvotePost(id: "missing") }
        await attempt { try await client.verify(code: "moltbook_verify_nope", answer: "1.00") }
        try await sandbox.admin(
            .post, "faults",
            json: .array([
                .object(["mode": .string("http500"), "count": .number(1)]),
                .object(["mode": .string("html_error"), "count": .number(1)]),
                .object(["mode": .string("malformed_json"), "count": .number(1)]),
            ]))
        for _ in 0..<3 { await attempt { try await client.me() } }
        let wrongKey = try sandbox.client(key: APIKey(raw + "x"), logger: logger)
        await attempt { try await wrongKey.me() }
        #expect(texts.count >= 6)
        let everything = store.joined + "\n" + texts.joined(separator: "\n") + "\n\(client)"
        #expect(!everything.contains(raw))
        #expect(!everything.contains(String(raw.dropFirst("moltbook_sk_".count))))
        #expect(store.joined.contains(registration.apiKey.fingerprint))
    }
}
