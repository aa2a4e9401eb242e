import Foundation
import Storage
import Testing

@testable import MoltipassEngine

/// `InboxSummary` (issue 22): the per-agent inbox the engine stores under `limiter_state` key
/// `inbox` and `status` shows. Its stored JSON round-trips, is frozen (status tests and older
/// state files hold it as text), and an absent or garbled value reads as no summary.
@Suite("Inbox summary")
struct InboxSummaryTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_119_200)  // 2026-12-01T10:00:00Z

    static let summaries: [InboxSummary] = [
        InboxSummary(
            asOf: t0, unreadNotifications: 1, postsWithActivity: 2,
            pendingRequests: [
                .init(
                    from: "alice", conversationID: "conv-1", preview: "Hi! \"quoted\" é\nsecond line",
                    createdAt: t0.addingTimeInterval(-120.25)),
                .init(from: "bob", conversationID: "conv-2"),
            ],
            unreadMessages: 3, dm: .available),
        InboxSummary(asOf: t0, dm: .available),
        InboxSummary(
            asOf: t0.addingTimeInterval(0.5), unreadNotifications: 0,
            dm: .blocked(reason: "agent younger than 24 hours", until: t0.addingTimeInterval(3_600))),
        InboxSummary(asOf: t0, dm: .blocked(reason: "blocked by the server", until: nil)),
        InboxSummary(asOf: t0, unreadNotifications: 4, postsWithActivity: 0, dm: .unsupported),
        InboxSummary(asOf: t0, dm: .failed(reason: "HTTP 503 from /agents/dm/check")),
        InboxSummary(
            asOf: t0, pendingRequests: [.init(from: "carol", conversationID: "conv-3")], dm: .available,
            pendingRequestCount: 2,
            unreadable: ["1 pending DM request the check counts but no route lists", "GET /agents/dm/conversations"]),
    ]

    /// Every shape reads back equal from its stored form, and the stored form of what was read
    /// back is the same bytes.
    @Test(arguments: summaries)
    func roundTrip(summary: InboxSummary) throws {
        let reread = try #require(InboxSummary(stored: summary.stored))
        #expect(reread == summary)
        #expect(reread.stored == summary.stored)
    }

    /// The stored JSON, frozen: snake_case keys, ISO 8601 times to the microsecond, unknown
    /// counts left out, the DM state by name.
    @Test func storedFormIsFrozen() throws {
        let text = String(decoding: Self.summaries[0].stored, as: UTF8.self)
        #expect(
            text
                == #"{"as_of":"2026-12-01T10:00:00.000000+00:00","dm":{"state":"available"},"#
                + #""pending_requests":[{"conversation_id":"conv-1","created_at":"2026-12-01T09:57:59.750000+00:00","#
                + #""from":"alice","preview":"Hi! \"quoted\" é\nsecond line"},{"conversation_id":"conv-2","from":"bob"}],"#
                + #""posts_with_activity":2,"unread_messages":3,"unread_notifications":1}"#)
        let blocked = String(decoding: Self.summaries[2].stored, as: UTF8.self)
        #expect(
            blocked
                == #"{"as_of":"2026-12-01T10:00:00.500000+00:00","dm":{"reason":"agent younger than 24 hours","#
                + #""state":"blocked","until":"2026-12-01T11:00:00.000000+00:00"},"pending_requests":[],"#
                + #""unread_notifications":0}"#)
    }

    /// Written by hand (as the status tests do): `Z` times, a missing `pending_requests`, null
    /// counts and fields this build does not know are read.
    @Test func readsTolerantText() throws {
        let text = """
            {"as_of": "2026-12-01T10:00:00Z", "unread_notifications": null, "later_field": [1, 2],
             "dm": {"state": "available", "extra": true}}
            """
        let summary = try #require(InboxSummary(stored: Data(text.utf8)))
        #expect(summary == InboxSummary(asOf: Self.t0, dm: .available))
    }

    /// What is not a summary reads as none, never half a summary.
    @Test(arguments: [
        "", "not json", "[]", "{}", #"{"dm":{"state":"available"}}"#,
        #"{"as_of":"yesterday","dm":{"state":"available"}}"#,
        #"{"as_of":"2026-12-01T10:00:00Z"}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"sleeping"}}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"blocked"}}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"failed"}}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"blocked","reason":"young","until":"soon"}}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"unread_messages":-1}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"unread_messages":1.5}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"unread_notifications":"many"}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"pending_requests":{}}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"pending_requests":[{"from":"a"}]}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"pending_requests":[{"conversation_id":"c"}]}"#,
        #"{"as_of":"2026-12-01T10:00:00Z","dm":{"state":"available"},"pending_requests":[{"from":"a","conversation_id":"c","created_at":"then"}]}"#,
    ])
    func garbledReadsAsNone(text: String) {
        #expect(InboxSummary(stored: Data(text.utf8)) == nil)
    }

    /// Through a real state file: none stored reads as nil; a stored summary reads back; a
    /// garbled row reads as nil rather than failing the read; other agents' rows stay apart.
    @Test func storedPerAgent() async throws {
        let store = try SQLiteStateStore.inMemory()
        #expect(try await store.read { try await InboxSummary.read(account: "alice", in: $0) } == nil)
        let summary = Self.summaries[0]
        try await store.transaction { tx in
            try await summary.write(account: "alice", at: Self.t0, in: tx)
            try await tx.setLimiterState(Data("{garbled".utf8), account: "bob", key: InboxSummary.stateKey, at: Self.t0)
        }
        let (alice, bob, carol, raw) = try await store.read { reader in
            (
                try await InboxSummary.read(account: "alice", in: reader),
                try await InboxSummary.read(account: "bob", in: reader),
                try await InboxSummary.read(account: "carol", in: reader),
                try await reader.limiterState(account: "alice", key: "inbox")
            )
        }
        #expect(alice == summary)
        #expect(bob == nil && carol == nil)
        #expect(raw == summary.stored)
    }
}
