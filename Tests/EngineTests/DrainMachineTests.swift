import Foundation
import MoltbookAPI
import RateLimiting
import Recipes
import Storage
import Testing

@testable import MoltipassCommands
@testable import MoltipassEngine
@testable import MoltipassPlan

/// The drain's decisions as a table, at fixed instants, with no store, no sandbox and no client
/// (issue 20): each situation, and the step, admission or decision the machine returns.
@Suite("DrainMachine: the drain's decisions")
struct DrainMachineTests {
    static let now = Date(timeIntervalSince1970: 1_796_119_200)  // 2026-12-01T10:00:00Z
    static let post = PlannedWrite(kind: .post, submolt: "general", title: "Harbour notes", content: "Calm.")
    static let comment = PlannedWrite(kind: .comment, target: "p1", content: "Nice.")
    static let follow = PlannedWrite(kind: .follow, target: "reef_scout")

    static func machine(_ profile: LimitProfile = .standard) -> DrainMachine {
        DrainMachine(limiter: Limiter(rules: LimitRules.rules(for: profile)), now: now)
    }

    static func entry(
        _ write: PlannedWrite, state: JournalState = .intent, attempts: Int = 0, next: Date? = nil,
        error: String? = nil, key: String = "k1"
    ) -> JournalEntry {
        JournalEntry(
            intent: JournalIntent(
                key: key, account: "a", recipe: "a", job: "j", occurrence: now, step: 0, action: write.kind.rawValue,
                target: write.target, contentHash: write.contentHash, payload: write.payload, notBefore: next),
            state: state, attempts: attempts, createdAt: now, updatedAt: now, sentAt: state == .intent ? nil : now,
            remoteID: nil, lastError: error)
    }

    static func error(_ code: APIError.Code, status: Int? = nil, hint: RateLimitHint = RateLimitHint()) -> APIError {
        APIError(code: code, message: "\(code.rawValue)", endpoint: "POST /posts", status: status, rateLimit: hint)
    }

    // MARK: Steps

