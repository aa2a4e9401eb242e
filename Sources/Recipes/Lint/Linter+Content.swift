import Foundation
import KeyShapes

extension Linter {
    static func contentFindings(_ step: Step, file: String) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        func check(_ template: Template?, in file: String, what: String, limit: Int?) {
            guard let template else { return }
            if let limit, template.literalLength > limit {
                findings.append(
                    Diagnostic(
                        file: file, mark: template.mark, severity: .error, code: "lint-size",
                        message:
                            "\(what) is at least \(template.literalLength) characters, over Moltbook's limit of \(limit)",
                        expected: "at most \(limit) characters"))
            }
            if template.isLiteral, template.source.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                findings.append(
                    Diagnostic(
                        file: file, mark: template.mark, severity: .warning, code: "lint-empty",
                        message: "\(what) is empty", expected: "some text, or leave the key out"))
            }
            // Anything that looks like a credential (`KeyShapes`, what the redactor removes from
            // every output); shown by its first characters only.
            if let match = KeyShapes.firstMatch(in: template.source) {
                let shown = template.source[match.range].prefix(match.prefix.count + 2) + "…"
                findings.append(
                    Diagnostic(
                        file: file, mark: template.mark, severity: .error, code: "lint-secret",
                        message: "\(what) contains what looks like \(match.shape.kind) (`\(shown)`)",
                        expected: "no credentials in content; keys belong in the keychain"))
            }
        }
        switch step.action {
        case .post(let post):
            switch post.body {
            case .inline(let title, let content, let url):
                check(title, in: file, what: "title", limit: MoltbookSizeLimits.title)
                check(content, in: file, what: "content", limit: MoltbookSizeLimits.content)
                check(url, in: file, what: "url", limit: nil)
            case .queue(let queue):
                for item in queue.items {
                    check(item.title, in: queue.resolvedPath, what: "queued title", limit: MoltbookSizeLimits.title)
                    check(
                        item.content, in: queue.resolvedPath, what: "queued content", limit: MoltbookSizeLimits.content)
                    check(item.url, in: queue.resolvedPath, what: "queued url", limit: nil)
                }
            case .generated:
                // Generated text is checked when it is written (field limits, the secret scan).
                break
            }
        case .comment(let comment):
            check(comment.content.template, in: file, what: "comment", limit: MoltbookSizeLimits.comment)
        case .reply(let reply):
            check(reply.content.template, in: file, what: "reply", limit: MoltbookSizeLimits.comment)
        case .dm(let message):
            check(message.content.template, in: file, what: "direct message", limit: MoltbookSizeLimits.directMessage)
        default:
            break
        }
        return findings
    }
}
