import Foundation
import MoltbookAPI
import RateLimiting
import Storage

/// The drain's decisions for one account, apart from their effects (issue 20: "a value type …
/// whose methods take an event and the time and return the actions to perform; a thin driver
/// performs them"). It owns the account's limiter for the pass and the classes already
/// deferred in it; it reads no clock, touches no store and sends nothing. `AccountPass+Drain`
/// is its driver: it asks `step(for:)` what to do with each pending entry, `admit(_:)` before
/// sending, and `handle(_:for:)` / `handle(verdict:…)` with what came back, then performs the
/// returned journal change, report line and follow-up.
struct DrainMachine {
    var limiter: Limiter
    /// The instant of the machine's decisions: the pass's, or later once the driver `advance`d it
    /// to the instant a write leaves.
    private(set) var now: Date
    /// Classes the limiter deferred in this pass, with until when: later planned entries of
    /// such a class wait behind, without a reservation and a store write each (a backlog of
    /// thousands of comments behind a daily cap otherwise costs a write per entry per pass).
    private(set) var blocked: [LimitClass: Date] = [:]

    init(limiter: Limiter, now: Date) {
        self.limiter = limiter
        self.now = now
    }

    // MARK: Before sending

    /// What to do with one pending entry.
    enum Step: Equatable {
        /// Report it deferred behind an earlier write of its class (`until`).
        case behind(until: Date)
        /// Its payload cannot be read: finish it failed.
        case unreadable
        /// Its retry time has not come: report it deferred until then.
        case waiting(PlannedWrite, until: Date, reason: String)
        /// Sent before with no known outcome: read back first.
        case readBack(PlannedWrite)
        /// Check with the server, then admit and send.
        case send(PlannedWrite)
    }

    mutating func step(for entry: JournalEntry) -> Step {
        let fresh = entry.state == .intent || entry.state == .failed
        if fresh, let kind = PlannedWrite.Kind(rawValue: entry.action),
            let until = blocked[PlannedWrite(kind: kind).limitClass]
        {
            return .behind(until: until)
        }
        guard let payload = entry.payload, let write = PlannedWrite(payload: payload) else { return .unreadable }
        if let next = entry.nextAttemptAt, next > now {
            // Later writes of the class wait behind one waiting for a retry: a queue's next post
            // must not overtake it (found by scripts/reliability: possible reordering). One whose
            // outcome is unknown holds nothing: it may wait days for an operator, and whatever it
            // turns out to be, a different later write is no duplicate of it.
            if entry.attempts > 0, entry.state != .uncertain, blocked[write.limitClass] == nil {
                blocked[write.limitClass] = next
            }
            return .waiting(write, until: next, reason: entry.lastError ?? "scheduled")
        }
        return entry.state == .sent || entry.state == .uncertain ? .readBack(write) : .send(write)
    }

    /// A fresh entry of `limitClass` was deferred (by the limiter, a 429, a server check waiting
    /// for the read budget): later fresh entries of the class wait behind it.
    mutating func deferred(_ limitClass: LimitClass, until: Date) {
        blocked[limitClass] = until
    }

    /// The limiter's word on sending `write` now (a reservation when allowed).
    enum Admission: Equatable {
        case allowed
        /// Not before `until`; the entry waits as `failed` with that retry time.
        case deferred(until: Date, because: String)
        /// A zero limit: finish the entry failed.
        case never(because: String)
    }

    /// Moves the machine's instant on to `instant` (never back): the driver's clock just before
    /// it admits a write, so the write is charged when it leaves, not when the agent's turn began
    /// (reads, a read-back and earlier writes come first), and the answer to it is judged from
    /// then. A write charged early lets the next one of its class leave as early, before the
    /// server's cooldown has ended. The reservation `admit` makes is at this instant, and
    /// `withdraw` and `handle` use the same one, so nothing moves it between them.
    mutating func advance(to instant: Date) {
        if instant > now { now = instant }
    }

