import Foundation
import MoltbookAPI
import Storage

/// What an agent's inbox held when the engine last looked (issue 22): unread notifications,
/// posts with new activity, pending DM requests, unread DM messages, and whether DMs are
/// available to the agent at all. The engine writes it on each pass that reads `/home` or the
/// DM check; `status` shows it. Stored per agent in `limiter_state` under `stateKey`, as JSON.
///
/// A count is nil when the server did not say (a dialect without `/home`, or a read that
/// failed): unknown, not zero.
package struct InboxSummary: Sendable, Equatable {
    /// The `limiter_state` key the summary is stored under.
    package static let stateKey = "inbox"

    /// A DM request waiting for a human's (or a recipe's `approve_from`) approval.
    package struct Request: Sendable, Equatable {
        /// The requesting agent's name.
        package var from: String
        /// The conversation the request opens (what approving it names).
        package var conversationID: String
        /// The start of the request's message, as the server previews it.
        package var preview: String?
        package var createdAt: Date?

        package init(from: String, conversationID: String, preview: String? = nil, createdAt: Date? = nil) {
            self.from = from
            self.conversationID = conversationID
            self.preview = preview
            self.createdAt = createdAt
        }
    }

    /// Whether the agent can use direct messages, and if not, why.
    package enum DMAvailability: Sendable, Equatable {
        /// The DM check answered.
        case available
        /// The server refuses DMs to this agent for now: `reason` in words (for an agent younger
        /// than 24 hours, "agent younger than 24 hours"), `until` when it lifts, if known.
        case blocked(reason: String, until: Date?)
        /// This server has no DM routes (a 404: a dialect without DMs).
        case unsupported
        /// The check failed for another reason (a network error, a 5xx), in words.
        case failed(reason: String)

        /// Whether DMs can be read and sent.
        package var isAvailable: Bool { self == .available }

        /// The stored and shown name of the state: `available`, `blocked`, `unsupported`, `failed`.
        package var state: String {
            switch self {
            case .available: "available"
            case .blocked: "blocked"
            case .unsupported: "unsupported"
            case .failed: "failed"
            }
        }

        /// Why DMs are not available, in words; nil when they are.
        package var reason: String? {
            switch self {
            case .available: nil
            case .blocked(let reason, _): reason
            case .unsupported: "this server does not offer direct messages"
            case .failed(let reason): reason
            }
        }
    }

    /// When the engine read it.
    package var asOf: Date
    /// `your_account.unread_notification_count` of `/home` (or `/notifications`' `unread_count`).
    package var unreadNotifications: Int?
    /// How many of the agent's posts have new activity (`activity_on_your_posts`).
    package var postsWithActivity: Int?
    /// Pending DM requests, oldest first as the server listed them.
    package var pendingRequests: [Request]
    /// Unread messages in the agent's approved conversations.
    package var unreadMessages: Int?
    package var dm: DMAvailability
    /// How many requests the DM check counted (may exceed those listed: see `unreadable`).
    package var pendingRequestCount: Int?
    /// What of the DMs could not be read though the check answered, in words (issue 33,
    /// observation 8): `status` says "cannot read", not "no pending DM requests".
    package var unreadable: [String]

    package init(
        asOf: Date, unreadNotifications: Int? = nil, postsWithActivity: Int? = nil, pendingRequests: [Request] = [],
        unreadMessages: Int? = nil, dm: DMAvailability, pendingRequestCount: Int? = nil, unreadable: [String] = []
    ) {
        self.pendingRequestCount = pendingRequestCount
        self.unreadable = unreadable
        self.asOf = asOf
        self.unreadNotifications = unreadNotifications
        self.postsWithActivity = postsWithActivity
        self.pendingRequests = pendingRequests
        self.unreadMessages = unreadMessages
        self.dm = dm
    }
}

// MARK: Stored form

