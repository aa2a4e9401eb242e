import Determinism
import Foundation

extension SandboxState {
    /// Rolls the dice for a new post, comment or submolt; on a hit, records a challenge and returns it.
    mutating func maybeIssueChallenge(
        agentID: String, target: ChallengeTarget, contentID: String, now: Date
    ) -> SandboxChallenge? {
        guard config.dialect.issuesChallenges, random.chance(config.challengeRate) else { return nil }
        let generated = challengeGenerator.next(level: config.challengeObfuscation)
        let window = target == .submolt ? config.submoltChallengeExpirySeconds : config.challengeExpirySeconds
        let challenge = SandboxChallenge(
            code: "moltbook_verify_" + random.token(32, alphabet: SeededRandom.hexDigits), agentID: agentID,
            target: target, contentID: contentID, text: generated.text, answer: generated.answer,
            expiresAt: now.addingTimeInterval(Double(window)), form: config.challengeAnswerForm)
        challenges[challenge.code] = challenge
        agents[agentID]?.pendingChallenges.append(challenge.code)
        counters.challengesIssued += 1
        return challenge
    }

    /// `keep_unverified: false`: the challenge for content of `agentID` with `text` that is not
    /// stored, or nil (no challenge: a text cleared by a right answer goes through, once).
    /// `.some(nil)` means "no challenge: store it"; `.some(challenge)` "held, answer this".
    mutating func heldChallenge(
        agentID: String, target: ChallengeTarget, contentID: String, text: String, now: Date
    ) -> SandboxChallenge?? {
        guard !config.keepUnverified else { return nil }
        let key = agentID + "\u{1F}" + text
        if clearedContent.remove(key) != nil { return .some(nil) }
        guard var challenge = maybeIssueChallenge(agentID: agentID, target: target, contentID: contentID, now: now)
        else { return .some(nil) }
        challenge.held = key
        challenges[challenge.code] = challenge
        counters.challengedNotKept += 1
        return .some(challenge)
    }

    /// The answer to a create whose content is held for its challenge: the challenge, no id.
    func heldAnswer(_ challenge: SandboxChallenge, what: String) -> APIResult {
        if config.dialect == .minimalMock { return Self.minimalMockChallenge(challenge) }
        return .ok(
            [
                "success": true, "verification_required": true,
                "message": .string("Answer the verification challenge, then send your \(what) again to publish it."),
                "verification": Self.verificationJSON(challenge),
            ], status: 202)
    }

    /// The `verification` object placed inside the created post, comment or submolt.
    static func verificationJSON(_ challenge: SandboxChallenge) -> JSON {
        [
            "verification_code": .string(challenge.code),
            "challenge_text": .string(challenge.text),
            "expires_at": .string(SandboxTime.iso(challenge.expiresAt)),
            "instructions": .string(
                challenge.form.instructions(route: "POST /api/v1/verify with your verification_code")),
        ]
    }

    /// Marks the agent's challenges whose window passed as expired (a failure each), oldest first.
    mutating func sweepExpiredChallenges(of agentID: String, now: Date) {
        guard let codes = agents[agentID]?.pendingChallenges, !codes.isEmpty else { return }
        let expired = codes.compactMap { challenges[$0] }.filter { $0.state == .pending && now > $0.expiresAt }
            .sorted { ($0.expiresAt, $0.code) < ($1.expiresAt, $1.code) }
        for challenge in expired {
            challenges[challenge.code]?.state = .expired
            setStatus(.failed, of: challenge.target, id: challenge.contentID)
            counters.challengesExpired += 1
            agents[agentID]?.pendingChallenges.removeAll { $0 == challenge.code }
            recordOutcome(agentID: agentID, success: false, at: challenge.expiresAt)
        }
    }

    /// Sweeps every agent (used before counters are reported).
    mutating func sweepAllChallenges(now: Date) {
        for agentID in agents.keys.sorted() { sweepExpiredChallenges(of: agentID, now: now) }
    }

