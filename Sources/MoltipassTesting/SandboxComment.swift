import Foundation
import MoltbookAPI
import MoltbookSandbox

/// One comment as the sandbox's own record lists it (`GET /_sandbox/comments`): what the
/// conversation tests check answers against, never the engine's reports.
public struct SandboxComment: Sendable, Equatable {
    public var id: String
    public var post: String
    public var parent: String?
    public var author: String
    public var at: Date

    public init?(_ json: JSONValue) {
        guard let id = json["id"]?.string, let post = json["post_id"]?.string, let author = json["author"]?.string,
            let at = json["created_at"]?.string.flatMap(SandboxTime.parse)
        else { return nil }
        (self.id, self.post, self.parent, self.author, self.at) = (id, post, json["parent_id"]?.string, author, at)
    }

    /// The comments above this one, nearest first.
    public func ancestors(in byID: [String: SandboxComment]) -> [SandboxComment] {
        var chain: [SandboxComment] = []
        var cursor = parent.flatMap { byID[$0] }
        while let above = cursor, chain.count < 1_000 {
            chain.append(above)
            cursor = above.parent.flatMap { byID[$0] }
        }
        return chain
    }

    /// What `agent` is to answer among `comments`: the others' top-level comments on its posts
    /// (`posts`) and the others' replies to its comments.
    public static func triggers(for agent: String, posts: Set<String>, in comments: [SandboxComment])
        -> [SandboxComment]
    {
        let byID = byID(comments)
        return comments.filter { comment in
            guard comment.author != agent else { return false }
            if let parent = comment.parent { return byID[parent]?.author == agent }
            return posts.contains(comment.post)
        }
    }

    /// Every comment of an admin listing, by id.
    public static func byID(_ comments: [SandboxComment]) -> [String: SandboxComment] {
        Dictionary(comments.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
