import Foundation
import MoltbookAPI
import RateLimiting

/// What a generated comment on a named post answers: the post, and for a reply the chain of
/// comments from the thread's top down to the one answered (issue 21's "the thread for a
/// reply"). Other agents wrote all of it: the context marks it untrusted.
public struct GenerationThread: Sendable, Equatable {
    public var post: Post?
    /// Oldest first, ending with the comment replied to.
    public var chain: [Comment]

    public init(post: Post?, chain: [Comment]) {
        self.post = post
        self.chain = chain
    }

    /// The comment `replyTo` and its parents, oldest first (at most 20 levels).
    public static func chain(to replyTo: String, in comments: [Comment]) -> [Comment] {
        let byID = Dictionary(
            comments.flatMap(\.flattened).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var chain: [Comment] = []
        var next: String? = replyTo
        while let id = next, let comment = byID[id], chain.count < 20 {
            chain.append(comment)
            next = comment.parentID
        }
        return chain.reversed()
    }
}

extension AccountPass {
    /// Reads the post a generated comment is about, and the comments a reply answers, through
    /// the read budget; nil when it cannot (the text is then written without them).
    func readThread(postID: String, replyTo: String?) async -> GenerationThread? {
        guard let client = await requireClient(), case .allowed = limiter.reserve([.read], at: now) else { return nil }
        do throws(APIError) {
            let detail = try await client.post(id: postID).value
            guard let replyTo else { return GenerationThread(post: detail.post, chain: []) }
            var comments = detail.comments
            if !detail.commentsIncluded {
                guard case .allowed = limiter.reserve([.read], at: now) else {
                    return GenerationThread(post: detail.post, chain: [])
                }
                comments = try await client.comments(postID: postID, sort: .new, limit: 100).value.items
            }
            return GenerationThread(post: detail.post, chain: GenerationThread.chain(to: replyTo, in: comments))
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            return nil
        }
    }
}
