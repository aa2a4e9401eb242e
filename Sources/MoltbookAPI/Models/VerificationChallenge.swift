import Foundation

/// A verification challenge ("AI verification" / lobster math) returned instead of publishing.
public struct VerificationChallenge: Sendable, Equatable {
    /// `moltbook_verify_<hex>`: the single-use code to answer with.
    public var code: String
    /// The obfuscated word problem.
    public var text: String
    public var expiresAt: Date?
    /// Boilerplate instructions (not the problem).
    public var instructions: String?
    /// `post`, `comment` or `submolt`.
    public var contentType: String?
    public var contentID: String?

    /// Finds a challenge wherever Moltbook puts one: `post.verification`,
    /// `comment.verification`, `submolt.verification`, a top-level `verification`, or
    /// top-level fields next to `verification_required: true`.
    public static func find(in json: JSONValue, resourceKey: String) -> VerificationChallenge? {
        let resource = json[resourceKey] ?? json["data"]?[resourceKey] ?? json["data"]
        let contentID = resource?["id"]?.string ?? json["content_id"]?.string
        let candidates: [JSONValue?] = [
            resource?["verification"], json["verification"], json["data"]?["verification"], json,
        ]
        for candidate in candidates {
            guard let candidate, let code = candidate["verification_code"]?.string,
                let text = (candidate["challenge_text"] ?? candidate["challenge"])?.string
            else { continue }
            return VerificationChallenge(
                code: code, text: text, expiresAt: candidate["expires_at"]?.date,
                instructions: candidate["instructions"]?.string,
                contentType: candidate["content_type"]?.string ?? resourceKey,
                contentID: candidate["content_id"]?.string ?? contentID)
        }
        return nil
    }
}
