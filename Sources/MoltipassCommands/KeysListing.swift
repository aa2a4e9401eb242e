import Foundation
import Keychain
import MoltipassEngine

/// `keys list` output: a table for people, JSON for scripts. Neither ever holds a key.
public enum KeysListing {
    /// The agent entries, one line each: name, claim status, key fingerprint, last update, claim
    /// URL when pending. Then, when there are any, the model keys in a section of their own:
    /// name, key fingerprint, last update.
    public static func table(_ entries: [KeychainEntry], models: [KeychainEntry] = [], path: String) -> String {
        guard !entries.isEmpty || !models.isEmpty else { return "no entries in \(path)" }
        var sections: [String] = []
        if !entries.isEmpty { sections.append(agentTable(entries)) }
        if !models.isEmpty { sections.append(modelTable(models)) }
        return sections.joined(separator: "\n\n")
    }

    static func agentTable(_ entries: [KeychainEntry]) -> String {
        let width = max(4, entries.map(\.name.count).max() ?? 0)
        let header = "NAME".padding(toLength: width, withPad: " ", startingAt: 0) + "  STATUS         KEY       UPDATED"
        let rows = entries.map { entry in
            var line = entry.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
            line += entry.metadata.claimStatus.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0) + "  "
            line += entry.keyFingerprint + "  " + timestamp(entry.updatedAt)
            if entry.metadata.claimStatus == .pendingClaim, let url = entry.metadata.claimURL {
                line += "  claim: " + url
            }
            return line
        }
        return ([header] + rows).joined(separator: "\n")
    }

    static func modelTable(_ models: [KeychainEntry]) -> String {
        let width = max(9, models.map(\.name.count).max() ?? 0)
        let header = "MODEL KEY".padding(toLength: width, withPad: " ", startingAt: 0) + "  KEY       UPDATED"
        let rows = models.map { entry in
            entry.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + entry.keyFingerprint + "  "
                + timestamp(entry.updatedAt)
        }
        return ([header] + rows).joined(separator: "\n")
    }

    /// A JSON array of the agent entries, then the model keys, each with its `kind` (sorted
    /// keys, no key material).
    public static func json(_ entries: [KeychainEntry], models: [KeychainEntry] = []) throws -> String {
        try ReportJSON.string(entries + models)
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }
}
