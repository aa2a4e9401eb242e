import Foundation
import MoltbookAPI
import RateLimiting
import Storage

/// Suspensions, the auth breaker and broken keys (moltbook-api.md §3.4).
///
/// - A suspension ("… Suspension ends in N hours", 401 or 403) becomes a persisted pause until
///   then (24 hours when the text gives no time): cron runs exit with the paused code meanwhile.
/// - A 401/403 on a write is checked with one read (`GET /agents/me`). When the read works, the
///   key is fine and writes are failing on the server's side (the February 2026 bug): the breaker
///   opens — a pause of 1 minute, doubling after each failed trial up to 1 hour — and the write
///   stays pending. When the pause ends, the next pass probes with one read again before the
///   first write; a write that goes through closes the breaker.
/// - When the read fails too, the key is refused: this agent stops (other agents go on) with a
///   message that says what to do.
extension AccountPass {
    /// The first breaker pause; each failed trial doubles it, up to `breakerMaxPause`.
    static let breakerFirstPause: TimeInterval = 60
    static let breakerMaxPause: TimeInterval = 3_600
    /// A suspension whose text names no end is assumed to last this long, then probed.
    static let unknownSuspension: TimeInterval = 24 * 3_600

    /// Handles a 401/403/suspension met on a write or a verify. The caller stops the account.
    func authFailure(_ error: APIError, into report: inout RunReport) async {
        switch error.code {
        case .suspended:
            let until = now.addingTimeInterval(error.suspensionRemaining ?? Self.unknownSuspension)
            await pause(.suspended, until: until, reason: error.message, into: &report)
            logger.error(
                "account suspended; writes paused",
                metadata: ["agent": "\(agent)", "until": "\(MoltbookDateText.iso(until))"])
        case .authenticationRequired, .forbidden:
            switch await probe() {
            case .keyWorks:
                await tripBreaker(error, into: &report)
            case .keyRefused(let probeError) where probeError.code == .suspended:
                await authFailure(probeError, into: &report)
            case .keyRefused(let probeError):
                await refuseKey(probeError)
            case .unknown:
                await tripBreaker(error, into: &report)
            }
        default:
            keyRefused(error)
        }
    }

    /// What one `GET /agents/me` says about the key.
    enum ProbeResult { case keyWorks, keyRefused(APIError), unknown }

    func probe() async -> ProbeResult {
        guard let client = access.client else { return .unknown }
        guard case .allowed = limiter.reserve([.read], at: now) else { return .unknown }
        do {
            let me = try await client.me()
            absorb(me.rateLimit, status: me.status, action: nil, request: .read)
            return .keyWorks
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            switch error.code {
            case .invalidKey, .authenticationRequired, .notClaimed, .suspended: return .keyRefused(error)
            default: return .unknown
            }
        }
    }

    /// The key itself is refused: this agent stops until a person acts.
    func keyRefused(_ error: APIError) {
        if error.code == .redirectRefused {
            // Not the key's fault: a base URL (or a proxy) that redirects. The key was not sent on.
            access.authBroken =
                "\(error.message): check the recipe's base_url; the key was not sent to the redirect target"
            logger.error("redirect refused; agent stopped", metadata: ["agent": "\(agent)"])
            return
        }
        // The client's message for a refused key already says to verify or rotate it; the
        // engine adds only what names this agent.
        switch error.code {
        case .notClaimed:
            access.authBroken = "\(error.message): claim the agent (moltipass claim \(agent)), then run again"
        case .invalidKey, .authenticationRequired:
            access.authBroken =
                "the server refuses the key of \(agent): `moltipass keys verify \(agent)`; if it is invalid, "
                + "rotate it and store the new one with `moltipass keys add \(agent) --replace`"
        default:
            access.authBroken = "\(error.message): `moltipass keys verify \(agent)`"
        }
        logger.error("key refused; agent stopped", metadata: ["agent": "\(agent)", "error": "\(error.message)"])
    }

    /// The first `key_refused` pause; each refusal after one doubles it, up to `keyRefusedMaxPause`.
    static let keyRefusedFirstPause: TimeInterval = 3_600
    static let keyRefusedMaxPause: TimeInterval = 6 * 3_600

