extension RecipeDecoder {
    static let selectorKeys = [
        "source", "submolt", "query", "sort", "limit", "title_matches", "content_matches", "authors",
        "exclude_authors", "not_mine", "min_score", "max_age", "max_per_run",
    ]
    static let sources = ["global", "personal", "submolt", "search"]

    func decodeSelector(_ node: YAMLNode) -> Selector? {
        guard let fields = mapping(node, allowed: Self.selectorKeys, required: ["source"], what: "the selector") else {
            return nil
        }
        var source: Selector.Source?
        if let sourceNode = fields["source"], let text = string(sourceNode, what: "source") {
            switch text {
            case "global": source = .global
            case "personal": source = .personal
            case "submolt":
                if let submolt = fields["submolt"] {
                    source = name(submolt, what: "submolt").map { .submolt($0.value) }
                } else {
                    error(
                        sourceNode.mark, code: "missing-key", "source `submolt` needs `submolt:`",
                        expected: "`submolt: NAME` in the selector")
                }
            case "search":
                if let query = fields["query"] {
                    source = string(query, what: "query").map { .search(query: $0) }
                } else {
                    error(
                        sourceNode.mark, code: "missing-key", "source `search` needs `query:`",
                        expected: "`query: TEXT` in the selector")
                }
            case "replies", "mentions":
                error(
                    sourceNode.mark, code: "value", "source `\(text)` is not a feed",
                    expected: "a `reply:` step, or a `comment:` with `reply_to: trigger`, to answer \(text); "
                        + "here one of " + Self.sources.joined(separator: ", "))
            case "dms":
                error(
                    sourceNode.mark, code: "value", "source `dms` is not a feed",
                    expected: "a `dm:` step to answer direct messages; here one of "
                        + Self.sources.joined(separator: ", "))
            default:
                error(
                    sourceNode.mark, code: "value", "unknown source `\(text)`",
                    expected: "one of " + Self.sources.joined(separator: ", "),
                    suggestion: Suggest.closest(to: text, among: Self.sources))
            }
            if text != "submolt", let submolt = fields["submolt"] {
                error(
                    submolt.mark, code: "conflict", "`submolt` only applies to source `submolt`",
                    expected: "source: submolt")
            }
            if text != "search", let query = fields["query"] {
                error(
                    query.mark, code: "conflict", "`query` only applies to source `search`", expected: "source: search")
            }
        }
        var sort: Selector.Sort?
        if let sortNode = fields["sort"], let text = string(sortNode, what: "sort") {
            let allowed: [Selector.Sort]
            switch source {
            case .personal: allowed = [.hot, .new, .top]
            case .search: allowed = []
            default: allowed = Selector.Sort.allCases
            }
            sort = Selector.Sort(rawValue: text).flatMap { allowed.contains($0) ? $0 : nil }
            if sort == nil {
                error(
                    sortNode.mark, code: "value",
                    allowed.isEmpty ? "search results cannot be sorted" : "sort `\(text)` is not available here",
                    expected: allowed.isEmpty
                        ? "no `sort:` with source search" : "one of " + allowed.map(\.rawValue).joined(separator: ", "),
                    suggestion: Suggest.closest(to: text, among: allowed.map(\.rawValue)))
            }
        }
        let maxLimit: Int
        if case .search = source { maxLimit = 50 } else { maxLimit = 100 }
        let limit = fields["limit"].flatMap { integer($0, in: 1...maxLimit, what: "limit") } ?? 25
        let title = fields["title_matches"].flatMap { pattern($0, what: "title_matches") }
        let content = fields["content_matches"].flatMap { pattern($0, what: "content_matches") }
        let authors = fields["authors"].map { stringList($0, what: "authors").map(\.value) } ?? []
        let excluded = fields["exclude_authors"].map { stringList($0, what: "exclude_authors").map(\.value) } ?? []
        let notMine = fields["not_mine"].flatMap { boolean($0, what: "not_mine") } ?? true
        let minScore = fields["min_score"].flatMap { integer($0, in: -1_000_000...1_000_000, what: "min_score") }
        let maxAge = fields["max_age"].flatMap { duration($0, what: "max_age") }
        let maxPerRun = fields["max_per_run"].flatMap { integer($0, in: 1...100, what: "max_per_run") } ?? 1
        if let limitValue = fields["limit"].flatMap({ Int($0.scalar ?? "") }), maxPerRun > limitValue,
            let node = fields["max_per_run"]
        {
            error(
                node.mark, code: "value", "max_per_run \(maxPerRun) exceeds limit \(limitValue)",
                expected: "max_per_run ≤ limit (posts fetched)")
        }
        guard let source else { return nil }
        return Selector(
            source: source, sort: sort, limit: limit, titleMatches: title, contentMatches: content,
            authors: authors, excludeAuthors: excluded, notMine: notMine, minScore: minScore, maxAge: maxAge,
            maxPerRun: maxPerRun, mark: node.mark)
    }
}