    /// Appends an outcome; suspends the agent when its last N challenges all failed.
    mutating func recordOutcome(agentID: String, success: Bool, at time: Date) {
        guard var agent = agents[agentID] else { return }
        agent.challengeOutcomes.append(success)
        let threshold = config.suspensionThreshold
        if !success, threshold > 0, agent.challengeOutcomes.count >= threshold,
            agent.challengeOutcomes.suffix(threshold).allSatisfy({ !$0 })
        {
            agent.offenses += 1
            let durations = config.suspensionDurationsSeconds.isEmpty ? [86_400] : config.suspensionDurationsSeconds
            let duration = durations[min(agent.offenses, durations.count) - 1]
            let start = max(time, agent.suspendedUntil ?? time)
            agent.suspendedUntil = start.addingTimeInterval(Double(duration))
            agent.suspensionSeconds = duration
            agent.suspensionCause = .verification
            agent.challengeOutcomes.removeAll()
            counters.suspensions += 1
        }
        agents[agentID] = agent
    }

    /// The 403 a suspended agent gets on writes, or nil when it is not suspended at `now`.
    /// The minimal mock answers 401 `{"detail":{"error":"Account suspended","hint":…}}`.
    func suspensionRefusal(of agentID: String, now: Date) -> APIResult? {
        guard let agent = agents[agentID], let until = agent.suspendedUntil, now < until else { return nil }
        let cause =
            agent.suspensionCause == .duplicateContent
            ? "Posting duplicate content" : "Failing verification challenges"
        if config.dialect == .minimalMock {
            let hint =
                "\(cause) (offense #\(agent.offenses)). "
                + "Suspension ends in \(SandboxWording.duration(agent.suspensionSeconds))."
            return .detail(401, ["error": "Account suspended", "hint": .string(hint)])
        }
        let remaining = until.timeIntervalSince(now)
        let hours = Int((remaining / 3600).rounded(.down))
        let wording: String
        if remaining < 3600 {
            wording = SandboxWording.plural(Int((remaining / 60).rounded(.up)), "minute")
        } else if hours % 24 == 0 {
            wording = SandboxWording.plural(hours / 24, "day")
        } else {
            wording = SandboxWording.plural(hours, "hour")
        }
        if agent.suspensionCause == .duplicateContent {
            return .error(
                403, "Your account has been suspended for posting duplicate content",
                hint: "Duplicate posts (offense #\(agent.offenses)). Suspension ends in \(wording).")
        }
        return .error(
            403, "Your account has been suspended for repeatedly failing AI verification challenges",
            hint:
                "Failing to answer AI verification challenge (offense #\(agent.offenses)). Suspension ends in \(wording)."
        )
    }

    /// What became of an answer to a challenge.
    enum AnswerOutcome {
        /// No such code, or another agent's.
        case unknown
        case expired(SandboxChallenge)
        case alreadyAnswered(SandboxChallenge)
        case wrong(SandboxChallenge)
        case right(SandboxChallenge)
    }

    /// Checks `rawAnswer` against the challenge `code` and records the outcome (state, content
    /// status, counters, suspension streak).
    mutating func answer(_ agentID: String, code: String, _ rawAnswer: JSON, now: Date) -> AnswerOutcome {
        guard let challenge = challenges[code], challenge.agentID == agentID else { return .unknown }
        switch challenge.state {
        case .expired: return .expired(challenge)
        case .verified, .failed: return .alreadyAnswered(challenge)
        case .pending: break
        }
        let given: Decimal?
        switch rawAnswer {
        case .string(let text): given = SandboxDecimal.parse(text)
        case .number(let value) where value == value.rounded() && abs(value) < 1e15: given = Decimal(Int(value))
        case .number(let value): given = SandboxDecimal.parse(String(value))
        default: given = nil
        }
        agents[agentID]?.pendingChallenges.removeAll { $0 == code }
        guard let given, challenge.form.accepts(rawAnswer, given, challenge.answer) else {
            challenges[code]?.state = .failed
            setStatus(.failed, of: challenge.target, id: challenge.contentID)
            counters.challengesFailed += 1
            recordOutcome(agentID: agentID, success: false, at: now)
            return .wrong(challenge)
        }
        challenges[code]?.state = .verified
        if let held = challenge.held { clearedContent.insert(held) }
        setStatus(.verified, of: challenge.target, id: challenge.contentID)
        counters.challengesVerified += 1
        switch challenge.target {
        case .post: if let post = posts[challenge.contentID] { published(post, at: now) }
        case .comment: if let comment = comments[challenge.contentID] { published(comment, at: now) }
        case .submolt, .write: break
        }
        recordOutcome(agentID: agentID, success: true, at: now)
        return .right(challenge)
    }

