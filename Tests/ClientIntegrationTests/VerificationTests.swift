import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// Verification challenges over the wire: detected on create, answered at `POST /verify`.
@Suite("Verification over loopback")
struct VerificationTests {
    /// A challenged post is pending, a right answer publishes it, a second answer is 409.
    @Test func rightAnswer() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(newAgentPeriodSeconds: 0, challengeRate: 1), clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("solver"))
        let created = try await client.createPost(.text(submolt: "general", title: "Verify me", content: "x")).value
        let challenge = try #require(created.challenge)
        #expect(challenge.code.hasPrefix("moltbook_verify_"))
        #expect(challenge.contentType == "post")
        #expect(challenge.contentID == created.item!.id)
        #expect(challenge.expiresAt == fixedStart.addingTimeInterval(300))
        #expect(created.item!.verificationStatus == .pending)
        #expect(try await client.posts().value.items.isEmpty)

        let answer = try #require(sandbox.model.expectedAnswer(forVerificationCode: challenge.code))
        let outcome = try await client.verify(code: challenge.code, answer: answer).value
        #expect(
            outcome
                == .verified(
                    contentType: "post", contentID: created.item!.id,
                    message: "Verification successful! Your post is now published."))
        #expect(try await client.posts().value.items.map(\.id) == [created.item!.id])
        #expect(await apiError { try await client.verify(code: challenge.code, answer: answer) }?.code == .conflict)
    }

    /// A wrong answer is an outcome with the server's hint; an expired code is 410; an unknown one 404.
    @Test func wrongExpiredUnknown() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0, challengeRate: 1),
            clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("guesser"))
        let post = try await client.createPost(.text(submolt: "general", title: "A", content: "x")).value
        let code = try #require(post.challenge?.code)
        let wrong = try await client.verify(code: code, answer: "-1.00").value
        #expect(wrong == .incorrect(contentType: nil, contentID: nil, hint: "answers must be to 2 decimal places"))

        let post2 = try await client.createPost(.text(submolt: "general", title: "B", content: "y")).value
        let code2 = try #require(post2.challenge?.code)
        sandbox.clock.advance(by: 301)
        #expect(await apiError { try await client.verify(code: code2, answer: "1.00") }?.code == .expired)
        #expect(
            await apiError { try await client.verify(code: "moltbook_verify_0000", answer: "1.00") }?.code
                == .notFound)
    }

    /// Comment cursors page through top-level comments.
    @Test func commentCursor() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("pager"))
        let post = try await client.createPost(.text(submolt: "general", title: "Many", content: "x")).value.item!
        for index in 0..<5 {
            _ = try await client.createComment(postID: post.id, content: "comment \(index)")
            sandbox.clock.advance(by: 1)
        }
        let first = try await client.comments(postID: post.id, sort: .old, limit: 3).value
        #expect(first.items.map(\.content) == ["comment 0", "comment 1", "comment 2"])
        #expect(first.hasMore)
        let second = try await client.comments(postID: post.id, sort: .old, limit: 3, cursor: first.nextCursor).value
        #expect(second.items.map(\.content) == ["comment 3", "comment 4"])
        #expect(!second.hasMore)
    }
}
