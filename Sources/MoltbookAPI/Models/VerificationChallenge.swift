import Foundation

/// A verification challenge ("AI verification" / lobster math) returned instead of publishing.
public struct VerificationChallenge: Sendable, Equatable {
    /// `moltbook_verify_<hex>` on moltbook.com: the single-use code to answer with.
    public var code: String
    /// The obfuscated word problem.
    public var text: String
    public var expiresAt: Date?
    /// Boilerplate instructions (not the problem).
    public var instructions: String?
    /// `post`, `comment` or `submolt`.
    public var contentType: String?
    public var contentID: String?
    /// Where the answer goes, relative to the API base: `verify` (moltbook.com, §1.7), or the
    /// route the challenge's own shape implies (`verification/submit` for `{code, challenge}`
    /// objects, §6.3) or names (`submit_url`, `verify_url`, …, on the same host only).
    public var answerPath: String

    /// moltbook.com's answer route.
    public static let defaultAnswerPath = "verify"
    /// The answer route of servers that send `{code, challenge}` (moltbook-api.md §6.3).
    public static let submitAnswerPath = "verification/submit"

    public init(
        code: String, text: String, expiresAt: Date? = nil, instructions: String? = nil, contentType: String? = nil,
        contentID: String? = nil, answerPath: String = Self.defaultAnswerPath
    ) {
        self.code = code
        self.text = text
        self.expiresAt = expiresAt
        self.instructions = instructions
        self.contentType = contentType
        self.contentID = contentID
        self.answerPath = answerPath
    }

    /// Finds a challenge wherever a server puts one: `post.verification`,
    /// `comment.verification`, `submolt.verification`, a top-level `verification` (also under
    /// `data`), or top-level fields next to `verification_required: true`.
    ///
    /// Field names vary: the code is `verification_code` (or `code` inside a verification
    /// object, never at the top level, where error bodies put `code: "RATE_LIMITED"`), the text
    /// `challenge_text`, `challenge`, `question` or `problem`.
    public static func find(in json: JSONValue, resourceKey: String) -> VerificationChallenge? {
        let resource = json[resourceKey] ?? json["data"]?[resourceKey] ?? json["data"]
        let contentID = resource?["id"]?.string ?? json["content_id"]?.string
        let required = json["verification_required"]?.bool == true
        let candidates: [(JSONValue?, Bool)] = [
            (resource?["verification"], true), (json["verification"], true), (json["data"]?["verification"], true),
            (resource, false), (json, required),
        ]
        for (candidate, isVerificationObject) in candidates {
            guard let candidate, candidate.object != nil,
                let text =
                    (candidate["challenge_text"] ?? candidate["challenge"] ?? candidate["question"]
                    ?? candidate["problem"])?.string, !text.isEmpty
            else { continue }
            let code: String
            var answerPath = defaultAnswerPath
            if let standard = candidate["verification_code"]?.string {
                code = standard
            } else if isVerificationObject, let short = candidate["code"]?.string {
                code = short
                answerPath = submitAnswerPath
            } else {
                continue
            }
            if let named = namedAnswerPath(candidate) ?? namedAnswerPath(json) { answerPath = named }
            return VerificationChallenge(
                code: code, text: text, expiresAt: (candidate["expires_at"] ?? candidate["expiresAt"])?.date,
                instructions: candidate["instructions"]?.string,
                contentType: candidate["content_type"]?.string ?? (resourceKey.isEmpty ? nil : resourceKey),
                contentID: candidate["content_id"]?.string ?? contentID, answerPath: answerPath)
        }
        return nil
    }

    /// Whether `json` (a whole response body) carries a challenge of any resource.
    public static func isPresent(in json: JSONValue) -> Bool {
        ["post", "comment", "submolt", ""].contains { find(in: json, resourceKey: $0) != nil }
    }

    /// A route the challenge names for its answer (`submit_url`, `verify_url`, `answer_url`,
    /// `submit_path`, `endpoint`), reduced to a path under the API base; nil when absent or
    /// not a path of this API. The host is never taken from it: the client stays pinned.
    static func namedAnswerPath(_ json: JSONValue) -> String? {
        for key in ["submit_url", "verify_url", "answer_url", "submit_path", "verification_url", "endpoint"] {
            guard var text = json[key]?.string, !text.isEmpty else { continue }
            if let schemeEnd = text.range(of: "://") {
                guard let slash = text[schemeEnd.upperBound...].firstIndex(of: "/") else { continue }
                text = String(text[slash...])
            }
            if let marker = text.range(of: "/api/v1/") { text = String(text[marker.upperBound...]) }
            text = String(text.drop { $0 == "/" })
            if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<query]) }
            let segments = text.split(separator: "/")
            let safe =
                !segments.isEmpty
                && segments.allSatisfy { segment in
                    segment != ".." && segment != "."
                        && segment.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) }
                }
            if safe { return segments.joined(separator: "/") }
        }
        return nil
    }
}
