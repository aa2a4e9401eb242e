import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@Suite("Direct messages")
struct DirectMessageDecodingTests {
    /// The reference's `/agents/dm/check`: one request with its owner's handle, unread counts.
    @Test func check() async throws {
        let (client, transport) = try fixtureClient("dm-check.json")
        let check = try await client.dmCheck().value
        #expect(transport.requests.first?.url.path == "/api/v1/agents/dm/check")
        #expect(check.hasActivity)
        #expect(check.summary == "1 pending request, 1 unread message")
        #expect(check.pendingRequestCount == 1)
        let request = try #require(check.requests.first)
        #expect(request.id == "conv-77")
        #expect(request.fromName == "SandDollar")
        #expect(request.fromOwnerHandle == "sanddollar_ops")
        #expect(request.messagePreview == "Hi! Could we compare tide data?")
        #expect(request.createdAt == MoltbookDate.parse("2026-03-01T09:30:00Z"))
        #expect(check.totalUnread == 1)
        #expect(check.conversationsWithUnread == 1)
    }

    /// Under `data`, requests as a bare array (counted), camelCase counts as strings, no
    /// `has_activity` (inferred from the counts).
    @Test func checkDataEnvelope() async throws {
        let (client, _) = try fixtureClient("dm-check-data-strings.json")
        let check = try await client.dmCheck().value
        #expect(check.requests.map(\.id) == ["conv-77", "conv-78"])
        #expect(check.requests.map(\.fromName) == ["SandDollar", "KelpBot"])
        #expect(check.requests[0].createdAt == MoltbookDate.parse("2026-03-01T09:30:00Z"))
        #expect(check.pendingRequestCount == 2)
        #expect(check.totalUnread == 3)
        #expect(check.conversationsWithUnread == 2)
        #expect(check.hasActivity)
    }

    /// Pending requests under `requests` and under `items` (plain `from`, `message` as preview).
    @Test(arguments: ["dm-requests.json", "dm-requests-items.json"])
    func requests(file: String) async throws {
        let (client, transport) = try fixtureClient(file)
        let requests = try await client.dmRequests().value
        #expect(transport.requests.first?.url.path == "/api/v1/agents/dm/requests")
        #expect(requests.map(\.id) == ["conv-77"])
        #expect(requests.first?.fromName == "SandDollar")
        #expect(requests.first?.messagePreview == "Hi! Could we compare tide data?")
    }

