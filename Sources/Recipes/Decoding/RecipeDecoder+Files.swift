import Foundation

extension RecipeDecoder {
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
    }

    /// `content_file:` — the file's text becomes the content template (errors point at the file).
    func contentFile(_ node: YAMLNode) -> Template? {
        guard let path = string(node, what: "content_file") else { return nil }
        let resolved = resolve(path)
        // A byte order mark is not content: it would start the post.
        guard let bytes = readFile(resolved).map(YAMLComposer.withoutByteOrderMark) else {
            error(
                node.mark, code: "file", "cannot read content_file `\(path)`",
                expected: "a readable file relative to the recipe")
            return nil
        }
        guard UTF8Check.firstInvalidByte(in: bytes) == nil else {
            error(node.mark, code: "file", "content_file `\(path)` is not UTF-8", expected: "a UTF-8 text file")
            return nil
        }
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            return try Template.parse(
                text, at: node.mark, scope: Template.Scope(environment: environment, hasTarget: false))
        } catch {
            self.error(
                node.mark, code: "template", "in content_file `\(path)`: \(error.message)", expected: error.expected,
                suggestion: error.suggestion)
            return nil
        }
    }

    /// `queue:` — a YAML list of `{title, content?, url?}` posted once each, in order. Errors inside the queue file
    /// are reported against that file.
    func decodeQueue(_ node: YAMLNode) -> ContentQueue? {
        guard let path = string(node, what: "queue") else { return nil }
        let resolved = resolve(path)
        guard let bytes = readFile(resolved).map(YAMLComposer.withoutByteOrderMark) else {
            error(
                node.mark, code: "file", "cannot read queue `\(path)`",
                expected: "a readable YAML file relative to the recipe")
            return nil
        }
        let queueDecoder = RecipeDecoder(file: resolved, source: bytes, directory: directory, readFile: { _ in nil })
        queueDecoder.environment = environment
        defer { diagnostics += queueDecoder.diagnostics }
        let root: YAMLNode?
        do {
            root = try YAMLComposer().compose(bytes)
        } catch {
            queueDecoder.yamlError(error)
            return nil
        }
        guard let root, let items = queueDecoder.list(root, what: "the queue", nonEmpty: true) else {
            if root == nil {
                queueDecoder.error(.start, code: "empty", "the queue is empty", expected: "a list of posts")
            }
            return nil
        }
        var queued: [QueueItem] = []
        for item in items {
            guard
                let fields = queueDecoder.mapping(
                    item, allowed: ["title", "content", "url"], required: ["title"],
                    what: "a queue item")
            else { continue }
            guard let title = fields["title"].flatMap({ queueDecoder.template($0, what: "title", hasTarget: false) })
            else { continue }
            let content = fields["content"].flatMap {
                queueDecoder.template($0, what: "content", hasTarget: false, allowEmpty: true)
            }
            let url = fields["url"].flatMap { queueDecoder.template($0, what: "url", hasTarget: false) }
            queued.append(QueueItem(title: title, content: content, url: url, mark: item.mark))
        }
        return ContentQueue(path: Located(path, at: node.mark), resolvedPath: resolved, items: queued)
    }

    func yamlError(_ failure: YAMLError) {
        error(failure.mark, code: "yaml", failure.message, expected: failure.expected)
    }
}
