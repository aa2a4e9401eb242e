import Foundation
import Generation
import MoltbookAPI
import Recipes

/// Each check's verdict on a text, one by one (`moltipass generate` prints them): the same
/// predicates as `verdict(of:for:deny:)`, which stops at the first refusal.
extension GeneratedTextCheck {
    /// What one check says of a text.
    public struct Finding: Sendable, Equatable {
        public enum Result: String, Sendable {
            case passed
            case refused
            /// The check could not be made (the text gives the write no fields, no state file).
            case notChecked = "not_checked"
        }

        /// `fields`, `limits`, `secrets`, `deny` or `duplicates`.
        public var check: String
        public var result: Result
        /// Why it refused, or what it looked at.
        public var detail: String

        public init(check: String, result: Result, detail: String) {
            self.check = check
            self.result = result
            self.detail = detail
        }
    }

    /// The title and content `text` gives a write of `kind` (nil when it gives none) and what the
    /// fields, limits, secrets and deny checks say of them, in that order.
    public static func findings(of text: GeneratedText, for kind: PlannedWrite.Kind, deny: [String])
        -> (fields: (title: String?, content: String)?, findings: [Finding])
    {
        let names = ["limits", "secrets", "deny"]
        switch fields(of: text, for: kind) {
        case .failure(let refusal):
            let skipped = names.map { Finding(check: $0, result: .notChecked, detail: "the text gives no \(kind)") }
            return (nil, [Finding(check: "fields", result: .refused, detail: refusal.reason)] + skipped)
        case .success(let (title, content)):
            let texts = [title, content].compactMap { $0 }
            func finding(_ check: String, _ refusal: Refusal?, passed: String) -> Finding {
                refusal.map { Finding(check: check, result: .refused, detail: $0.reason) }
                    ?? Finding(check: check, result: .passed, detail: passed)
            }
            let length: (String) -> Int = MoltbookSizeLimits.length
            let shape =
                title.map { "a title of \(length($0)) characters and a content of \(length(content))" }
                ?? "a \(kind) of \(length(content)) characters"
            let lengths =
                (title.map { "title \(length($0)) of \(MoltbookSizeLimits.title) characters, " } ?? "")
                + "\(title == nil ? "text" : "content") \(length(content)) of \(contentLimit(for: kind))"
            return (
                (title, content),
                [
                    finding("fields", texts.lazy.compactMap(controlRefusal).first, passed: shape),
                    finding("limits", limitRefusal(title: title, content: content, kind: kind), passed: lengths),
                    finding(
                        "secrets", texts.lazy.compactMap(secretRefusal).first,
                        passed: "nothing that looks like a key, token or private key"),
                    finding(
                        "deny", texts.lazy.compactMap { denyRefusal($0, deny: deny) }.first,
                        passed: deny.isEmpty
                            ? "the step has no deny patterns"
                            : deny.count == 1
                                ? "the deny pattern does not match" : "none of the \(deny.count) deny patterns matches"),
                ]
            )
        }
    }
}