    /// Approve and reject post to the request's routes; `block` sends `{block: true}`, else no field.
    @Test func approveAndReject() async throws {
        let transport = StubTransport(status: 200, body: Data(#"{"success":true,"status":"approved"}"#.utf8))
        let client = try MoltbookClient(
            apiKey: APIKey("moltbook_sk_unit_test_key_0000000000000000"), transport: transport)
        #expect(try await client.approveDMRequest(id: "conv-77").value.status == "approved")
        _ = try await client.rejectDMRequest(id: "conv-78")
        _ = try await client.rejectDMRequest(id: "conv-79", block: true)
        #expect(
            transport.requests.map { "\($0.method.rawValue) \($0.url.path)" } == [
                "POST /api/v1/agents/dm/requests/conv-77/approve", "POST /api/v1/agents/dm/requests/conv-78/reject",
                "POST /api/v1/agents/dm/requests/conv-79/reject",
            ])
        #expect(transport.requests[1].body?.isEmpty != false)
        let blocked = try JSONValue.parse(try #require(transport.requests[2].body))
        #expect(blocked["block"]?.bool == true)
        #expect(await apiError { try await client.approveDMRequest(id: "") }?.code == .invalidRequest)
        #expect(transport.requests.count == 3)
    }

    /// The reference's conversation list and the `data` array variant give the same conversations.
    @Test(arguments: [("dm-conversations.json", true), ("dm-conversations-data.json", false)])
    func conversations(file: String, reference: Bool) async throws {
        let (client, _) = try fixtureClient(file)
        let list = try await client.dmConversations().value
        #expect(list.conversations.map(\.id) == ["conv-12", "conv-13"])
        #expect(list.conversations.map(\.withAgentName) == ["KelpBot", "ReefWatcher"])
        #expect(list.conversations.map(\.unreadCount) == [2, 0])
        #expect(list.totalUnread == 2)
        #expect(list.conversations[0].lastMessageAt == MoltbookDate.parse("2026-03-01T09:45:00Z"))
        #expect(list.conversations[0].youInitiated == false)
        #expect(list.conversations[1].youInitiated == (reference ? true : nil))
        #expect(list.conversations[0].status == (reference ? nil : "approved"))
    }

    /// One conversation: sender as `sender{name}` or `sender_name`, text as `content` or
    /// `message`, id-less messages dropped.
    @Test func conversation() async throws {
        let (client, transport) = try fixtureClient("dm-conversation.json")
        let conversation = try await client.dmConversation(id: "conv-12").value
        #expect(transport.requests.first?.url.path == "/api/v1/agents/dm/conversations/conv-12")
        #expect(conversation.id == "conv-12")
        #expect(conversation.withAgentName == "KelpBot")
        #expect(conversation.messages.map(\.id) == ["m-1", "m-2"])
        #expect(conversation.messages.map(\.senderName) == ["TidePoolBot", "KelpBot"])
        #expect(conversation.messages.map(\.content) == ["Hello KelpBot", "Hi! What tides today?"])
        #expect(conversation.messages.map(\.isRead) == [true, false])
        #expect(conversation.messages[1].createdAt == MoltbookDate.parse("2026-03-01T09:45:00Z"))
    }

    /// Messages nested in `data.conversation`, numeric ids, `from{name}` and `author{name}` senders.
    @Test func conversationDataEnvelope() async throws {
        let (client, _) = try fixtureClient("dm-conversation-data.json")
        let conversation = try await client.dmConversation(id: "ignored-when-named").value
        #expect(conversation.id == "conv-12")
        #expect(conversation.withAgentName == "KelpBot")
        #expect(conversation.messages.map(\.id) == ["501", "502"])
        #expect(conversation.messages.map(\.senderName) == ["KelpBot", "TidePoolBot"])
        #expect(conversation.messages.map(\.isRead) == [false, nil])
    }

    /// A send posts `{message}` (and `needs_human_input` only when asked) and reads the echoed message.
    @Test func send() async throws {
        let (client, transport) = try fixtureClient("dm-send.json")
        let sent = try await client.sendDM(conversationID: "conv-12", message: "High tide at 12:04.").value
        #expect(sent?.id == "m-3")
        #expect(sent?.content == "High tide at 12:04.")
        _ = try await client.sendDM(conversationID: "conv-12", message: "Ask my human?", needsHumanInput: true)
        #expect(transport.requests.first?.url.path == "/api/v1/agents/dm/conversations/conv-12/send")
        let first = try JSONValue.parse(try #require(transport.requests[0].body))
        #expect(first == .object(["message": .string("High tide at 12:04.")]))
        let second = try JSONValue.parse(try #require(transport.requests[1].body))
        #expect(second["needs_human_input"]?.bool == true)
    }

    /// A send whose answer does not echo the message is still a success, with no message.
    @Test func sendWithoutEcho() async throws {
        let transport = StubTransport(status: 200, body: Data(#"{"success":true,"message":"Sent"}"#.utf8))
        let client = try MoltbookClient(
            apiKey: APIKey("moltbook_sk_unit_test_key_0000000000000000"), transport: transport)
        let response = try await client.sendDM(conversationID: "conv-12", message: "hi")
        #expect(response.value == nil)
        #expect(response.message == "Sent")
    }

    /// Empty and over-long messages, and empty ids or names, are refused before anything is sent.
    @Test func refusedBeforeSending() async throws {
        let (client, transport) = try fixtureClient("dm-send.json")
        let limit = MoltbookClient.maxDirectMessageLength
        #expect(limit == 5_000)
        let atLimit = String(repeating: "a", count: limit)
        _ = try await client.sendDM(conversationID: "c", message: atLimit)
        let refusals: [APIError?] = [
            await apiError { try await client.sendDM(conversationID: "c", message: " \n") },
            await apiError { try await client.sendDM(conversationID: "c", message: atLimit + "a") },
            await apiError { try await client.sendDM(conversationID: "", message: "hi") },
            await apiError { try await client.requestDM(to: "KelpBot", message: "") },
            await apiError { try await client.requestDM(to: " ", message: "Hello there, KelpBot") },
            await apiError { try await client.requestDM(to: "KelpBot", message: atLimit + "a") },
        ]
        #expect(refusals.map { $0?.code } == Array(repeating: .invalidRequest, count: 6))
        #expect(refusals[1]?.message.contains("5000") == true)
        #expect(refusals[0]?.endpoint == "POST /agents/dm/conversations/ID/send")
        #expect(refusals[3]?.endpoint == "POST /agents/dm/request")
        #expect(transport.requests.count == 1)
    }

    /// A request posts `{to, message}` and reads the pending conversation.
    @Test func request() async throws {
        let (client, transport) = try fixtureClient("dm-request.json")
        let response = try await client.requestDM(to: "KelpBot", message: "Hello there, KelpBot")
        #expect(response.value.conversationID == "conv-90")
        #expect(response.value.status == "pending")
        #expect(response.message == "Chat request sent! 🦞")
        #expect(transport.requests.first?.url.path == "/api/v1/agents/dm/request")
        let body = try JSONValue.parse(try #require(transport.requests.first?.body))
        #expect(body == .object(["to": .string("KelpBot"), "message": .string("Hello there, KelpBot")]))
    }

    /// A 403 for an agent younger than 24 hours is `.forbidden` with `agentTooNew`: not a bad
    /// key, not a missing claim (though its hint says "claimed"), not a suspension
    /// (moltbook-api.md §6.1: a refusal on one route is not proof the key is bad).
    @Test func tooNewIsNotABadKey() async throws {
        let (client, _) = try fixtureClient("error-403-dm-too-new.json", status: 403)
        let calls: [APIError?] = [
            await apiError { try await client.dmCheck() },
            await apiError { try await client.sendDM(conversationID: "conv-12", message: "hi") },
            await apiError { try await client.requestDM(to: "KelpBot", message: "Hello there, KelpBot") },
        ]
        for error in calls {
            let error = try #require(error)
            #expect(error.code == .forbidden)
            #expect(error.agentTooNew)
            #expect(error.status == 403)
            #expect(error.message.contains("younger than 24 hours"))
            #expect(error.suspensionRemaining == nil)
        }
        #expect(calls[0]?.endpoint == "GET /agents/dm/check")
    }

    /// Other 403s keep their meaning and are not marked as an age restriction.
    @Test(arguments: [
        ("error-403-not-claimed.json", APIError.Code.notClaimed), ("error-403-suspended.json", .suspended),
        ("html-error-403.html", .forbidden),
    ])
    func otherForbidden(file: String, code: APIError.Code) async throws {
        let (client, _) = try fixtureClient(file, status: 403)
        let error = try #require(await apiError { try await client.dmConversations() })
        #expect(error.code == code)
        #expect(!error.agentTooNew)
    }
}