    mutating func admit(_ write: PlannedWrite) -> Admission {
        switch limiter.reserve([.write, write.limitClass], at: now) {
        case .allowed:
            return .allowed
        case .deferred(let until, let because):
            // The class is held by the account machine when the entry was a fresh one
            // (`deferred(_:until:)`); a read-back entry's deferral does not hold it (as before
            // the machine: plans stay byte-identical).
            return .deferred(until: until, because: "\(because)")
        case .never(let because):
            return .never(because: "never allowed: \(because)")
        }
    }

    /// The reservation made by `admit` is given back (the `sent` mark could not be stored).
    mutating func withdraw(_ write: PlannedWrite) {
        limiter.cancel(write.limitClass, reservedAt: now)
    }

    // MARK: After sending

    /// What the journal records of an attempt.
    enum JournalChange: Equatable {
        case done(remoteID: String?)
        case failed(reason: String, retryAt: Date?)
        case uncertain(reason: String)
    }

    /// What the driver does next, beyond the journal change and the report line.
    enum FollowUp: Equatable {
        case none
        /// Stop the account for this pass.
        case stop
        /// The server took a vote back: restore it once.
        case restoreVote
        /// Applied: close an open auth breaker; answer the challenge when there is one.
        case applied(challenge: VerificationChallenge?)
        /// The key or the account is the problem: pause as the error says, stop.
        case authFailure(code: APIError.Code)
    }

    /// The decision on one answer.
    struct Decision: Equatable {
        var journal: JournalChange?
        /// The report line: outcome, reason, until.
        var outcome: RunReport.Item.Outcome?
        var reason: String?
        var until: Date?
        var followUp: FollowUp = .none
        /// Spacings the limiter learned from this answer (the driver logs them).
        var learned: [LimitClass: Double] = [:]
        /// A transient failure to count.
        var transient = false
    }

    /// The class whose limiter a response's `X-RateLimit-*` headers describe: the open-source
    /// server reports the post and comment limiters there on those endpoints (moltbook-api.md
    /// §6.2); everywhere else they describe the request window. A header from one endpoint
    /// limits that endpoint's class, never every write.
    static func windowClass(of write: PlannedWrite) -> LimitClass {
        switch write.kind {
        case .post, .comment, .reply, .directMessage: write.limitClass
        case .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe,
            .unsubscribe, .approveRequest:
            .write
        }
    }

    private mutating func absorb(
        _ hint: RateLimitHint, status: Int, from write: PlannedWrite, action: LimitClass?, reservedAt: Date? = nil
    ) -> [LimitClass: Double] {
        limiter.absorb(
            hint, status: status, action: action, request: .write, reservedAt: reservedAt,
            window: Self.windowClass(of: write), at: now
        ).learned
    }

