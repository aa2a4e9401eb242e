import Foundation
import Storage

/// The daemon's start (issue 19, "health that tells the truth"): before the first pass each
/// agent's key is unlocked and checked with one `GET /agents/me`, so a wrong passphrase, a
/// missing keychain entry, a refused key, an unclaimed agent or a suspension shows in the log,
/// the exit code and `status --health` at once instead of when a job first comes due, hours
/// later. What the read finds is stored as a pass would store it (a refused key and a
/// suspension become pauses, the claim state is kept with the account).
extension AccountPass {
    func preflight(into report: inout RunReport) async {
        // Another live process holding the agent runs it, and checks it.
        guard await takeLease(into: &report) else { return }
        await loadLimiter()
        // A restart is an operator's act: check the key even if a pause says it was refused
        // (a working key lifts that pause; `readIdentity`).
        probes.readIdentityAnyway = true
        let agent = agent
        let pauses = (try? await store.read { try await $0.pauses(account: agent) }) ?? []
        probes.mustProbeKey = pauses.contains { $0.kind == .keyRefused }
        if await requireClient() != nil || (access.client != nil && access.authBroken == nil) {
            report.keysChecked.append(agent)
        }
        await endPass()
        if let pausedUntil = access.pausedUntil { report.pause(agent, until: pausedUntil, kinds: [.suspended]) }
        // A suspension stops the agent like a refused key but is a pause (exit 6, README "Exit
        // codes"), not a broken key (77): issue 33, observation 11.
        if let authBroken = access.authBroken, access.pausedUntil == nil { report.authBroken[agent] = authBroken }
        if let clientError = access.clientError { report.keychainFailures[agent] = clientError }
        if info.claimed == false { report.unclaimed.append(agent) }
    }
}