extension InboxSummary {
    /// Reads the stored JSON; nil when it is not a summary this build can read (garbled, or a
    /// required field missing), which callers treat as no summary.
    package init?(stored: Data) {
        guard let fields = (try? JSONValue.parse(stored))?.object,
            let asOf = fields["as_of"]?.date,
            let dm = fields["dm"].flatMap(DMAvailability.init(stored:))
        else { return nil }
        var requests: [Request] = []
        switch fields["pending_requests"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items {
                guard let request = Request(stored: item) else { return nil }
                requests.append(request)
            }
        default: return nil
        }
        guard let unreadNotifications = Self.count(fields["unread_notifications"]),
            let postsWithActivity = Self.count(fields["posts_with_activity"]),
            let unreadMessages = Self.count(fields["unread_messages"]),
            let pendingRequestCount = Self.count(fields["pending_request_count"])
        else { return nil }
        var unreadable: [String] = []
        switch fields["unreadable"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items {
                guard let text = item.string else { return nil }
                unreadable.append(text)
            }
        default: return nil
        }
        self.init(
            asOf: asOf, unreadNotifications: unreadNotifications, postsWithActivity: postsWithActivity,
            pendingRequests: requests, unreadMessages: unreadMessages, dm: dm, pendingRequestCount: pendingRequestCount,
            unreadable: unreadable)
    }

    /// The stored JSON: snake_case keys, times as ISO 8601 text (to the microsecond), unknown
    /// counts left out.
    package var stored: Data {
        var fields: [String: JSONValue] = [
            "as_of": .string(MoltbookDate.format(asOf)),
            "pending_requests": .array(pendingRequests.map(\.storedValue)),
            "dm": dm.storedValue,
        ]
        if let unreadNotifications { fields["unread_notifications"] = .number(Double(unreadNotifications)) }
        if let postsWithActivity { fields["posts_with_activity"] = .number(Double(postsWithActivity)) }
        if let unreadMessages { fields["unread_messages"] = .number(Double(unreadMessages)) }
        if let pendingRequestCount { fields["pending_request_count"] = .number(Double(pendingRequestCount)) }
        if !unreadable.isEmpty { fields["unreadable"] = .array(unreadable.map(JSONValue.string)) }
        return JSONValue.object(fields).encoded()
    }

    /// The summary stored for `account`; nil when there is none or it cannot be read.
    package static func read(account: String, in reader: any StateReader) async throws -> InboxSummary? {
        try await reader.limiterState(account: account, key: stateKey).flatMap(InboxSummary.init(stored:))
    }

    /// Stores the summary for `account` (replacing the one before).
    package func write(account: String, at now: Date, in transaction: any StateTransaction) async throws {
        try await transaction.setLimiterState(stored, account: account, key: Self.stateKey, at: now)
    }

    /// A count field: `.some(nil)` when absent or null, `.some(n)` for a whole number ≥ 0, nil
    /// (garbled) for anything else.
    private static func count(_ value: JSONValue?) -> Int?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .number(let number)? where number >= 0 && number.rounded() == number && number < 9e15:
            return .some(Int(number))
        default: return nil
        }
    }
}

extension InboxSummary.Request {
    init?(stored value: JSONValue) {
        guard let from = value["from"]?.string, let conversationID = value["conversation_id"]?.string else {
            return nil
        }
        let createdAt: Date?
        switch value["created_at"] {
        case nil, .null?: createdAt = nil
        case let text?:
            guard let date = text.date else { return nil }
            createdAt = date
        }
        self.init(from: from, conversationID: conversationID, preview: value["preview"]?.string, createdAt: createdAt)
    }

    var storedValue: JSONValue {
        var fields: [String: JSONValue] = ["from": .string(from), "conversation_id": .string(conversationID)]
        if let preview { fields["preview"] = .string(preview) }
        if let createdAt { fields["created_at"] = .string(MoltbookDate.format(createdAt)) }
        return .object(fields)
    }
}

extension InboxSummary.DMAvailability {
    init?(stored value: JSONValue) {
        guard let state = value["state"]?.string else { return nil }
        switch state {
        case "available": self = .available
        case "unsupported": self = .unsupported
        case "blocked":
            guard let reason = value["reason"]?.string else { return nil }
            var until: Date?
            if let text = value["until"], !text.isNull {
                guard let date = text.date else { return nil }
                until = date
            }
            self = .blocked(reason: reason, until: until)
        case "failed":
            guard let reason = value["reason"]?.string else { return nil }
            self = .failed(reason: reason)
        default: return nil
        }
    }

    var storedValue: JSONValue {
        var fields: [String: JSONValue] = ["state": .string(state)]
        switch self {
        case .available, .unsupported: break
        case .blocked(let reason, let until):
            fields["reason"] = .string(reason)
            if let until { fields["until"] = .string(MoltbookDate.format(until)) }
        case .failed(let reason): fields["reason"] = .string(reason)
        }
        return .object(fields)
    }
}
