import Foundation
import MoltbookAPI

/// Sends one planned write and classifies what happened, for the journal.
public enum WriteSender {
    /// The journal-relevant outcome of one attempt.
    public enum Outcome: Sendable {
        /// Applied. `remoteID` for created content; `challenge` when Moltbook wants verification.
        case done(remoteID: String?, challenge: VerificationChallenge?, rateLimit: RateLimitHint, status: Int)
        /// A vote that the server says it took back (`action: removed`): the vote was already
        /// there (made outside this runner, or with the journal lost), and sending it toggled it off.
        case voteRemoved(rateLimit: RateLimitHint, status: Int)
        /// Refused by a rate limit: nothing happened; try again after the hint.
        case rateLimited(APIError)
        /// The request may have been applied (timeout or lost connection after sending, 5xx,
        /// undecodable 2xx): read back before anything is sent again.
        case uncertain(APIError)
        /// Nothing was sent or the server certainly did nothing, and trying later may work
        /// (connection refused, DNS).
        case retryable(APIError)
        /// The key or the account is the problem (401, 403, suspension): stop this account.
        case authBroken(APIError)
        /// The server refused this write for good (400, 404, 409 …).
        case rejected(APIError)
    }

    public static func send(_ write: PlannedWrite, with client: MoltbookClient) async -> Outcome {
        do {
            switch write.kind {
            case .post:
                let post =
                    if let url = write.url {
                        NewPost.link(
                            submolt: write.submolt ?? "", title: write.title ?? "", url: url, content: write.content)
                    } else {
                        NewPost.text(
                            submolt: write.submolt ?? "", title: write.title ?? "", content: write.content ?? "")
                    }
                let response = try await client.createPost(post)
                return .done(
                    remoteID: response.value.id, challenge: response.value.challenge ?? response.challenge,
                    rateLimit: response.rateLimit, status: response.status)
            case .comment:
                let response = try await client.createComment(
                    postID: write.target ?? "", content: write.content ?? "", parentID: write.parentID)
                return .done(
                    remoteID: response.value.id, challenge: response.value.challenge ?? response.challenge,
                    rateLimit: response.rateLimit, status: response.status)
            case .upvotePost:
                return vote(try await client.upvotePost(id: write.target ?? ""))
            case .downvotePost:
                return vote(try await client.downvotePost(id: write.target ?? ""))
            case .upvoteComment:
                return vote(try await client.upvoteComment(id: write.target ?? ""))
            case .downvoteComment:
                return vote(try await client.downvoteComment(id: write.target ?? ""))
            case .follow:
                return membership(try await client.follow(agent: write.target ?? ""))
            case .unfollow:
                return membership(try await client.unfollow(agent: write.target ?? ""))
            case .subscribe:
                return membership(try await client.subscribe(submolt: write.target ?? ""))
            case .unsubscribe:
                return membership(try await client.unsubscribe(submolt: write.target ?? ""))
            case .reply:
                let response = try await client.createComment(
                    postID: write.post ?? "", content: write.content ?? "", parentID: write.parentID)
                return .done(
                    remoteID: response.value.id, challenge: response.value.challenge ?? response.challenge,
                    rateLimit: response.rateLimit, status: response.status)
            case .directMessage:
                let response = try await client.sendDM(
                    conversationID: write.conversation ?? "", message: write.content ?? "")
                return .done(
                    remoteID: response.value?.id, challenge: response.challenge, rateLimit: response.rateLimit,
                    status: response.status)
            case .approveRequest:
                let response = try await client.approveDMRequest(id: write.target ?? "")
                return .done(
                    remoteID: nil, challenge: response.challenge, rateLimit: response.rateLimit, status: response.status
                )
            }
        } catch {
            // A 403 on a DM route says this conversation or this agent's age, not the key
            // (moltbook-api.md §6.1: one route's refusal is not proof the key is bad).
            if error.code == .forbidden, write.limitClass == .dm || write.kind == .approveRequest {
                return .rejected(error)
            }
            return classify(error)
        }
    }

    static func vote(_ response: MoltbookResponse<VoteResult>) -> Outcome {
        if response.value.action == .removed {
            return .voteRemoved(rateLimit: response.rateLimit, status: response.status)
        }
        return .done(
            remoteID: nil, challenge: response.challenge, rateLimit: response.rateLimit, status: response.status)
    }

    static func membership(_ response: MoltbookResponse<MembershipResult>) -> Outcome {
        .done(remoteID: nil, challenge: response.challenge, rateLimit: response.rateLimit, status: response.status)
    }

    /// Maps an error to an outcome.
    public static func classify(_ error: APIError) -> Outcome {
        switch error.code {
        case .rateLimited: return .rateLimited(error)
        case .invalidKey, .authenticationRequired, .notClaimed, .suspended, .forbidden: return .authBroken(error)
        case .transport: return error.outcomeUnknown ? .uncertain(error) : .retryable(error)
        case .serverError, .undecodable, .unrecognized: return .uncertain(error)
        case .redirectRefused: return .authBroken(error)
        default: return .rejected(error)
        }
    }
}