    /// What to do with the answer to `write` (sent now).
    mutating func handle(_ outcome: WriteSender.Outcome, for write: PlannedWrite) -> Decision {
        let limitClass = write.limitClass
        switch outcome {
        case .voteRemoved(let hint, let status):
            return Decision(
                followUp: .restoreVote, learned: absorb(hint, status: status, from: write, action: limitClass))
        case .done(let remoteID, let challenge, let hint, let status):
            var decision = Decision(
                journal: .done(remoteID: remoteID),
                learned: absorb(hint, status: status, from: write, action: limitClass))
            decision.followUp = .applied(challenge: challenge)
            if challenge == nil {
                decision.outcome = .done
                decision.reason = remoteID.map { "id \($0)" }
            }
            return decision
        case .rateLimited(let error):
            let learned = absorb(error.rateLimit, status: 429, from: write, action: limitClass, reservedAt: now)
            let until = limiter.earliest([.write, limitClass], at: now).date ?? now.addingTimeInterval(60)
            return Decision(
                journal: .failed(reason: "429: \(error.message)", retryAt: until), outcome: .deferred,
                reason: "server said 429", until: until, learned: learned)
        case .uncertain(let error):
            return Decision(
                journal: .uncertain(reason: error.message), outcome: .uncertain, reason: error.message,
                learned: absorb(error.rateLimit, status: error.status ?? 0, from: write, action: nil))
        case .retryable(let error):
            limiter.cancel(limitClass, reservedAt: now)
            let retry = now.addingTimeInterval(60)
            return Decision(
                journal: .failed(reason: error.message, retryAt: retry), outcome: .deferred, reason: error.message,
                until: retry, followUp: .stop, transient: true)
        case .authBroken(let error):
            // Refused before anything happened: the write stays pending for when the account works again.
            limiter.cancel(limitClass, reservedAt: now)
            return Decision(
                journal: .failed(reason: error.message, retryAt: now), outcome: .deferred, reason: error.message,
                followUp: .authFailure(code: error.code))
        case .rejected(let error):
            let learned = absorb(error.rateLimit, status: error.status ?? 0, from: write, action: nil)
            if error.code == .conflict, write.kind.isMembership {
                return Decision(
                    journal: .done(remoteID: nil), outcome: .done, reason: "already so",
                    followUp: .applied(challenge: nil),
                    learned: learned)
            }
            return Decision(
                journal: .failed(reason: error.message, retryAt: nil), outcome: .failed, reason: error.message,
                learned: learned)
        }
    }

    // MARK: Reading back

    /// How many sends a write may take before one whose answer was unclear (5xx, unreadable)
    /// and whose copy reading back cannot find is given up. Attempts refused by a 429 count
    /// too (the journal keeps one count), hence a margin above the three unclear answers meant.
    static let maxUnclearSends = 5

    /// What reading back found, for an entry sent `attempts` times.
    enum ReadBack: Equatable {
        /// Applied after all: finish it done (the limiter charged at `sentAt`).
        case applied(remoteID: String?)
        /// Not applied: send it (again).
        case send
        /// Give it up: finish it failed (report `outcome`).
        case giveUp(reason: String, outcome: RunReport.Item.Outcome)
        /// What was read does not say: keep it uncertain, never sent again automatically; read it
        /// again at `readAgainAt`, or an operator settles it (`moltipass settle KEY --sent|--not-sent`).
        case unknown(reason: String, readAgainAt: Date)
    }

    /// When an unknown write is read again: as long after now as it has been since it was sent,
    /// between ten minutes and twelve hours (a back-off that needs no counter in the journal).
    static func readAgain(sentAt: Date, now: Date) -> Date {
        now.addingTimeInterval(min(max(now.timeIntervalSince(sentAt), 600), 43_200))
    }

    mutating func handle(
        verdict: Reconciler.Verdict, for write: PlannedWrite, attempts: Int, sentAt: Date
    ) -> ReadBack {
        switch verdict {
        case .applied(let remoteID):
            // The run that sent it may have died before saving its limiter: the write counts
            // against the limits at the time it was sent (found by scripts/reliability/kill9).
            limiter.record([.write, write.limitClass], at: sentAt)
            return .applied(remoteID: remoteID)
        case .notApplied where attempts >= Self.maxUnclearSends:
            // Sent this often, each answer unclear and no copy found: a server that keeps
            // failing this request. Every try may burn its limit slot, so it stops here.
            return .giveUp(
                reason: "sent \(attempts) times, the last without a clear answer, and not found on the server; "
                    + "not sent again", outcome: .failed)
        case .notApplied:
            return .send
        case .unknown(let why):
            // Unknown is never re-sent (issue 33): a second post would be a duplicate, a second
            // vote would take the first back. It waits, is read again, and asks for an operator.
            let at = Self.readAgain(sentAt: sentAt, now: now)
            return .unknown(
                reason: "outcome unknown: \(why); not sent again, read again at \(MoltbookDateText.iso(at))",
                readAgainAt: at)
        }
    }
}