    /// The server refused the key on `GET /agents/me`: stop the agent (`keyRefused`) and store
    /// a `key_refused` pause, so the next runs send nothing, exit with the auth code and fail
    /// `status --health` until the pause ends; then one read checks the key again (an hour,
    /// doubling to six while it stays refused).
    func refuseKey(_ error: APIError) async {
        keyRefused(error)
        let length = await nextPauseLength(.keyRefused, first: Self.keyRefusedFirstPause, max: Self.keyRefusedMaxPause)
        let fingerprint = access.client?.apiKey.map { " [key \($0.fingerprint)]" } ?? ""
        await storePause(
            .keyRefused, until: now.addingTimeInterval(length),
            reason: (access.authBroken ?? error.message) + fingerprint)
    }

    /// Whether the key was replaced since `pause` (a `key_refused` pause naming another key's
    /// fingerprint): then the pause is lifted at once and the new key is checked with one read,
    /// so an operator who stored a new key does not wait out the pause.
    func keyReplaced(since pause: AccountPause) async -> Bool {
        guard let marker = pause.reason.range(of: " [key ", options: .backwards) else { return false }
        let refused = pause.reason[marker.upperBound...].prefix { $0 != "]" }
        guard let made = try? await runner.makeClient(agent, recipes.first?.baseURL?.value),
            let current = made.apiKey?.fingerprint, current != refused
        else { return false }
        let agent = agent
        _ = try? await store.transaction { try await $0.clearPause(account: agent, kind: .keyRefused) }
        logger.info("a new key was stored; key_refused pause lifted", metadata: ["agent": "\(agent)"])
        return true
    }

    /// Stores a pause without a report at hand (the caller merges `access.pausedUntil` or `access.authBroken`).
    func storePause(_ kind: PauseKind, until: Date, reason: String) async {
        let pause = AccountPause(account: agent, kind: kind, until: until, reason: reason, createdAt: now)
        do {
            try await store.transaction { try await $0.setPause(pause) }
        } catch {
            logger.error("could not store a pause", metadata: ["agent": "\(agent)", "error": "\(error)"])
        }
    }

    /// The length of the next pause of `kind`: `first`, or twice the last one's, at most `max`.
    func nextPauseLength(_ kind: PauseKind, first: TimeInterval, max longest: TimeInterval) async -> TimeInterval {
        let agent = agent
        let previous = try? await store.read { reader in
            try await reader.pauses(account: agent).first { $0.kind == kind }
        }
        return previous.flatMap { $0 }.flatMap { pause in pause.until.map { $0.timeIntervalSince(pause.createdAt) } }
            .map { min($0 * 2, longest) } ?? first
    }

    /// Writes fail while reads work: pause writes, longer after each failed trial.
    func tripBreaker(_ error: APIError, into report: inout RunReport) async {
        let agent = agent
        let length = await nextPauseLength(.authBreaker, first: Self.breakerFirstPause, max: Self.breakerMaxPause)
        let until = now.addingTimeInterval(length)
        await pause(
            .authBreaker, until: until,
            reason: "writes refused (\(error.message)) while reads work; next trial after \(Int(length)) s",
            into: &report)
        logger.warning(
            "auth breaker open: writes refused while reads work",
            metadata: ["agent": "\(agent)", "until": "\(MoltbookDateText.iso(until))"])
    }

    /// A write went through: a breaker left from an earlier wave is closed.
    func closeBreakerIfOpen() async {
        guard probes.breakerWasOpen else { return }
        probes.breakerWasOpen = false
        let agent = agent
        _ = try? await store.transaction { try await $0.clearPause(account: agent, kind: .authBreaker) }
        logger.info("auth breaker closed: a write went through", metadata: ["agent": "\(agent)"])
    }

    /// Before the first write of a pass after the breaker's pause ran out: one read first.
    /// Returns false when the account must not write in this pass.
    func probeAfterBreaker(into report: inout RunReport) async -> Bool {
        guard probes.breakerWasOpen, !probes.probedThisPass else { return true }
        probes.probedThisPass = true
        guard await requireClient() != nil else { return false }
        switch await probe() {
        case .keyWorks:
            return true
        case .keyRefused(let error) where error.code == .suspended:
            await authFailure(error, into: &report)
            return false
        case .keyRefused(let error):
            await refuseKey(error)
            return false
        case .unknown:
            report.transientFailures += 1
            return false
        }
    }

    func pause(_ kind: PauseKind, until: Date, reason: String, into report: inout RunReport) async {
        let pause = AccountPause(account: agent, kind: kind, until: until, reason: reason, createdAt: now)
        do {
            try await store.transaction { try await $0.setPause(pause) }
        } catch {
            report.transientFailures += 1
        }
        report.pause(agent, until: until, kinds: [kind])
        report.due(at: until)
    }
}
