import Foundation
import Keychain
import Logging
import MoltbookAPI
import MoltipassEngine

/// `moltipass claim NAME [--wait]`: checks (or waits for) the owner's claim of an agent whose
/// key is in the keychain, recording the status in the entry.
public struct ClaimFlow: Sendable {
    public let session: KeysSession
    public let logger: Logger

    public init(session: KeysSession, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    /// Polls `/agents/status` (once, or with `waiter` until claimed or timed out). Returns the
    /// exit status and the final report (text, and the fields of `--json`); `progress` receives
    /// notes for stderr.
    public func run(
        name: String, baseURL: String?, waiter: ClaimWaiter?, now: @escaping () -> Date = Date.init,
        sleep: (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        progress: @escaping (String) -> Void
    ) async throws -> (status: ExitStatus, report: AgentKeyReport) {
        let (entry, key) = try session.entryAndKey(name)
        let client = try KeysEndpoint.client(
            baseURL: baseURL ?? entry.metadata.baseURL, apiKey: key, logger: logger)
        var recorded = entry.metadata.claimStatus
        func record(_ status: ClaimStatus) throws {
            guard status != recorded else { return }
            try session.store.updateMetadata(name: name, now: now()) { $0.claimStatus = status }
            recorded = status
        }
        let claimURL = entry.metadata.claimURL.map { " (claim URL: \($0))" } ?? ""
        var announced = false
        let poll: () async throws -> ClaimWaiter.Poll = {
            do {
                switch try await client.status().value.state {
                case .claimed:
                    try record(.claimed)
                    return .claimed
                case .pendingClaim, .other:
                    try record(.pendingClaim)
                    if waiter != nil, !announced {
                        announced = true
                        progress("\(name): pending claim; waiting for the owner\(claimURL)")
                    }
                    return .pending
                }
            } catch let error as APIError {
                switch error.code {
                case .rateLimited:
                    return .retry(after: error.rateLimit.retryWait(now: now()))
                case .serverError, .transport, .undecodable:
                    progress("\(name): \(error) — will retry")
                    return .retry(after: nil)
                case .invalidKey, .authenticationRequired:
                    try record(.invalid)
                    throw error
                case .suspended:
                    try record(.suspended)
                    throw error
                default:
                    throw error
                }
            }
        }
        func report(_ result: String, _ text: String) -> AgentKeyReport {
            var report = AgentKeyReport(
                name: name, result: result, claimStatus: recorded.rawValue, keyFingerprint: key.fingerprint, text: text)
            report.agentID = entry.metadata.agentID
            report.claimURL = entry.metadata.claimURL
            report.baseURL = entry.metadata.baseURL
            return report
        }
        guard let waiter else {
            switch try await poll() {
            case .claimed: return (.ok, report("claimed", "\(name): claimed"))
            case .pending: return (.authBroken, report("pending_claim", "\(name): pending claim\(claimURL)"))
            case .retry:
                return (.transient, report("unreachable", "\(name): Moltbook did not answer; try again later"))
            }
        }
        switch try await waiter.wait(now: now, sleep: sleep, poll: poll) {
        case .claimed:
            return (.ok, report("claimed", "\(name): claimed"))
        case .timedOut(let polls):
            return (
                .transient,
                report(
                    "timed_out",
                    "\(name): still not claimed after \(Self.format(waiter.timeout)) (\(polls) polls); "
                        + "run `moltipass claim \(name) --wait` again once the owner has opened the claim URL")
            )
        }
    }

    static func format(_ seconds: Double) -> String {
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : String(format: "%.1fs", seconds)
    }
}