    /// `POST /verify {verification_code, answer}`.
    mutating func verify(_ agentID: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = verifyRefusal(agentID, now: now) { return rateLimited(refusal) }
        guard let code = body?["verification_code"]?.stringValue, let rawAnswer = body?["answer"] else {
            return .badRequest("Missing required fields", hint: "Provide verification_code and answer")
        }
        func extra(_ challenge: SandboxChallenge) -> [String: JSON] {
            ["content_type": .string(challenge.target.rawValue), "content_id": .string(challenge.contentID)]
        }
        switch answer(agentID, code: code, rawAnswer, now: now) {
        case .unknown:
            return .notFound("Invalid verification code", hint: "Use the verification_code from the response")
        case .expired(let challenge):
            return .error(
                410, "Verification code expired", hint: "Challenges must be answered in time", extra: extra(challenge))
        case .alreadyAnswered(let challenge):
            return .error(
                409, "Already answered", hint: "Each verification code can be used once", extra: extra(challenge))
        case .wrong(let challenge):
            return .error(400, "Incorrect answer", hint: "answers must be to 2 decimal places", extra: extra(challenge))
        case .right(let challenge):
            var fields = extra(challenge)
            fields["message"] = .string("Verification successful! Your \(challenge.target.rawValue) is now published.")
            return .ok(fields)
        }
    }

    /// The minimal mock's `POST /verification/submit {code, answer}`.
    mutating func submitVerification(_ agentID: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = verifyRefusal(agentID, now: now) { return rateLimited(refusal) }
        guard let code = body?["code"]?.stringValue, let rawAnswer = body?["answer"] else {
            return .detail(422, "code and answer are required")
        }
        switch answer(agentID, code: code, rawAnswer, now: now) {
        case .unknown:
            return .detail(404, "Verification code not found")
        case .expired:
            return .detail(410, "Verification code expired")
        case .alreadyAnswered:
            return .detail(409, "Verification code already used")
        case .wrong:
            return APIResult(status: 400, body: ["success": false, "error": "Incorrect answer"], shaped: true)
        case .right(let challenge):
            return .ok(["message": .string("Verified! Your \(challenge.target.rawValue) is now published.")])
        }
    }

    /// Sets the publication status of a post, comment or submolt.
    mutating func setStatus(_ status: ContentStatus, of target: ChallengeTarget, id: String) {
        switch target {
        case .post: posts[id]?.status = status
        case .comment: comments[id]?.status = status
        case .submolt:
            if let name = submolts.values.first(where: { $0.id == id })?.name { submolts[name]?.status = status }
        case .write: break
        }
    }

    /// `result` (a write's success) with a verification challenge in it, when `challenge_every_write` is on and
    /// the dice say so: `{…, "verification_required": true, "verification": {…}}` (the community mock's
    /// `{code, challenge, instructions}` in its dialect, answered at its route). `kind`
    /// names the write (`vote`, `follow`, `subscription`, `message`, `approval`).
    mutating func challengingEveryWrite(_ result: APIResult, agentID: String, kind: String, now: Date) -> APIResult {
        guard config.challengeEveryWrite, (200...299).contains(result.status), case .object(var body) = result.body,
            let challenge = maybeIssueChallenge(agentID: agentID, target: .write, contentID: kind, now: now)
        else { return result }
        // The community mock's shape (`code`, `challenge`, answered at its own route) where it is the dialect.
        let shaped =
            config.dialect == .minimalMock
            ? Self.minimalMockChallenge(challenge).body["verification"] ?? .null : Self.verificationJSON(challenge)
        guard case .object(var verification) = shaped else { return result }
        verification["content_type"] = .string(kind)
        body["verification_required"] = true
        body["verification"] = .object(verification)
        return APIResult(status: result.status, body: .object(body), headers: result.headers)
    }
}
