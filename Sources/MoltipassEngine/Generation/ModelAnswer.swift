import Foundation
import Generation

/// What a model's answer gives (issue 21): a `{"title", "content"}` object when the model wrote
/// one (a post, as a program may print it), else the text as it is. Models often wrap JSON in a
/// Markdown code fence; the fence is dropped first. Anything that is not exactly that object is
/// plain text (the checks then judge it), never an error.
package enum ModelAnswer {
    package static func text(_ answer: String) -> GeneratedText {
        var body = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if body.hasPrefix("```"), body.hasSuffix("```"), body.count > 6 {
            body = String(body.dropFirst(3).dropLast(3))
            // The fence's language tag (```json) is the rest of its first line.
            if let newline = body.firstIndex(of: "\n") { body = String(body[body.index(after: newline)...]) }
            body = body.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard body.hasPrefix("{"), let data = body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            Set(object.keys).isSubset(of: ["title", "content"]), let content = object["content"] as? String
        else { return GeneratedText(content: answer) }
        return GeneratedText(title: object["title"] as? String, content: content)
    }
}
