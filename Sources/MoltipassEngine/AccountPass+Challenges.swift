import ChallengeSolver
import Foundation
import MoltbookAPI
import RateLimiting
import Storage

/// Verification challenges (moltbook-api.md §1.7).
///
/// A challenge is stored before anything else happens with it (`record`), and while one is open
/// the account sends no other write: the open challenges are answered first, each with the
/// recipe's solver, at most `max_attempts` times. A decline, a wrong answer, an expired code or an
/// answer whose outcome was lost all end the same way: the challenge is marked failed and the
/// account's writes pause for the policy's time. Ten failures in a row suspend an account, so the
/// engine never spends a second failure where a pause costs nothing; content is never re-created
/// to "retry" a challenge (that only earns a new challenge and burns a post cooldown).
extension AccountPass {
    /// Where the account stands after its open challenges were looked at.
    enum ChallengeState: Equatable {
        /// No challenge is open: writes may go.
        case clear
        /// A challenge is still open (its answer waits for the limiter or the network): no writes.
        case waiting(until: Date?, reason: String)
        /// A challenge failed and the account is paused until then.
        case paused(until: Date)
    }

    /// Answers the account's open challenges, oldest first.
    func settleChallenges(into report: inout RunReport) async -> ChallengeState {
        let agent = agent
        let open: [StoredChallenge]
        do {
            open = try await store.read { try await $0.challenges(account: agent, status: .open, limit: 100) }
                .reversed()
        } catch {
            report.transientFailures += 1
            return .waiting(until: nil, reason: "state store failed: \(error)")
        }
        for challenge in open {
            let state = await settle(challenge, into: &report)
            if state != .clear { return state }
        }
        return .clear
    }

