import Testing

@testable import Recipes

/// Composition of well-formed documents and the limits that stop hostile ones.
struct YAMLComposerTests {
    func compose(_ text: String, limits: YAMLLimits = .default) throws(YAMLError) -> YAMLNode? {
        try YAMLComposer(limits: limits).compose(Array(text.utf8))
    }

    func error(_ text: String, limits: YAMLLimits = .default) -> YAMLError? {
        do {
            _ = try compose(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// Every node carries its 1-based line and column; mapping order is kept.
    @Test func marksAndOrder() throws {
        let root = try #require(try compose("b: 1\na:\n  - x\n  - \"y\"\n"))
        let pairs = try #require(root.mapping)
        #expect(pairs.map { $0.key.scalar } == ["b", "a"])
        #expect(pairs[0].key.mark == Mark(line: 1, column: 1))
        #expect(pairs[0].value.mark == Mark(line: 1, column: 4))
        let items = try #require(pairs[1].value.sequence)
        #expect(items[0].mark == Mark(line: 3, column: 5))
        #expect(items[1].scalarStyle == .doubleQuoted)
        #expect(pairs[1].value.mark == Mark(line: 3, column: 3))
    }

    /// An empty stream composes to nil, not an error.
    @Test func emptyStream() throws {
        #expect(try compose("") == nil)
        #expect(try compose("# only a comment\n") == nil)
    }

    /// Aliases expand to a copy of the anchored node, marked at the alias.
    @Test func aliasExpands() throws {
        let root = try #require(try compose("a: &x [1, 2]\nb: *x\n"))
        let pairs = try #require(root.mapping)
        #expect(pairs[1].value.sequence?.map(\.scalar) == ["1", "2"])
        #expect(pairs[1].value.mark == Mark(line: 2, column: 4))
    }

    /// A billion-laughs bomb stops at the node limit after a few dozen events.
    @Test func billionLaughs() {
        var text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...9 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            text += "a\(level): &a\(level) [\(refs)]\n"
        }
        var stats = YAMLComposer.Statistics()
        #expect(throws: YAMLError.tooManyNodes(limit: 100_000, at: Mark(line: 5, column: 45))) {
            try YAMLComposer().compose(Array(text.utf8), statistics: &stats)
        }
        #expect(stats.events < 100)
        #expect(YAMLError.tooManyNodes(limit: 1, at: .start).message.contains("max nodes"))
    }

    /// A large document without anchors is no bomb: 150,000 written nodes compose (issue 34, observation 8:
    /// a 10,000-job recipe was refused as "an alias bomb?"); the limit counts only what aliases add.
    @Test func largeDocumentWithoutAliases() throws {
        let jobs = (0..<10_000).map { "- {id: j\($0), every: 1h, post: {submolt: s, title: t, body: b}}\n" }
        var stats = YAMLComposer.Statistics()
        let root = try #require(try YAMLComposer().compose(Array(jobs.joined().utf8), statistics: &stats))
        #expect(root.sequence?.count == 10_000)
        #expect(stats.expandedNodes > 100_000)
        #expect(stats.aliasedNodes == 0)
    }

    /// Alias references beyond the alias limit fail even when each is small.
    @Test func aliasCount() {
        let text = "a: &a x\nb: [" + Array(repeating: "*a", count: 101).joined(separator: ", ") + "]\n"
        #expect(error(text) == .tooManyAliases(limit: 100, at: Mark(line: 2, column: 405)))
    }

    /// 1,000-deep nesting fails at depth 65, long before the end of the input.
    @Test func deepNesting() {
        let text = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        var stats = YAMLComposer.Statistics()
        #expect(throws: YAMLError.tooDeep(limit: 64, at: Mark(line: 1, column: 65))) {
            try YAMLComposer().compose(Array(text.utf8), statistics: &stats)
        }
        #expect(stats.events == 2 + 64 + 1)
        #expect(YAMLError.tooDeep(limit: 64, at: .start).message.contains("max depth"))
    }

    /// A 50 MB document is refused before libyaml sees a byte.
    @Test func hugeDocument() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 50 * 1024 * 1024)
        var stats = YAMLComposer.Statistics()
        #expect(throws: YAMLError.documentTooLarge(bytes: 50 * 1024 * 1024, limit: 1 << 20)) {
            try YAMLComposer().compose(bytes, statistics: &stats)
        }
        #expect(stats.events == 0)
        #expect(YAMLError.documentTooLarge(bytes: 2, limit: 1).message.contains("max document size"))
    }

    /// Invalid UTF-8 is reported at the line and column of the first bad byte.
    @Test func invalidUTF8() {
        var bytes = Array("a: b\nc: é".utf8)
        bytes.append(0xFF)
        var stats = YAMLComposer.Statistics()
        #expect(throws: YAMLError.invalidUTF8(byteOffset: 10, at: Mark(line: 2, column: 5))) {
            try YAMLComposer().compose(bytes, statistics: &stats)
        }
        #expect(stats.events == 0)
    }

    /// A repeated key is rejected naming both positions.
    @Test func duplicateKey() {
        #expect(
            error("a: 1\nb: 2\na: 3\n")
                == .duplicateKey(key: "a", first: Mark(line: 1, column: 1), second: Mark(line: 3, column: 1)))
    }

    /// Core tags pass; language-specific tags are refused.
    @Test func tags() throws {
        let root = try #require(try compose("a: !!str 12\n"))
        #expect(root.mapping?[0].value.tag == YAMLComposer.Tags.str)
        #expect(
            error("a: !!python/object:os.system x\n")
                == .unsupportedTag(tag: "!!python/object:os.system", at: Mark(line: 1, column: 4)))
        #expect(error("a: !custom x\n") == .unsupportedTag(tag: "!custom", at: Mark(line: 1, column: 4)))
    }

    /// A second document is refused at its start.
    @Test func multipleDocuments() {
        #expect(error("a: 1\n---\nb: 2\n") == .multipleDocuments(at: Mark(line: 2, column: 1)))
    }

    /// libyaml's own errors keep their position and problem text.
    @Test func syntaxError() throws {
        let failure = try #require(error("a: [1, 2\nb: 3\n"))
        guard case .syntax(let problem, let mark, _) = failure else {
            Issue.record("expected a syntax error, got \(failure)")
            return
        }
        #expect(problem.contains("did not find expected"))
        #expect(mark.line == 2)
    }

    /// An unquoted cron expression (an alias to libyaml) gets a hint to quote it.
    @Test func unquotedStar() throws {
        let failure = try #require(error("cron: * * * * *\n"))
        #expect(failure.expected?.contains("quote") == true)
        #expect(error("a: *nope\n") == .undefinedAlias(name: "nope", at: Mark(line: 1, column: 4)))
    }
}
