import Foundation
import MoltbookAPI

/// An entry as it is stored inside the ciphertext: the JSON object described in
/// docs/keychain-format.md, key included.
///
/// `key` holds an agent's Moltbook key or, for `kind == .model`, a model key; only
/// `KeychainContents` turns it into the public type of its kind.
struct StoredEntry: Sendable, Equatable {
    var name: String
    var kind: KeychainEntry.Kind = .agent
    var key: APIKey
    var metadata: KeychainEntry.Metadata
    var createdAt: Date
    var updatedAt: Date

    /// The public view, without the key.
    var publicEntry: KeychainEntry {
        KeychainEntry(
            name: name, kind: kind, keyFingerprint: key.fingerprint, metadata: metadata, createdAt: createdAt,
            updatedAt: updatedAt)
    }
}

/// The JSON payload: `{"entries": [...]}` with snake_case fields and RFC 3339 UTC times.
///
/// An entry without `kind` is an agent's (every version 1 file); a model key has
/// `"kind": "model"` and no agent metadata.
struct StoredPayload: Codable {
    struct Item: Codable {
        var name: String
        var kind: String?
        var apiKey: String
        var agentID: String?
        var claimURL: String?
        var verificationCode: String?
        var claimStatus: ClaimStatus?
        var baseURL: String?
        var createdAt: String
        var updatedAt: String

        enum CodingKeys: String, CodingKey {
            case name, kind
            case apiKey = "api_key"
            case agentID = "agent_id"
            case claimURL = "claim_url"
            case verificationCode = "verification_code"
            case claimStatus = "claim_status"
            case baseURL = "base_url"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }
    }

    var entries: [Item]

    /// Plaintext is padded with spaces to a multiple of this, so the file size says little
    /// about how many entries it holds.
    static let paddingBlock = 256

    /// The padded plaintext for `entries`.
    static func encode(_ entries: [StoredEntry]) throws -> Data {
        let items = entries.map { entry in
            switch entry.kind {
            case .agent:
                Item(
                    name: entry.name, apiKey: entry.key.withRawValue { $0 }, agentID: entry.metadata.agentID,
                    claimURL: entry.metadata.claimURL, verificationCode: entry.metadata.verificationCode,
                    claimStatus: entry.metadata.claimStatus, baseURL: entry.metadata.baseURL,
                    createdAt: timestamp(entry.createdAt), updatedAt: timestamp(entry.updatedAt))
            case .model:
                Item(
                    name: entry.name, kind: KeychainEntry.Kind.model.rawValue, apiKey: entry.key.withRawValue { $0 },
                    createdAt: timestamp(entry.createdAt), updatedAt: timestamp(entry.updatedAt))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(StoredPayload(entries: items))
        let padded = (data.count / paddingBlock + 1) * paddingBlock
        data.append(Data(repeating: 0x20, count: padded - data.count))
        return data
    }

    /// The entries in `plaintext`, validated: kinds known, names valid and unique within their
    /// kind, keys usable, times parseable, an agent's claim status present, and model keys only
    /// in a file whose header says `version` 2 or later (an older moltipass must refuse such a
    /// file, not read a model key as an agent's).
    static func decode(_ plaintext: Data, path: String, version: UInt8) throws -> [StoredEntry] {
        let payload: StoredPayload
        do {
            payload = try JSONDecoder().decode(StoredPayload.self, from: plaintext)
        } catch {
            throw KeychainError.corruptEntries(path: path, detail: "not the expected JSON")
        }
        var seen = Set<String>()
        return try payload.entries.map { item in
            guard let kind = KeychainEntry.Kind(rawValue: item.kind ?? KeychainEntry.Kind.agent.rawValue) else {
                throw KeychainError.corruptEntries(path: path, detail: "unknown entry kind")
            }
            guard KeychainEntry.isValidName(item.name), seen.insert(kind.rawValue + ":" + item.name).inserted else {
                throw KeychainError.corruptEntries(path: path, detail: "invalid or duplicate entry name")
            }
            let key = APIKey(item.apiKey)
            guard kind == .model ? ModelKey(item.apiKey).isUsable : key.isUsable else {
                throw KeychainError.corruptEntries(path: path, detail: "unusable key in \(item.name)")
            }
            guard let created = parseTimestamp(item.createdAt), let updated = parseTimestamp(item.updatedAt) else {
                throw KeychainError.corruptEntries(path: path, detail: "bad timestamp in \(item.name)")
            }
            switch kind {
            case .agent:
                guard let claimStatus = item.claimStatus else {
                    throw KeychainError.corruptEntries(path: path, detail: "no claim_status in \(item.name)")
                }
                let metadata = KeychainEntry.Metadata(
                    agentID: item.agentID, claimURL: item.claimURL, verificationCode: item.verificationCode,
                    claimStatus: claimStatus, baseURL: item.baseURL)
                return StoredEntry(
                    name: item.name, key: key, metadata: metadata, createdAt: created, updatedAt: updated)
            case .model:
                guard version >= KeychainHeader.modelKeysVersion else {
                    throw KeychainError.corruptEntries(
                        path: path, detail: "model key \(item.name) in a format version \(version) file")
                }
                return StoredEntry(
                    name: item.name, kind: .model, key: key, metadata: .init(), createdAt: created,
                    updatedAt: updated)
            }
        }
    }

    /// `2026-01-30T12:00:00Z`: UTC, whole seconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }

    static func parseTimestamp(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }
}

extension Date {
    /// This instant rounded down to a whole second, as the file stores it.
    var wholeSeconds: Date { Date(timeIntervalSince1970: (timeIntervalSince1970).rounded(.down)) }
}
