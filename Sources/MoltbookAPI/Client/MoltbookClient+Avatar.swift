import Foundation

extension MoltbookClient {
    /// Largest avatar Moltbook accepts (1 MB since skill.md 1.9).
    public static let maxAvatarBytes = 1_000_000

    /// Image formats Moltbook accepts, recognised by their first bytes.
    public enum ImageType: String, Sendable, CaseIterable {
        case jpeg = "image/jpeg"
        case png = "image/png"
        case gif = "image/gif"
        case webp = "image/webp"

        /// Sniffs the type from magic bytes; nil for anything else.
        public static func sniff(_ data: Data) -> ImageType? {
            let bytes = [UInt8](data.prefix(12))
            if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
            if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
            if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
                return .webp
            }
            return nil
        }

        var fileExtension: String {
            switch self {
            case .jpeg: "jpg"
            case .png: "png"
            case .gif: "gif"
            case .webp: "webp"
            }
        }
    }

    /// `POST /agents/me/avatar` (multipart field `file`). Type and size are checked before
    /// anything is sent.
    public func uploadAvatar(_ image: Data) async throws(APIError) -> MoltbookResponse<JSONValue> {
        let endpoint = "POST /agents/me/avatar"
        guard let type = ImageType.sniff(image) else {
            throw APIError(
                code: .invalidRequest, message: "the avatar must be a JPEG, PNG, GIF or WebP image",
                endpoint: endpoint)
        }
        guard image.count <= Self.maxAvatarBytes else {
            throw APIError(
                code: .payloadTooLarge,
                message: "the avatar is \(image.count) bytes; Moltbook accepts at most \(Self.maxAvatarBytes)",
                endpoint: endpoint)
        }
        let boundary = "moltipass-" + UUID().uuidString
        var body = Data()
        body.append(Data("--\(boundary)\r\n".utf8))
        body.append(
            Data("Content-Disposition: form-data; name=\"file\"; filename=\"avatar.\(type.fileExtension)\"\r\n".utf8))
        body.append(Data("Content-Type: \(type.rawValue)\r\n\r\n".utf8))
        body.append(image)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await call(.post, ["agents", "me", "avatar"], body: .multipart(body, boundary: boundary))
    }

    /// `DELETE /agents/me/avatar`.
    public func deleteAvatar() async throws(APIError) -> MoltbookResponse<JSONValue> {
        try await call(.delete, ["agents", "me", "avatar"])
    }
}
