extension RecipeDecoder {
    func decodeStep(_ node: YAMLNode) -> Step? {
        guard let pairs = node.mapping else {
            error(
                node.mark, code: "type", "a step is \(node.kindDescription)",
                expected: "a mapping with one action: " + Action.keywords.joined(separator: ", "))
            return nil
        }
        guard pairs.count == 1, let pair = pairs.first, let key = pair.key.scalar else {
            error(
                node.mark, code: "value", pairs.isEmpty ? "a step has no action" : "a step has \(pairs.count) actions",
                expected: "exactly one of " + Action.keywords.joined(separator: ", ")
                    + " per step (indent its settings under it)")
            return nil
        }
        let body = pair.value
        let action: Action?
        switch key {
        case "post": action = decodePost(body).map(Action.post)
        case "comment": action = decodeCommentStep(body)
        case "vote": action = decodeVote(body).map(Action.vote)
        case "follow": action = nonEmpty(stringList(body, what: "follow"), body).map(Action.follow)
        case "unfollow": action = nonEmpty(stringList(body, what: "unfollow"), body).map(Action.unfollow)
        case "subscribe": action = nonEmpty(stringList(body, what: "subscribe"), body).map(Action.subscribe)
        case "unsubscribe": action = nonEmpty(stringList(body, what: "unsubscribe"), body).map(Action.unsubscribe)
        case "reply": action = decodeReply(body).map(Action.reply)
        case "dm": action = decodeDirectMessage(body).map(Action.dm)
        default:
            error(
                pair.key.mark, code: "unknown-action", "unknown action `\(key)`",
                expected: "one of " + Action.keywords.joined(separator: ", "),
                suggestion: Suggest.closest(to: key, among: Action.keywords))
            action = nil
        }
        return action.map { Step(action: $0, mark: pair.key.mark) }
    }

    func nonEmpty(_ names: [Located<String>], _ node: YAMLNode) -> [Located<String>]? {
        names.isEmpty ? nil : names
    }

    static let postKeys = ["submolt", "title", "content", "content_file", "url", "queue", "generate", "max_per_day"]

    func decodePost(_ node: YAMLNode) -> PostAction? {
        guard let fields = mapping(node, allowed: Self.postKeys, required: ["submolt"], what: "post") else {
            return nil
        }
        let submolt = fields["submolt"].flatMap { name($0, what: "submolt") }
        let maxPerDay = fields["max_per_day"].flatMap { integer($0, in: 1...48, what: "max_per_day") }
        var body: PostAction.Body?
        var topics: ContentQueue?
        if let generateNode = fields["generate"] {
            // `queue:` beside `generate:` is a queue of topics, one an occurrence.
            topics = fields["queue"].flatMap(decodeQueue)
            for key in ["title", "content", "content_file", "url"] where fields[key] != nil {
                error(
                    generateNode.mark, code: "conflict", "post has both `generate` and `\(key)`",
                    expected: "either `generate:` (the generator writes the title and content) or `\(key):`")
            }
            body = decodeGenerator(generateNode, hasTarget: false).map(PostAction.Body.generated)
        } else if let queueNode = fields["queue"] {
            for key in ["title", "content", "content_file", "url"] where fields[key] != nil {
                error(
                    queueNode.mark, code: "conflict", "post has both `queue` and `\(key)`",
                    expected: "either `queue:` or inline `title:`/`content:`/`url:`")
            }
            body = decodeQueue(queueNode).map(PostAction.Body.queue)
        } else if let titleNode = fields["title"] {
            let title = template(titleNode, what: "title", hasTarget: false)
            var content: Template?
            if let contentNode = fields["content"] {
                content = template(contentNode, what: "content", hasTarget: false, allowEmpty: true)
                if let fileNode = fields["content_file"] {
                    error(
                        fileNode.mark, code: "conflict", "post has both `content` and `content_file`",
                        expected: "one of them")
                }
            } else if let fileNode = fields["content_file"] {
                content = contentFile(fileNode)
            }
            let url = fields["url"].flatMap { template($0, what: "url", hasTarget: false) }
            if let title { body = .inline(title: title, content: content, url: url) }
        } else {
            error(
                node.mark, code: "missing-key", "post has no `title`, `queue` or `generate`",
                expected: "`title:` (with `content:`, `content_file:` or `url:`), `queue:` or `generate:`")
        }
        guard let submolt, let body else { return nil }
        return PostAction(submolt: submolt, body: body, maxPerDay: maxPerDay, topics: topics)
    }

    static let commentKeys = [
        "post", "reply_to", "on", "select", "content", "generate", "max_per_day", "max_depth", "per_thread",
    ]