    /// One open challenge: answer it, or fail it and pause.
    func settle(_ challenge: StoredChallenge, into report: inout RunReport) async -> ChallengeState {
        let policy = runner.challengePolicy(for: agent)
        if let expiry = challenge.expiresAt, expiry <= now {
            return await fail(
                challenge, status: .expired, "challenge \(short(challenge.code)) expired unanswered", &report)
        }
        if challenge.attempts >= policy.maxAttempts {
            // An earlier answer left but its outcome was lost (a crash, a dropped connection).
            // Answering again could only add a failure; pausing costs nothing.
            return await fail(
                challenge, status: .failed,
                "challenge \(short(challenge.code)): the outcome of the last allowed answer is unknown", &report)
        }
        let solution = await policy.solver.solve(challenge.text)
        guard let solved = solution.answerText else {
            let reason = if case .declined(let why, _) = solution { why } else { "no answer" }
            return await fail(
                challenge, status: .failed, "challenge \(short(challenge.code)) declined: \(reason)", &report)
        }
        // Written as the challenge asks (issue 33, observation 6); a form it does not state is a
        // decline, not a guess.
        let answer: String
        switch AnswerForm.read(instructions: challenge.instructions, text: challenge.text) {
        case .failure(let unknown):
            return await fail(
                challenge, status: .failed, "challenge \(short(challenge.code)) declined: \(unknown.reason)", &report)
        case .success(let form):
            guard let value = AnswerFormat.parse(solved), let written = form.write(value) else {
                return await fail(
                    challenge, status: .failed,
                    "challenge \(short(challenge.code)) declined: the answer \(solved) cannot be written with "
                        + "\(form.places) decimal places as the challenge asks", &report)
            }
            answer = written
        }
        guard let client = await requireClient() else {
            return .waiting(until: nil, reason: access.authBroken ?? access.clientError ?? "no client")
        }
        var attempts = challenge.attempts
        while attempts < policy.maxAttempts {
            // An attempt is counted before it leaves: not one the lease's fence would keep back.
            guard await mayStillSend("POST /verify") else {
                return .waiting(until: nil, reason: LeaseWatch.words(access.lease.loss ?? .takenOver))
            }
            switch limiter.reserve([.verify], at: now) {
            case .allowed: break
            case .deferred(let until, let because):
                return .waiting(until: until, reason: "answer waits for \(because)")
            case .never(let because):
                return await fail(challenge, status: .failed, "verify never allowed: \(because)", &report)
            }
            // Counted before it leaves: a crash after sending never allows one answer too many.
            do {
                _ = try await store.transaction { [code = challenge.code, now] in
                    try await $0.recordChallengeAttempt(code: code, at: now)
                }
            } catch {
                limiter.cancel(.verify, reservedAt: now)
                report.transientFailures += 1
                return .waiting(until: nil, reason: "state store failed: \(error)")
            }
            attempts += 1
            do {
                let response = try await client.verify(
                    code: challenge.code, answer: answer,
                    answerPath: challenge.answerPath ?? VerificationChallenge.defaultAnswerPath)
                absorb(response.rateLimit, status: response.status, action: .verify, request: .write)
                switch response.value {
                case .verified:
                    _ = try? await store.transaction { [code = challenge.code, now] in
                        try await $0.resolveChallenge(code: code, status: .solved, at: now)
                    }
                    report.items.append(challengeItem(challenge, .done, "answered \(answer): verified"))
                    logger.info(
                        "challenge verified", metadata: ["agent": "\(agent)", "code": "\(short(challenge.code))"])
                    await confirmChallenged(challenge, verified: true, into: &report)
                    return .clear
                case .incorrect:
                    if attempts < policy.maxAttempts { continue }
                    return await fail(
                        challenge, status: .failed, "challenge \(short(challenge.code)): answer \(answer) was wrong",
                        &report)
                }
            } catch {
                absorb(error.rateLimit, status: error.status ?? 0, action: .verify, request: .write)
                switch error.code {
                case .expired:
                    return await fail(
                        challenge, status: .expired, "challenge \(short(challenge.code)) expired", &report)
                case .conflict:
                    return await fail(
                        challenge, status: .failed,
                        "challenge \(short(challenge.code)) was already answered; that answer's outcome is unknown",
                        &report)
                case .notFound:
                    // The server does not know the code: nothing is owed, nothing to pause for.
                    _ = try? await store.transaction { [code = challenge.code, now] in
                        try await $0.resolveChallenge(code: code, status: .expired, at: now)
                    }
                    report.items.append(challengeItem(challenge, .skipped, "the server does not know this code"))
                    return .clear
                case .rateLimited:
                    let until = limiter.earliest([.verify], at: now).date ?? now.addingTimeInterval(60)
                    return .waiting(until: until, reason: "429 on verify")
                case .suspended, .invalidKey, .authenticationRequired, .forbidden, .notClaimed:
                    await authFailure(error, into: &report)
                    return .waiting(until: nil, reason: error.message)
                default:
                    // Lost on the way (transport, 5xx): the attempt counts. With attempts left the
                    // answer goes again soon, before the code expires (waiting for the next
                    // occurrence let it expire, and a 503 cost a pause); with none left the next
                    // pass pauses (an answer whose outcome was lost is never repeated blindly).
                    report.transientFailures += 1
                    report.items.append(challengeItem(challenge, .uncertain, "verify failed: \(error.message)"))
                    let retry =
                        attempts < policy.maxAttempts ? Self.verifyRetry(after: now, expiry: challenge.expiresAt) : nil
                    return .waiting(until: retry, reason: "verify failed: \(error.message)")
                }
            }
        }
        return await fail(challenge, status: .failed, "challenge \(short(challenge.code)): attempts used up", &report)
    }

    /// When to answer again after an answer was lost: 10 s later, but at the latest 30 s before the
    /// code expires (and never before the next second).
    static func verifyRetry(after now: Date, expiry: Date?) -> Date {
        let soon = now.addingTimeInterval(10)
        guard let expiry else { return soon }
        return max(now.addingTimeInterval(1), min(soon, expiry.addingTimeInterval(-30)))
    }

