import Foundation

/// A minimal `multipart/form-data` reader: enough to find the `file` field of an avatar upload.
enum SandboxMultipart {
    struct Part {
        var name: String?
        var filename: String?
        var contentType: String?
        var body: Data
    }

    /// The boundary parameter of a `multipart/form-data` content type, or nil.
    static func boundary(fromContentType value: String) -> String? {
        let pieces = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            var boundary = String(piece.dropFirst("boundary=".count))
            if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 {
                boundary = String(boundary.dropFirst().dropLast())
            }
            return boundary.isEmpty ? nil : boundary
        }
        return nil
    }

    /// The parts of a body; empty when the body is not valid multipart for `boundary`.
    static func parts(_ body: Data, boundary: String) -> [Part] {
        let delimiter = Data("--\(boundary)".utf8)
        let bytes = [UInt8](body)
        var positions: [Int] = []
        var search = 0
        while let range = body.range(of: delimiter, in: search..<body.count) {
            positions.append(range.lowerBound)
            search = range.upperBound
        }
        var parts: [Part] = []
        for (start, end) in zip(positions, positions.dropFirst()) {
            var partStart = start + delimiter.count
            if partStart + 1 < bytes.count, bytes[partStart] == 13, bytes[partStart + 1] == 10 { partStart += 2 }
            var partEnd = end
            if partEnd >= 2, bytes[partEnd - 2] == 13, bytes[partEnd - 1] == 10 { partEnd -= 2 }
            guard partStart <= partEnd else { continue }
            let chunk = body.subdata(in: partStart..<partEnd)
            guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let headerText = String(decoding: chunk.subdata(in: 0..<split.lowerBound), as: UTF8.self)
            var part = Part(body: chunk.subdata(in: split.upperBound..<chunk.count))
            for line in headerText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = parameter("name", in: line)
                    part.filename = parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
        return parts
    }

    private static func parameter(_ name: String, in line: String) -> String? {
        for piece in line.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard piece.lowercased().hasPrefix(name + "=") else { continue }
            var value = String(piece.dropFirst(name.count + 1))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }

    /// The image type implied by the first bytes: `image/jpeg`, `image/png`, `image/gif`, `image/webp`, or nil.
    static func sniffImageType(_ data: Data) -> String? {
        let b = [UInt8](data.prefix(12))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return "image/jpeg" }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if b.count >= 6, b.starts(with: [0x47, 0x49, 0x46, 0x38]) { return "image/gif" }
        if b.count >= 12, b.starts(with: [0x52, 0x49, 0x46, 0x46]), Array(b[8..<12]) == [0x57, 0x45, 0x42, 0x50] {
            return "image/webp"
        }
        return nil
    }
}

extension SandboxState {
    static let avatarTypes = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// `POST /agents/me/avatar` (multipart field `file`, ≤ 1 MB, JPEG/PNG/GIF/WebP by type and magic bytes).
    mutating func uploadAvatar(_ agentID: String, _ request: SandboxRequest) -> APIResult {
        guard let contentType = request.headers["Content-Type"],
            let boundary = SandboxMultipart.boundary(fromContentType: contentType)
        else {
            return .badRequest("Expected multipart/form-data", hint: "Upload the image in a form field named file")
        }
        guard let file = SandboxMultipart.parts(request.body, boundary: boundary).first(where: { $0.name == "file" })
        else {
            return .badRequest("No file provided", hint: "Upload the image in a form field named file")
        }
        if file.body.count > config.maxAvatarBytes {
            let megabytes = Double(config.maxAvatarBytes) / 1_048_576
            return .error(413, "File too large", hint: "Max size is \(megabytes == 1 ? "1 MB" : "\(megabytes) MB")")
        }
        let declared = file.contentType?.lowercased().split(separator: ";").first.map(String.init)
        let sniffed = SandboxMultipart.sniffImageType(file.body)
        guard let declared, Self.avatarTypes.contains(declared), sniffed == declared else {
            return .badRequest("Invalid file type", hint: "Allowed: JPEG, PNG, GIF, WebP")
        }
        let ext = declared.split(separator: "/").last.map(String.init) ?? "img"
        let url = "https://www.moltbook.com/avatars/\(agentID).\(ext == "jpeg" ? "jpg" : ext)"
        agents[agentID]?.avatarURL = url
        return .ok(["message": "Avatar uploaded 🦞", "avatar_url": .string(url)])
    }

    /// `DELETE /agents/me/avatar`.
    mutating func deleteAvatar(_ agentID: String) -> APIResult {
        agents[agentID]?.avatarURL = nil
        return .ok(["message": "Avatar removed"])
    }
}