    /// A comment, or with `reply_to: trigger` an answer to inbound comments (`.reply`).
    func decodeCommentStep(_ node: YAMLNode) -> Action? {
        guard var fields = mapping(node, allowed: Self.commentKeys, what: "comment") else { return nil }
        // `select:` is the name for `on:` (a selector); one of them.
        if let select = fields["select"] {
            if fields["on"] != nil {
                error(
                    select.mark, code: "conflict", "comment has both `on` and `select`",
                    expected: "one of them (`select:` is another name for `on:`)")
            } else {
                fields["on"] = select
            }
        }
        if let replyTo = fields["reply_to"], replyTo.scalar == "trigger" {
            return decodeTriggerComment(fields, selector: fields["on"], replyTo: replyTo, node: node).map(Action.reply)
        }
        for key in ["max_depth", "per_thread"] {
            if let value = fields[key] {
                error(
                    value.mark, code: "conflict", "`\(key)` applies to `reply_to: trigger` only",
                    expected: "`reply_to: trigger` with `on: { source: replies }`, or no `\(key):`")
            }
        }
        if let selector = fields["on"], Self.inboundSourceNames(of: selector) != nil,
            let source = selector.mapping?.first(where: { $0.key.scalar == "source" })?.value,
            let item = (source.sequence ?? [source]).first(where: { Self.replySourceNames.contains($0.scalar ?? "") }),
            let name = item.scalar
        {
            error(
                item.mark, code: "missing-key", "source `\(name)` needs `reply_to: trigger` in a comment",
                expected: "`reply_to: trigger` in this comment (it answers each one in its thread), or a `reply:` step")
            return nil
        }
        return decodeComment(fields, node: node).map(Action.comment)
    }

    func decodeComment(_ fields: [String: YAMLNode], node: YAMLNode) -> CommentAction? {
        let target = decodeTarget(fields, node: node, what: "comment")
        if let reply = fields["reply_to"], fields["post"] == nil {
            error(
                reply.mark, code: "conflict", "`reply_to` needs `post`",
                expected: "`post: ID` next to `reply_to: COMMENT_ID`")
        }
        var content: CommentText?
        switch (fields["content"], fields["generate"]) {
        case (let text?, nil):
            content = template(text, what: "content", hasTarget: true).map(CommentText.template)
        case (nil, let generate?):
            content = decodeGenerator(generate, hasTarget: true).map(CommentText.generated)
        case (_?, let generate?):
            error(
                generate.mark, code: "conflict", "comment has both `content` and `generate`",
                expected: "one of them")
        case (nil, nil):
            if !(node.mapping ?? []).contains(where: { ["content", "generate"].contains($0.key.scalar) }) {
                error(
                    node.mark, code: "missing-key", "comment has no `content` or `generate`",
                    expected: "`content:` or `generate:`")
            }
        }
        let maxPerDay = fields["max_per_day"].flatMap { integer($0, in: 1...1_000, what: "max_per_day") }
        guard let content, let target else { return nil }
        switch target {
        case .post(let id):
            let reply = fields["reply_to"].flatMap { name($0, what: "reply_to") }
            return CommentAction(target: .post(id: id, replyTo: reply), content: content, maxPerDay: maxPerDay)
        case .selected(let selector):
            return CommentAction(target: .selected(selector), content: content, maxPerDay: maxPerDay)
        case .comment:
            return nil
        }
    }

    static let voteKeys = ["ensure", "post", "comment", "on", "max_per_day"]

    func decodeVote(_ node: YAMLNode) -> VoteAction? {
        guard let fields = mapping(node, allowed: Self.voteKeys, required: ["ensure"], what: "vote") else { return nil }
        var direction: VoteAction.Direction?
        if let ensure = fields["ensure"], let text = string(ensure, what: "ensure") {
            direction = VoteAction.Direction(rawValue: text)
            if direction == nil {
                let names = VoteAction.Direction.allCases.map(\.rawValue)
                error(
                    ensure.mark, code: "value", "vote cannot ensure `\(text)`", expected: "upvoted or downvoted",
                    suggestion: Suggest.closest(to: text, among: names))
            }
        }
        let target = decodeTarget(fields, node: node, what: "vote", allowComment: true)
        let maxPerDay = fields["max_per_day"].flatMap { integer($0, in: 1...1_000, what: "max_per_day") }
        guard let direction, let target else { return nil }
        return VoteAction(ensure: direction, target: target, maxPerDay: maxPerDay)
    }

    /// Exactly one of `post: ID`, `comment: ID` (if allowed) or `on: SELECTOR`.
    func decodeTarget(_ fields: [String: YAMLNode], node: YAMLNode, what: String, allowComment: Bool = false)
        -> VoteAction.Target?
    {
        let keys = (allowComment ? ["post", "comment", "on"] : ["post", "on"]).filter { fields[$0] != nil }
        guard keys.count == 1 else {
            let choices =
                allowComment ? "`post: ID`, `comment: ID` or `on:` a selector" : "`post: ID` or `on:` a selector"
            error(
                node.mark, code: keys.isEmpty ? "missing-key" : "conflict",
                keys.isEmpty ? "\(what) has no target" : "\(what) has several targets: " + keys.joined(separator: ", "),
                expected: "exactly one of " + choices)
            return nil
        }
        switch keys[0] {
        case "post": return fields["post"].flatMap { name($0, what: "post id") }.map(VoteAction.Target.post)
        case "comment": return fields["comment"].flatMap { name($0, what: "comment id") }.map(VoteAction.Target.comment)
        default: return fields["on"].flatMap(decodeSelector).map(VoteAction.Target.selected)
        }
    }
}
