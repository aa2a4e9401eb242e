extension RecipeDecoder {
    /// The filters every inbound step has (issue 22): on the trigger's author and text, its age,
    /// and how many a pass answers.
    static let inboundFilterKeys = ["authors", "exclude_authors", "content_matches", "max_age", "max_per_run"]
    static let replyKeys =
        ["to", "content", "generate"] + inboundFilterKeys + ["max_per_day", "max_depth", "per_thread"]
    static let directMessageKeys =
        ["select", "content", "generate"] + inboundFilterKeys + ["per_conversation", "max_per_day", "approve_from"]
    /// An inbound selector: a comment's `on:` with `reply_to: trigger`, a dm step's `select:`.
    static let inboundSelectKeys = ["source"] + inboundFilterKeys
    /// Selector keys that only make sense for a feed, and what to do instead.
    static let feedOnlyKeys: [String: String] = [
        "sort": "nothing: every inbound item not yet answered is considered (cap them with `max_per_run`)",
        "limit": "nothing: every inbound item not yet answered is considered (cap them with `max_per_run`)",
        "submolt": "nothing: inbound items come from the agent's own posts, threads and conversations, not a feed",
        "query": "nothing: inbound items come from the agent's own posts, threads and conversations, not a feed",
        "min_score": "`authors`, `exclude_authors`, `content_matches` or `max_age` to filter inbound items",
        "title_matches": "`content_matches` (on the trigger's text)",
        "not_mine": "nothing: the agent's own comments and messages are never answered",
    ]
    static let replySourceNames = ["replies", "mentions"]
    static let defaultReplyMaxPerRun = 5
    static let defaultDirectMessageMaxPerRun = 3

    /// `reply:`: answers replies to the agent and mentions of it in their thread.
    func decodeReply(_ node: YAMLNode) -> ReplyAction? {
        let toInstead = "`to: replies`, `to: mentions` or `to: [replies, mentions]`"
        var refused = Self.feedOnlyKeys
        refused["on"] = toInstead
        refused["select"] = toInstead
        refused["source"] = toInstead
        refused["post"] = "nothing: a reply answers each trigger in its own thread (one post: `comment:` with `post:`)"
        refused["reply_to"] = "nothing: a reply step always answers its trigger"
        refused["queue"] = "`content:` or `generate:`; a reply takes no queue"
        guard let fields = mapping(node, allowed: Self.replyKeys, what: "reply", refused: refused) else { return nil }
        let sources = fields["to"].map { inboundSources($0, what: "to") } ?? [.replies]
        let content = answerText(fields, node: node, what: "reply", hasTarget: true)
        let select = inboundFilters(
            fields, sources: sources, defaultMaxPerRun: Self.defaultReplyMaxPerRun, mark: node.mark)
        let maxPerDay = fields["max_per_day"].flatMap { integer($0, in: 1...1_000, what: "max_per_day") }
        guard let content, !sources.isEmpty else { return nil }
        return ReplyAction(select: select, content: content, loopGuard: loopGuard(fields), maxPerDay: maxPerDay)
    }

    /// `comment:` with `reply_to: trigger` and an inbound selector (`on:` or `select:`): the same
    /// as a `reply:` step, in the spelling of a comment.
    func decodeTriggerComment(_ fields: [String: YAMLNode], selector: YAMLNode?, replyTo: YAMLNode, node: YAMLNode)
        -> ReplyAction?
    {
        if let post = fields["post"] {
            error(
                post.mark, code: "conflict", "`reply_to: trigger` takes no `post`",
                expected: "no `post:`: the comment answers each trigger in its own thread")
        }
        guard let selector, Self.inboundSourceNames(of: selector) != nil else {
            error(
                replyTo.mark, code: "missing-key", "`reply_to: trigger` needs an inbound selector",
                expected: "`on: { source: replies }` (or `mentions`) next to it, or a `reply:` step")
            return nil
        }
        let content = answerText(fields, node: node, what: "comment", hasTarget: true)
        let maxPerDay = fields["max_per_day"].flatMap { integer($0, in: 1...1_000, what: "max_per_day") }
        guard
            let select = mapping(
                selector, allowed: Self.inboundSelectKeys, required: ["source"], what: "inbound comments",
                refused: Self.feedOnlyKeys)
        else { return nil }
        let sources = select["source"].map { inboundSources($0, what: "source") } ?? []
        let filters = inboundFilters(
            select, sources: sources, defaultMaxPerRun: Self.defaultReplyMaxPerRun, mark: selector.mark)
        guard let content, !sources.isEmpty else { return nil }
        return ReplyAction(select: filters, content: content, loopGuard: loopGuard(fields), maxPerDay: maxPerDay)
    }

    /// `dm:`: answers direct messages in approved conversations, and approves pending requests
    /// from the agents `approve_from` names (none unless it says so).
    func decodeDirectMessage(_ node: YAMLNode) -> DirectMessageAction? {
        var refused = Self.feedOnlyKeys
        refused["to"] = "nothing: a dm step answers direct messages (`reply:` answers replies and mentions)"
        refused["on"] = "`select: { source: dms }`, or nothing: a dm step answers direct messages"
        refused["source"] = "`select: { source: dms }`, or nothing: a dm step answers direct messages"
        refused["post"] = "nothing: a direct message is not on a post"
        refused["queue"] = "`content:` or `generate:`; a dm takes no queue"
        refused["max_depth"] = "`per_conversation:`, the loop guard of direct messages"
        refused["per_thread"] = "`per_conversation:`, the loop guard of direct messages"
        guard var fields = mapping(node, allowed: Self.directMessageKeys, what: "dm", refused: refused) else {
            return nil
        }
        if let selectNode = fields["select"],
            let select = mapping(
                selectNode, allowed: Self.inboundSelectKeys, what: "the select of a dm step", refused: Self.feedOnlyKeys
            )
        {
            if let source = select["source"], let text = string(source, what: "source"), text != "dms" {
                error(
                    source.mark, code: "value", "a dm step answers `dms`, not `\(text)`",
                    expected: "source: dms (replies and mentions are answered by a `reply:` step)",
                    suggestion: text == "dm" ? "dms" : nil)
            }
            for key in Self.inboundFilterKeys {
                guard let value = select[key] else { continue }
                if fields[key] != nil {
                    error(
                        value.mark, code: "conflict", "`\(key)` is given both in `select` and in the dm step",
                        expected: "one of them")
                } else {
                    fields[key] = value
                }
            }
        }
        let content = answerText(fields, node: node, what: "dm", hasTarget: false)
        let select = inboundFilters(
            fields, sources: [.dms], defaultMaxPerRun: Self.defaultDirectMessageMaxPerRun, mark: node.mark)
        let perConversation =
            fields["per_conversation"].flatMap { integer($0, in: 1...50, what: "per_conversation") }
            ?? DirectMessageAction.defaultPerConversation
        let maxPerDay = fields["max_per_day"].flatMap { integer($0, in: 1...1_000, what: "max_per_day") }
        let approve = fields["approve_from"].map(approval) ?? DirectMessageAction.Approval.none
        guard let content else { return nil }
        return DirectMessageAction(
            select: select, content: content, approve: approve, perConversation: perConversation,
            maxPerDay: maxPerDay)
    }

    /// The inbound source names a selector's `source:` holds (a name or a list), if one of them
    /// is `replies`, `mentions` or `dms`; nil for a feed selector.
    static func inboundSourceNames(of selector: YAMLNode) -> [String]? {
        guard let source = selector.mapping?.first(where: { $0.key.scalar == "source" })?.value else { return nil }
        let names = (source.sequence ?? [source]).compactMap(\.scalar)
        let inbound = InboundSource.allCases.map(\.rawValue)
        return names.contains(where: inbound.contains) ? names : nil
    }

    /// `replies`, `mentions`, or a list of them, each once. `dms` is refused with where it goes.
    func inboundSources(_ node: YAMLNode, what: String) -> [InboundSource] {
        let items: [YAMLNode]
        if node.sequence == nil, node.scalar != nil, !node.isNull {
            items = [node]
        } else {
            items = list(node, what: what, nonEmpty: true) ?? []
        }
        var sources: [InboundSource] = []
        for item in items {
            guard let text = string(item, what: what) else { continue }
            if let source = InboundSource(rawValue: text), source != .dms {
                if sources.contains(source) {
                    error(item.mark, code: "duplicate", "`\(text)` is listed twice", expected: "each source once")
                } else {
                    sources.append(source)
                }
            } else if text == "dms" {
                error(
                    item.mark, code: "value", "a reply does not answer `dms`",
                    expected: "`replies` or `mentions`; direct messages are answered by a `dm:` step")
            } else {
                error(
                    item.mark, code: "value", "`\(text)` is not something a reply answers",
                    expected: "replies, mentions, or a list of them",
                    suggestion: Suggest.closest(to: text, among: Self.replySourceNames))
            }
        }
        return sources
    }

    /// `authors`, `exclude_authors`, `content_matches`, `max_age` (default a day) and
    /// `max_per_run` (1 to 100) from `fields`.
    func inboundFilters(_ fields: [String: YAMLNode], sources: [InboundSource], defaultMaxPerRun: Int, mark: Mark)
        -> InboundSelector
    {
        InboundSelector(
            sources: sources,
            authors: fields["authors"].map { stringList($0, what: "authors").map(\.value) } ?? [],
            excludeAuthors: fields["exclude_authors"].map { stringList($0, what: "exclude_authors").map(\.value) }
                ?? [],
            contentMatches: fields["content_matches"].flatMap { pattern($0, what: "content_matches") },
            maxAge: fields["max_age"].flatMap { duration($0, what: "max_age") } ?? InboundSelector.defaultMaxAge,
            maxPerRun: fields["max_per_run"].flatMap { integer($0, in: 1...100, what: "max_per_run") }
                ?? defaultMaxPerRun,
            mark: mark)
    }

    /// `max_depth` (1 to 20, default 4) and `per_thread` (1 to 20, default 2).
    func loopGuard(_ fields: [String: YAMLNode]) -> LoopGuard {
        LoopGuard(
            maxDepth: fields["max_depth"].flatMap { integer($0, in: 1...20, what: "max_depth") }
                ?? LoopGuard.standard.maxDepth,
            perThread: fields["per_thread"].flatMap { integer($0, in: 1...20, what: "per_thread") }
                ?? LoopGuard.standard.perThread)
    }

    /// `content:` (a template) or `generate:` of an answer; `trigger.*` exists in both, `post.*`
    /// when `hasTarget`.
    func answerText(_ fields: [String: YAMLNode], node: YAMLNode, what: String, hasTarget: Bool) -> CommentText? {
        switch (fields["content"], fields["generate"]) {
        case (let text?, nil):
            return template(text, what: "content", hasTarget: hasTarget, hasTrigger: true).map(CommentText.template)
        case (nil, let generate?):
            return decodeGenerator(generate, hasTarget: hasTarget, hasTrigger: true).map(CommentText.generated)
        case (_?, let generate?):
            error(
                generate.mark, code: "conflict", "\(what) has both `content` and `generate`", expected: "one of them")
        case (nil, nil):
            error(
                node.mark, code: "missing-key", "\(what) has no `content` or `generate`",
                expected: "`content:` or `generate:`")
        }
        return nil
    }

    /// `approve_from:`: agent names, or `"*"` (any agent); `[]` approves none.
    func approval(_ node: YAMLNode) -> DirectMessageAction.Approval {
        if node.sequence?.isEmpty == true { return .none }
        let items = node.sequence ?? [node]
        if items.contains(where: { $0.scalar == "*" && !$0.isNull }) {
            if items.count > 1 {
                error(
                    node.mark, code: "value", "approve_from lists `*` with names",
                    expected: "agent names, or \"*\" alone (approves every request)")
            }
            return .any
        }
        let names = stringList(node, what: "approve_from")
        return names.isEmpty ? .none : .from(names)
    }
}
