/// A post in a submolt: inline text or link, the next item of a content queue, or text a
/// generator writes.
public struct PostAction: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        case inline(title: Template, content: Template?, url: Template?)
        case queue(ContentQueue)
        case generated(GeneratorSpec)
    }

    public var submolt: Located<String>
    public var body: Body
    public var maxPerDay: Int?
    /// With `generate:`, `queue:` holds topics: each occurrence takes the queue's next item and
    /// the generator writes a post about it (the item is in its context and prompt as `topic`).
    public var topics: ContentQueue?

    /// The content queue the step takes an item from each occurrence: its posts, or its topics.
    public var queue: ContentQueue? {
        if case .queue(let queue) = body { return queue }
        return topics
    }
}

/// A comment on one post (optionally a reply to one comment) or on each selected post.
public struct CommentAction: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case post(id: Located<String>, replyTo: Located<String>?)
        case selected(Selector)
    }

    public var target: Target
    public var content: CommentText
    public var maxPerDay: Int?
}

/// A vote in a stated direction; a target already voted that way is left alone (votes toggle server-side).
public struct VoteAction: Sendable, Equatable {
    public enum Direction: String, Sendable, Equatable, CaseIterable {
        case upvoted, downvoted
    }

    public enum Target: Sendable, Equatable {
        case post(Located<String>)
        case comment(Located<String>)
        case selected(Selector)
    }

    public var ensure: Direction
    public var target: Target
    public var maxPerDay: Int?
}

/// A file of posts published once each, in order.
public struct ContentQueue: Sendable, Equatable {
    /// The path as written, relative to the recipe.
    public var path: Located<String>
    /// The path resolved against the recipe's directory.
    public var resolvedPath: String
    public var items: [QueueItem]
}

/// One queued post.
public struct QueueItem: Sendable, Equatable {
    public var title: Template
    public var content: Template?
    public var url: Template?
    public var mark: Mark
}
