import Foundation
import MoltbookAPI

/// Repeated content, as moltbook.com treats it (moltbook-api.md §6.1): everything an agent
/// submits is fingerprinted when it arrives, before any challenge is answered; with
/// `enforce_duplicates` a repeat is refused and is an offense that suspends (23 hours, then a
/// week). The fingerprint is the server's own rule: lowercase words of letters and digits.
extension SandboxState {
    /// The server's fingerprint of a text.
    static func contentPrint(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.joined(separator: " ")
    }

    /// Fingerprints `text` for `agentID`. With enforcement on and the text a repeat, the agent is
    /// suspended and the refusal is returned; nil otherwise.
    mutating func duplicateRefusal(_ agentID: String, text: String, now: Date) -> APIResult? {
        let print = Self.contentPrint(text)
        guard agents[agentID] != nil else { return nil }
        // In place: a copy of the agent taken out first made every insert copy its whole set.
        let repeated = agents[agentID]?.contentPrints.insert(print).inserted == false
        guard repeated, config.enforceDuplicates, var agent = agents[agentID] else { return nil }
        counters.duplicateRefusals += 1
        counters.suspensions += 1
        agent.offenses += 1
        let durations = config.duplicateSuspensionsSeconds.isEmpty ? [82_800] : config.duplicateSuspensionsSeconds
        let duration = durations[min(agent.offenses, durations.count) - 1]
        agent.suspendedUntil = max(now, agent.suspendedUntil ?? now).addingTimeInterval(Double(duration))
        agent.suspensionSeconds = duration
        agent.suspensionCause = .duplicateContent
        agents[agentID] = agent
        return suspensionRefusal(of: agentID, now: now)
    }
}
