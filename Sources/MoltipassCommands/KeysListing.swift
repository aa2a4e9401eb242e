import Foundation
import Keychain
import MoltipassEngine

/// `keys list` output: a table for people, JSON for scripts. Neither ever holds a key.
public enum KeysListing {
    /// One line per entry: name, claim status, key fingerprint, last update, claim URL when pending.
    public static func table(_ entries: [KeychainEntry], path: String) -> String {
        guard !entries.isEmpty else { return "no entries in \(path)" }
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

    /// A JSON array of the entries (sorted keys, no key material).
    public static func json(_ entries: [KeychainEntry]) throws -> String {
        try ReportJSON.string(entries)
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }
}
