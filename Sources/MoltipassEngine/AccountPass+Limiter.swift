import Foundation
import Logging
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// The account's limiter in a pass: its profile by the agent's age, read once, kept decoded
/// between passes, written only when it changed; server hints folded in.
extension AccountPass {
    func profile() -> LimitProfile {
        var profile = LimitRules.profile(createdAt: info.createdAt, at: now)
        for recipe in recipes { profile = profile.applying(recipe.limits) }
        return profile
    }

    func loadLimiter() async {
        let stored = try? await store.read { [agent] reader in
            (
                try await reader.limiterState(account: agent, key: "limiter"),
                try await reader.limiterState(account: agent, key: "account")
            )
        }
        applyStored(limiter: stored?.0, account: stored?.1)
    }

    /// Takes the stored limiter (decoded once and kept between passes) and account info.
    func applyStored(limiter data: Data?, account: Data?) {
        if let data {
            let agent = agent
            if let known = runner.decodedLimiters.withLock({ $0[agent] }), known.bytes == data {
                limiter = known.limiter
                memo.storedLimiter = data
            } else if let decoded = try? Limiter(serialized: data) {
                limiter = decoded
                memo.storedLimiter = data
                remember(decoded, as: data)
            }
        }
        if let data = account, let stored = AccountInfo(stored: data) {
            info = stored
            memo.storedInfo = stored
        }
        limiter.setRules(LimitRules.rules(for: profile()))
    }

    /// Keeps `limiter` with its stored bytes for the next pass (see `Runner.decodedLimiters`).
    func remember(_ limiter: Limiter, as bytes: Data) {
        let agent = agent
        runner.decodedLimiters.withLock { $0[agent] = (bytes, limiter) }
    }

    /// Stores the limiter and the account info, each only if it changed since it was read or written.
    func saveLimiter() async {
        let (limiterData, info) = limiterWrites()
        guard limiterData != nil || info != nil else { return }
        let (agent, now) = (agent, now)
        do {
            try await store.transaction { transaction in
                try await Self.write(limiter: limiterData, info: info, account: agent, at: now, in: transaction)
            }
            stored(limiterData, info)
        } catch {
            logger.error("could not store the limiter", metadata: ["agent": "\(agent)", "error": "\(error)"])
        }
    }

    /// The limiter's and the account info's stored forms, each nil when unchanged since read or written.
    func limiterWrites() -> (limiter: Data?, info: Data?) {
        // Equal to the value its stored bytes were decoded from or written as: nothing to serialise.
        let agent = agent
        let known = runner.decodedLimiters.withLock { $0[agent] }
        let data =
            if let storedLimiter = memo.storedLimiter, let known, known.bytes == storedLimiter, known.limiter == limiter
            {
                storedLimiter
            } else {
                limiter.serialized()
            }
        let changed = info == memo.storedInfo ? nil : info.stored
        return (data == memo.storedLimiter ? nil : data, changed)
    }

    /// Writes what `limiterWrites()` gave (either may be nil: unchanged) in `transaction`.
    static func write(
        limiter: Data?, info: Data?, account: String, at now: Date, in transaction: any StateTransaction
    ) async throws {
        if let limiter { try await transaction.setLimiterState(limiter, account: account, key: "limiter", at: now) }
        if let info { try await transaction.setLimiterState(info, account: account, key: "account", at: now) }
    }

    /// Notes what `limiterWrites()` gave as stored.
    func stored(_ limiterData: Data?, _ info: Data?) {
        if let limiterData {
            memo.storedLimiter = limiterData
            remember(limiter, as: limiterData)
        }
        if info != nil {
            memo.storedInfo = self.info
        }
    }

    /// Who the agent is on the server: its name and id there when known, else the entry name.
    var identity: AgentIdentity { AgentIdentity(name: info.name ?? agent, id: info.id) }

    /// Folds a response's hints into the limiter. `window`: the class the response's
    /// `X-RateLimit-*` headers describe (the request class unless the endpoint says otherwise).
    func absorb(
        _ hint: RateLimitHint, status: Int, action: LimitClass?, request: LimitClass, reservedAt: Date? = nil,
        window: LimitClass? = nil
    ) {
        let absorbed = limiter.absorb(
            hint, status: status, action: action, request: request, reservedAt: reservedAt, window: window, at: now)
        for (limitClass, spacing) in absorbed.learned {
            logger.warning(
                "server stricter than the limit profile; spacing learned",
                metadata: ["agent": "\(agent)", "class": "\(limitClass.rawValue)", "spacing_s": "\(Int(spacing))"])
        }
    }
}