    @Test func stepsForEachKindOfEntry() {
        var machine = Self.machine()
        #expect(machine.step(for: Self.entry(Self.post)) == .send(Self.post))
        #expect(machine.step(for: Self.entry(Self.post, state: .uncertain, attempts: 1)) == .readBack(Self.post))
        #expect(machine.step(for: Self.entry(Self.post, state: .sent, attempts: 1)) == .readBack(Self.post))
        let later = Self.now.addingTimeInterval(600)
        #expect(
            machine.step(for: Self.entry(Self.comment, state: .failed, next: later, error: "deferred by x"))
                == .waiting(Self.comment, until: later, reason: "deferred by x"))
        var broken = Self.entry(Self.post)
        broken.payload = Data("not json".utf8)
        #expect(machine.step(for: broken) == .unreadable)
        // A retry time that has come: send.
        #expect(
            machine.step(for: Self.entry(Self.post, state: .failed, attempts: 1, next: Self.now, key: "k2"))
                == .send(Self.post))
    }

    /// A write waiting for a retry after an attempt holds its class: the queue's next post waits
    /// behind it instead of overtaking it; other classes go on.
    @Test func aRetryingWriteHoldsItsClass() {
        var machine = Self.machine()
        let later = Self.now.addingTimeInterval(900)
        _ = machine.step(for: Self.entry(Self.post, state: .failed, attempts: 1, next: later, error: "429"))
        #expect(machine.step(for: Self.entry(Self.post, key: "k2")) == .behind(until: later))
        #expect(machine.step(for: Self.entry(Self.comment, key: "k3")) == .send(Self.comment))
        // A planned deferral (no attempt yet) does not hold the class.
        var other = Self.machine()
        _ = other.step(for: Self.entry(Self.post, state: .failed, attempts: 0, next: later))
        #expect(other.step(for: Self.entry(Self.post, key: "k2")) == .send(Self.post))
    }

    // MARK: Admission

    /// Standard limits: one post, then the second waits 30 minutes; holding the class is the
    /// account machine's, for fresh entries only (`deferred(_:until:)`).
    @Test func admissionDefersAndBlocks() {
        var machine = Self.machine()
        #expect(machine.admit(Self.post) == .allowed)
        guard case .deferred(let until, let because) = machine.admit(Self.post) else {
            Issue.record("the second post in a minute must wait")
            return
        }
        #expect(until == Self.now.addingTimeInterval(1_800))
        #expect(because.contains("post"))
        #expect(machine.step(for: Self.entry(Self.post, key: "k9")) == .send(Self.post))
        machine.deferred(Self.post.limitClass, until: until)
        #expect(machine.step(for: Self.entry(Self.post, key: "k9")) == .behind(until: until))
        #expect(machine.admit(Self.follow) == .allowed)
    }

    /// A reservation whose `sent` mark could not be stored is given back.
    @Test func withdrawGivesTheReservationBack() {
        var machine = Self.machine()
        #expect(machine.admit(Self.post) == .allowed)
        machine.withdraw(Self.post)
        #expect(machine.admit(Self.post) == .allowed)
    }

    // MARK: Answers

    @Test func doneWithAndWithoutAChallenge() {
        var machine = Self.machine()
        _ = machine.admit(Self.post)
        let done = machine.handle(
            .done(remoteID: "p9", challenge: nil, rateLimit: RateLimitHint(), status: 201), for: Self.post)
        #expect(done.journal == .done(remoteID: "p9"))
        #expect(done.outcome == .done && done.reason == "id p9")
        #expect(done.followUp == .applied(challenge: nil))
        let challenge = VerificationChallenge(code: "c1", text: "two plus two")
        let challenged = machine.handle(
            .done(remoteID: "p10", challenge: challenge, rateLimit: RateLimitHint(), status: 201), for: Self.post)
        #expect(challenged.journal == .done(remoteID: "p10"))
        #expect(challenged.outcome == nil, "the driver reports the challenge and answers it")
        #expect(challenged.followUp == .applied(challenge: challenge))
    }

    /// A 429 with a wait: the entry retries at the server's time (not before the local limits).
    @Test func rateLimitedRetriesAtTheServersTime() {
        var machine = Self.machine()
        _ = machine.admit(Self.comment)
        var hint = RateLimitHint()
        hint.retryAfterSeconds = 120
        let decision = machine.handle(
            .rateLimited(Self.error(.rateLimited, status: 429, hint: hint)), for: Self.comment)
        let until = Self.now.addingTimeInterval(120)
        #expect(decision.journal == .failed(reason: "429: rateLimited", retryAt: until))
        #expect(decision.outcome == .deferred && decision.until == until && decision.reason == "server said 429")
        #expect(decision.followUp == .none)
    }

    @Test func theOtherAnswers() {
        var machine = Self.machine()
        _ = machine.admit(Self.post)
        let uncertain = machine.handle(.uncertain(Self.error(.serverError, status: 502)), for: Self.post)
        #expect(uncertain.journal == .uncertain(reason: "serverError"))
        #expect(uncertain.outcome == .uncertain && uncertain.followUp == .none)

        let retryable = machine.handle(.retryable(Self.error(.transport)), for: Self.post)
        #expect(retryable.journal == .failed(reason: "transport", retryAt: Self.now.addingTimeInterval(60)))
        #expect(retryable.followUp == .stop && retryable.transient)

        let auth = machine.handle(.authBroken(Self.error(.invalidKey, status: 401)), for: Self.post)
        #expect(auth.journal == .failed(reason: "invalidKey", retryAt: Self.now))
        #expect(auth.followUp == .authFailure(code: .invalidKey))

        let rejected = machine.handle(.rejected(Self.error(.notFound, status: 404)), for: Self.comment)
        #expect(rejected.journal == .failed(reason: "notFound", retryAt: nil))
        #expect(rejected.outcome == .failed)

        let already = machine.handle(.rejected(Self.error(.conflict, status: 409)), for: Self.follow)
        #expect(already.journal == .done(remoteID: nil) && already.reason == "already so")

        let removed = machine.handle(.voteRemoved(rateLimit: RateLimitHint(), status: 200), for: Self.post)
        #expect(removed.journal == nil && removed.followUp == .restoreVote)
    }

    /// A failed attempt gives its reservation back (the limiter admits the next at once); an
    /// applied one keeps it.
    @Test func reservationsAfterAnswers() {
        var machine = Self.machine()
        #expect(machine.admit(Self.post) == .allowed)
        _ = machine.handle(.retryable(Self.error(.transport)), for: Self.post)
        #expect(machine.admit(Self.post) == .allowed)
        _ = machine.handle(
            .done(remoteID: "p1", challenge: nil, rateLimit: RateLimitHint(), status: 201), for: Self.post)
        #expect(machine.admit(Self.post) != .allowed)
    }

    // MARK: Reading back

    @Test func readBackVerdicts() {
        var machine = Self.machine()
        let sentAt = Self.now.addingTimeInterval(-60)
        #expect(
            machine.handle(verdict: .applied(remoteID: "p1"), for: Self.post, attempts: 1, sentAt: sentAt)
                == .applied(remoteID: "p1"))
        // Charged at the time it was sent: the next post waits until 30 minutes after that.
        guard case .deferred(let until, _) = machine.admit(Self.post) else {
            Issue.record("a post read back as applied counts against the limit")
            return
        }
        #expect(until == sentAt.addingTimeInterval(1_800))
        let absent = Reconciler.Verdict.notApplied(evidence: "the feed, read to its end, does not hold it")
        #expect(machine.handle(verdict: absent, for: Self.post, attempts: 2, sentAt: sentAt) == .send)
        guard
            case .giveUp(let reason, .failed) = machine.handle(
                verdict: absent, for: Self.post, attempts: DrainMachine.maxUnclearSends, sentAt: sentAt)
        else {
            Issue.record("five unclear sends are enough")
            return
        }
        #expect(reason.hasPrefix("sent 5 times"))
    }

    /// Unknown is never sent again: it waits, read again with a back-off of as long as it has
    /// been since the send, from ten minutes to twelve hours (issue 33, deliverable 1).
    @Test(arguments: [
        (sentAgo: 60.0, readAgainIn: 600.0), (sentAgo: 3_600, readAgainIn: 3_600),
        (sentAgo: 200_000, readAgainIn: 43_200),
    ])
    func unknownWaitsWithBackOff(sentAgo: Double, readAgainIn: Double) {
        var machine = Self.machine()
        let verdict = Reconciler.Verdict.unknown(reason: "the feed read 10 pages without reaching back past the send")
        for attempts in [1, DrainMachine.maxUnclearSends] {
            let answer = machine.handle(
                verdict: verdict, for: Self.post, attempts: attempts, sentAt: Self.now.addingTimeInterval(-sentAgo))
            let at = Self.now.addingTimeInterval(readAgainIn)
            #expect(
                answer
                    == .unknown(
                        reason: "outcome unknown: the feed read 10 pages without reaching back past the send; "
                            + "not sent again, read again at \(MoltbookDateText.iso(at))",
                        readAgainAt: at))
        }
    }
}