    /// Marks a challenge failed (or expired) and pauses the account's writes, in one transaction:
    /// for the policy's time, or — once `stopAfter` challenges failed in a row since the last
    /// `moltipass resume` — until an operator resumes the agent; and for good, whatever resume
    /// says, once the server's own count is at `ChallengePolicy.safeStreak` (issue 34).
    func fail(
        _ challenge: StoredChallenge, status: ChallengeStatus, _ reason: String, _ report: inout RunReport
    ) async -> ChallengeState {
        let policy = runner.challengePolicy(for: agent)
        let timed = now.addingTimeInterval(policy.pauseDuration)
        let (agent, now, stopAfter) = (agent, now, policy.stopAfter)
        let streak: (sinceResume: Int, onServer: Int)
        do {
            streak = try await store.transaction { [code = challenge.code] transaction in
                _ = try await transaction.resolveChallenge(code: code, status: status, at: now)
                let streak = (
                    sinceResume: try await Self.failureStreak(account: agent, in: transaction),
                    onServer: try await ChallengeStreak.onServer(account: agent, in: transaction)
                )
                let pauseReason =
                    if streak.onServer >= ChallengePolicy.safeStreak {
                        ChallengeStreak.stopReason(streak.onServer) + " (\(reason))"
                    } else if streak.sinceResume >= stopAfter {
                        "\(streak.sinceResume) verification challenges failed in a row (\(reason)); writes stopped "
                            + "until an operator runs `moltipass resume \(agent)` (ten failures in a row suspend the "
                            + "account)"
                    } else {
                        reason
                    }
                let stopped = streak.sinceResume >= stopAfter || streak.onServer >= ChallengePolicy.safeStreak
                try await transaction.setPause(
                    AccountPause(
                        account: agent, kind: .challengeFailed, until: stopped ? nil : timed, reason: pauseReason,
                        createdAt: now))
                return streak
            }
        } catch {
            report.transientFailures += 1
            return .waiting(until: nil, reason: "state store failed: \(error)")
        }
        let atBound = streak.onServer >= ChallengePolicy.safeStreak
        let stopped = streak.sinceResume >= stopAfter || atBound
        let until = stopped ? Date.distantFuture : timed
        logger.warning(
            stopped ? "challenges failed in a row; writes stopped until resumed" : "challenge failed; writes paused",
            metadata: [
                "agent": "\(agent)", "reason": "\(reason)", "streak": .stringConvertible(streak.sinceResume),
                "server_streak": .stringConvertible(streak.onServer),
                "until": "\(stopped ? "resumed" : MoltbookDateText.iso(timed))",
            ])
        let said =
            atBound
            ? "; " + ChallengeStreak.stopReason(streak.onServer)
            : stopped
                ? "; \(streak.sinceResume) failed in a row: writes stopped until `moltipass resume \(agent)`"
                : "; writes paused"
        report.items.append(challengeItem(challenge, .failed, reason + said, stopped ? nil : timed))
        report.pause(agent, until: until, kinds: [.challengeFailed])
        if !stopped { report.due(at: timed) }
        await confirmChallenged(challenge, verified: false, into: &report)
        return .paused(until: until)
    }

    /// The account's failed or expired challenges in a row, newest first, back to the last solved
    /// one or the last `moltipass resume` (the server counts declines that let a code expire too).
    static func failureStreak(account: String, in reader: any StateReader) async throws -> Int {
        try await ChallengeStreak.sinceResume(account: account, in: reader)
    }

    func challengeItem(
        _ challenge: StoredChallenge, _ outcome: RunReport.Item.Outcome, _ reason: String, _ until: Date? = nil
    ) -> RunReport.Item {
        let entry = challenge.journalKey.flatMap { key in memo.journalContext[key] }
        return RunReport.Item(
            agent: agent, recipe: entry?.recipe ?? "", job: entry?.job ?? "",
            action: "verify", outcome: outcome, reason: "\(challenge.contentType) challenge: \(reason)", until: until,
            key: challenge.journalKey)
    }

    /// The first characters of a challenge code: enough to find it in the state, short in logs.
    func short(_ code: String) -> String {
        let body = code.hasPrefix("moltbook_verify_") ? code.dropFirst("moltbook_verify_".count) : Substring(code)
        return "moltbook_verify_" + body.prefix(8)
    }
}
