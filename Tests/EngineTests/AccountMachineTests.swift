import Foundation
import MoltbookAPI
import RateLimiting
import Recipes
import Storage
import Testing

@testable import MoltipassCommands
@testable import MoltipassEngine
@testable import MoltipassPlan

/// An account's pass as a table of situations at fixed instants (issue 20): the snapshot, the
/// events the driver would answer with, and the actions the machine returns. No store, no
/// sandbox, no client, no clock.
@Suite("AccountMachine: a pass's decisions")
struct AccountMachineTests {
    /// 2026-12-01T10:30:00Z: half past an hourly job's occurrence.
    static let now = Date(timeIntervalSince1970: 1_796_121_000)
    static let hourAgo = now.addingTimeInterval(-3_600)
    /// 11:00, the hourly job's next occurrence: the wake-up of a pass at `now`.
    static let nextHour = Date(timeIntervalSince1970: 1_796_122_800)

    static func recipe(_ steps: String, job: String = "") throws -> Recipe {
        let yaml = """
            agent: a
            jobs:
              - id: j
                schedule: { every: 1h }\(job)
                steps:
            \(steps)
            """
        return try RecipeLoader.load(bytes: Array(yaml.utf8), file: "t.yaml").get()
    }

    static let postStep = """
              - post: { submolt: general, title: "Harbour notes", content: "The tide was calm and the gulls were loud." }
        """
    static let commentStep = """
              - comment:
                  content: "A fine point about {{post.title}}."
                  on: { source: submolt, submolt: general, limit: 5, max_per_run: 5 }
                  max_per_day: 2
        """

    static func machine(
        _ recipe: Recipe, cursor: Date? = hourAgo, pending: [JournalEntry] = [], facts: DoneTargets? = DoneTargets(),
        identityKnown: Bool = true, paused: (String, Date?)? = nil, clockBehind: Data? = nil
    ) -> AccountMachine {
        var snapshot = AccountMachine.Snapshot(
            limiter: Limiter(rules: LimitRules.rules(for: .standard)), identity: AgentIdentity(name: "a"))
        snapshot.pending = pending
        snapshot.facts = facts
        snapshot.identityKnown = identityKnown
        snapshot.paused = paused
        snapshot.clockBehind = clockBehind
        if let cursor { snapshot.cursors[PlanningMachine.jobKey(recipe.identity, "j")] = cursor }
        var configuration = Runner.Configuration(holder: "test")
        configuration.maxGap = 7_200
        return AccountMachine(
            agent: "a", recipes: [recipe], jobs: JobRef.all([recipe]), configuration: configuration, snapshot: snapshot,
            now: now)
    }

    static func post(_ id: String, _ title: String, author: String = "someone") -> Post {
        Post(
            json: .object([
                "id": .string(id), "title": .string(title), "author": .object(["name": .string(author)]),
                "created_at": .string("2026-12-01T10:00:00+00:00"), "submolt": .object(["name": "general"]),
            ]))!
    }

    static func entry(_ intent: JournalIntent, state: JournalState = .intent) -> JournalEntry {
        JournalEntry(
            intent: intent, state: state, attempts: 0, createdAt: now, updatedAt: now, sentAt: nil, remoteID: nil,
            lastError: nil)
    }

    /// The journal an action list ends with, if it does.
    static func journal(_ actions: [AccountMachine.Action]) -> PlanningMachine.Journal? {
        if case .journal(let journal)? = actions.last { return journal }
        return nil
    }

    static func lines(_ actions: [AccountMachine.Action]) -> [RunReport.Item] {
        actions.compactMap { if case .line(let item) = $0 { item } else { nil } }
    }

    // MARK: Planning

    /// Nothing due: the next occurrence to wake at, and the cursor still moves (it tells the
    /// next pass the runner was alive: an occurrence after a longer gap counts as missed).
    @Test func nothingDueWakesAtTheNextOccurrence() throws {
        let start = Self.now.addingTimeInterval(-600)
        // No facts in the snapshot: a pass with nothing due never asks for them.
        var machine = Self.machine(try Self.recipe(Self.postStep), cursor: start, facts: nil)
        let actions = machine.tick(now: Self.now)
        let journal = try #require(Self.journal(actions))
        #expect(actions == [.due(Self.nextHour), .journal(journal)])
        #expect(journal.commits.map(\.intents.count) == [0] && journal.commits[0].cursor == Self.now)
        #expect(journal.dailyCounts == nil && journal.queueLedger == nil)
    }

    /// A post due: the guard's ledger is asked for first; then one intent, journaled with the
    /// cursor in one transaction; then the drain sends it.
    @Test func aDuePostIsCheckedJournaledAndSent() throws {
        var machine = Self.machine(try Self.recipe(Self.postStep))
        // A post is checked against the ledger first.
        #expect(machine.tick(now: Self.now) == [.due(Self.nextHour), .loadContentLedger])
        let planned = machine.handle(.contentLedger([:]), at: Self.now)
        let journal = try #require(Self.journal(planned))
        #expect(journal.commits.count == 1)
        let intent = try #require(journal.commits.first?.intents.first)
        #expect(intent.action == "post" && intent.occurrence == Date(timeIntervalSince1970: 1_796_119_200))
        #expect(journal.commits[0].cursor == Self.now)
        #expect(journal.dailyCounts != nil && journal.queueLedger == nil)
        // After the journal, the drain reads its entries; challenges are settled before any
        // write; the entry is attempted; the limiter is saved after it, and the drain ends.
        #expect(machine.handle(.journaled(ok: true), at: Self.now) == [.readPending])
        let entry = Self.entry(intent)
        #expect(machine.handle(.pending([entry]), at: Self.now) == [.settleChallenges])
        let write = PlannedWrite(
            kind: .post, submolt: "general", title: "Harbour notes",
            content: "The tide was calm and the gulls were loud.")
        #expect(machine.handle(.challenges(.clear, accountBroken: false), at: Self.now) == [.attempt(entry, write)])
        #expect(machine.handle(.attempted(stop: false, deferredUntil: nil), at: Self.now) == [.saveLimiter])
    }

    /// The same text sent yesterday: skipped with the reason, the cursor still moves, nothing
    /// journaled to send.
    @Test func aRepeatedTextIsNotPlanned() throws {
        var machine = Self.machine(try Self.recipe(Self.postStep))
        _ = machine.tick(now: Self.now)
        let write = PlannedWrite(
            kind: .post, submolt: "general", title: "Harbour notes",
            content: "The tide was calm and the gulls were loud.")
        let print = try #require(ContentFingerprint(write))
        let sighting = ContentSighting(
            kind: "post", at: Self.now.addingTimeInterval(-86_400), journalKey: "old", excerpt: "Harbour notes",
            sent: true)
        let planned = machine.handle(.contentLedger([print.exact: sighting]), at: Self.now)
        let journal = try #require(Self.journal(planned))
        #expect(journal.commits.map(\.intents.count) == [0])
        #expect(journal.commits[0].cursor == Self.now)
        let skipped = Self.lines(planned).filter { $0.outcome == .skipped }
        #expect(skipped.count == 1 && skipped[0].reason?.hasPrefix("duplicate content: the same text") == true)
        #expect(
            planned.contains(
                .duplicateSkipped(action: skipped[0].action, earlier: "sent \(MoltbookDateText.iso(sighting.at))")))
    }

    /// A clock behind the cursor plans nothing and marks the job; once the clock is right again the
    /// runner counts as alive through the stretch (passes ran all along): the current occurrence
    /// runs, the one that fell while the clock was wrong is skipped, not replayed (issue 34:
    /// `scripts/reliability/clock-step` saw the current one dropped as "missed" after 97 minutes
    /// a day behind). Without the mark the same gap is downtime, and both are missed.
    @Test func aClockPutRightRunsTheCurrentOccurrence() throws {
        let recipe = try Self.recipe(Self.postStep)
        var behind = Self.machine(recipe, cursor: Self.now)
        let stepped = behind.tick(now: Self.now.addingTimeInterval(-86_400))
        let journal = try #require(Self.journal(stepped))
        #expect(Self.lines(stepped).map(\.action) == ["schedule"])
        let key = PlanningMachine.jobKey(recipe.identity, "j")
        #expect(journal.clockBehind == ClockBehind(jobs: [key]).stored)
        #expect(journal.commits.map(\.cursor) == [Self.now])

        // 12:40, two hours and ten minutes after the cursor (the test machine's gap is two hours).
        let right = Self.now.addingTimeInterval(7_800)
        let noon = Date(timeIntervalSince1970: 1_796_126_400)
        var marked = Self.machine(recipe, cursor: Self.now, clockBehind: journal.clockBehind)
        let planned = marked.tick(now: right)
        #expect(
            Self.lines(planned).map(\.reason) == ["fell while the clock was behind; only the current occurrence runs"])
        let journaled = try #require(Self.journal(marked.handle(.contentLedger([:]), at: right)))
        #expect(journaled.commits.flatMap(\.intents).map(\.occurrence) == [noon])
        // The mark is spent once the job planned past its cursor.
        #expect(journaled.clockBehind == ClockBehind().stored)
        var unmarked = Self.machine(recipe, cursor: Self.now)
        let missed = Self.lines(unmarked.tick(now: right))
        #expect(missed.map(\.outcome) == [.skipped, .skipped])
        #expect(missed.allSatisfy { $0.reason?.hasPrefix("missed while the runner was not running") == true })
    }

    /// A long gap is one line per run of missed occurrences, not one per occurrence (after 91 days
    /// down, a half-hourly job reported 4,368 lines): the first, the last and how many.
    @Test func aLongGapIsOneLineNamingItsOccurrences() throws {
        let recipe = try Self.recipe(Self.postStep)
        // Ten days down: 240 hourly occurrences fell, the last half an hour before `now` (missed too).
        var machine = Self.machine(recipe, cursor: Self.now.addingTimeInterval(-10 * 86_400))
        let missed = Self.lines(machine.tick(now: Self.now)).filter { $0.outcome == .skipped }
        #expect(missed.map(\.action) == ["occurrences 2026-11-21T11:00:00Z … 2026-12-01T10:00:00Z (240)"])
        #expect(missed.map(\.reason) == ["missed while the runner was not running (policy: skip)"])
        // Three or fewer stay one line each.
        var short = Self.machine(recipe, cursor: Self.now.addingTimeInterval(-3 * 3_600))
        let few = Self.lines(short.tick(now: Self.now)).filter { $0.outcome == .skipped }
        #expect(
            few.map(\.action) == [
                "occurrence 2026-12-01T08:00:00Z", "occurrence 2026-12-01T09:00:00Z", "occurrence 2026-12-01T10:00:00Z",
            ])
    }

    /// A selection: the client first while the identity is unknown, then the read; posts already
    /// commented and the agent's own are left out; `max_per_day` caps the rest.
    @Test func aSelectionAsksForTheClientThenTheRead() throws {
        var facts = DoneTargets()
        facts.add(.comment, ["p2"])
        var machine = Self.machine(try Self.recipe(Self.commentStep), facts: facts, identityKnown: false)
        // The client comes before a selection when the identity is unknown; then the selection
        // is read, as the step says.
        #expect(machine.tick(now: Self.now) == [.due(Self.nextHour), .prepareClient])
        let read = machine.handle(.clientPrepared(identity: AgentIdentity(name: "a"), known: true), at: Self.now)
        let selector = try #require(PlanningMachine.selector(of: try Self.recipe(Self.commentStep).jobs[0].steps[0]))
        #expect(read == [.fetch(selector)])
        #expect(selector.limit == 5)
        let posts = [
            Self.post("p1", "Tides"), Self.post("p2", "Gulls"), Self.post("p3", "Mine", author: "a"),
            Self.post("p4", "Boats"), Self.post("p5", "Nets"),
        ]
        // Comments are checked against the ledger.
        #expect(machine.handle(.fetched(.success(posts)), at: Self.now) == [.loadContentLedger])
        let planned = machine.handle(.contentLedger([:]), at: Self.now)
        let journal = try #require(Self.journal(planned))
        #expect(journal.commits[0].intents.map(\.target) == ["p1", "p4"])
        #expect(
            Self.lines(planned).contains {
                $0.outcome == .skipped && $0.reason?.hasPrefix("max_per_day 2 reached") == true
            })
    }

    /// A read the limiter deferred: the line says until when; the step is kept in the state, to
    /// be planned again on its own once the read is allowed (issue 33, observation 3), while the
    /// job's cursor moves on; and the drain goes on.
    @Test func aDeferredSelectionIsKept() throws {
        var machine = Self.machine(try Self.recipe(Self.commentStep))
        _ = machine.tick(now: Self.now)
        let until = Self.now.addingTimeInterval(30)
        let actions = machine.handle(
            .fetched(.failure(ReadDeferred(until: until, reason: "reads: 60 a minute"))), at: Self.now)
        #expect(Self.lines(actions).map(\.outcome) == [.deferred])
        #expect(Self.lines(actions).first?.until == until)
        let journal = try #require(Self.journal(actions))
        #expect(journal.commits.map(\.intents.count) == [0])
        let kept = try #require(journal.deferredSteps.flatMap(DeferredSteps.init(stored:))).items
        #expect(kept.map(\.step) == [0])
        #expect(kept.map(\.what) == ["select targets"])
        #expect(kept.map(\.retryAt) == [until])
        #expect(kept.map(\.reason) == ["reads: 60 a minute"])
        // The drain still runs.
        #expect(machine.handle(.journaled(ok: true), at: Self.now) == [.readPending])
    }

    /// A route this server refuses (404): the step is skipped for the occurrence and the cursor moves.
    @Test func aRefusedSelectionMovesOn() throws {
        var machine = Self.machine(try Self.recipe(Self.commentStep))
        _ = machine.tick(now: Self.now)
        let refused = APIError(code: .notFound, message: "no such route", endpoint: "GET /submolts/general/feed")
        let actions = machine.handle(.fetched(.failure(refused)), at: Self.now)
        let journal = try #require(Self.journal(actions))
        #expect(journal.commits.map(\.intents.count) == [0])
        #expect(Self.lines(actions).map(\.outcome) == [.failed])
    }

    /// An earlier occurrence's write still waiting: the new occurrence is skipped, not piled up.
    @Test func aWaitingWriteSkipsTheNextOccurrence() throws {
        // Kept for 3 hours (else it would expire at the next occurrence, before this one).
        let recipe = try Self.recipe(Self.postStep, job: "\n    expire_after: 3h")
        let waiting = JournalIntent(
            key: "w", account: "a", recipe: recipe.identity, job: "j", occurrence: Self.hourAgo, step: 0,
            action: "post", target: nil, contentHash: "h", payload: PlannedWrite(kind: .post, title: "x").payload,
            notBefore: nil)
        var machine = Self.machine(recipe, pending: [Self.entry(waiting)])
        let actions = machine.tick(now: Self.now)
        let journal = try #require(Self.journal(actions))
        #expect(journal.commits.map(\.intents.count) == [0])
        #expect(
            Self.lines(actions).first?.reason?.hasPrefix("an earlier occurrence's writes are still waiting") == true)
    }

    /// Something due and no facts yet: they are read first; a store that fails plans nothing
    /// (planning without them could vote or comment twice), and the drain still runs.
    @Test func factsAreReadWhenAStepIsDue() throws {
        var machine = Self.machine(try Self.recipe(Self.commentStep), facts: nil)
        // The facts are read before the first due step; a failed read plans nothing and the
        // drain goes on; with the facts, planning goes on to the selection.
        #expect(machine.tick(now: Self.now) == [.due(Self.nextHour), .loadFacts])
        var failing = machine
        #expect(failing.handle(.facts(nil), at: Self.now) == [.transientFailure, .readPending])
        let selector = try #require(PlanningMachine.selector(of: try Self.recipe(Self.commentStep).jobs[0].steps[0]))
        #expect(machine.handle(.facts(DoneTargets()), at: Self.now) == [.fetch(selector)])
    }

    /// A write whose job is gone: withdrawn first (an orphan), then the state read again.
    @Test func anOrphanedWriteIsWithdrawnFirst() throws {
        let orphan = JournalIntent(
            key: "o", account: "a", recipe: "gone", job: "old", occurrence: Self.hourAgo, step: 0, action: "post",
            target: nil, contentHash: "h", payload: PlannedWrite(kind: .post, title: "x").payload, notBefore: nil)
        var machine = Self.machine(try Self.recipe(Self.postStep), pending: [Self.entry(orphan)])
        // The orphan is withdrawn before planning, and the state read again after it.
        let withdrawn = machine.tick(now: Self.now)
        let reason = try #require(
            withdrawn.first.flatMap { if case .dropStale(let stale) = $0 { stale.first?.reason } else { nil } })
        #expect(reason.hasPrefix("orphaned"))
        #expect(withdrawn == [.dropStale([AccountMachine.StaleWrite(entry: Self.entry(orphan), reason: reason)])])
        #expect(machine.handle(.dropped(ok: true), at: Self.now) == [.reload])
    }

    /// A paused account plans (the journal keeps the occurrence) but sends nothing.
    @Test func aPausedAccountListsItsWritesInstead() throws {
        var machine = Self.machine(
            try Self.recipe(Self.postStep), paused: ("suspended by the server", Self.now.addingTimeInterval(3_600)))
        _ = machine.tick(now: Self.now)
        _ = machine.handle(.contentLedger([:]), at: Self.now)
        #expect(
            machine.handle(.journaled(ok: true), at: Self.now) == [
                .reportPending(
                    reason: "account paused: suspended by the server", until: Self.now.addingTimeInterval(3_600))
            ])
    }

    /// An open challenge holds every write: the entries are listed with its end, and the pass
    /// wakes then.
    @Test func anOpenChallengeHoldsTheDrain() throws {
        var machine = Self.machine(try Self.recipe(Self.postStep), cursor: Self.now)
        _ = machine.tick(now: Self.now)
        _ = machine.handle(.pending([]), at: Self.now)
        let end = Self.now.addingTimeInterval(300)
        let actions = machine.handle(
            .challenges(.waiting(until: end, reason: "answer deferred"), accountBroken: false), at: Self.now)
        #expect(
            actions == [
                .reportPending(reason: "verification challenge outstanding: answer deferred", until: end), .due(end),
            ])
    }

    /// A write deferred on a path of its own (the server-record read waiting) holds its class:
    /// the next post waits behind it without an attempt.
    @Test func aDeferredAttemptHoldsItsClass() throws {
        var machine = Self.machine(try Self.recipe(Self.postStep), cursor: Self.now)
        _ = machine.tick(now: Self.now)
        let write = PlannedWrite(kind: .comment, target: "p1", content: "Nice.")
        func intent(_ key: String) -> JournalIntent {
            JournalIntent(
                key: key, account: "a", recipe: "t", job: "j", occurrence: Self.hourAgo, step: 0, action: "comment",
                target: "p1", contentHash: write.contentHash, payload: write.payload, notBefore: nil)
        }
        _ = machine.handle(.pending([Self.entry(intent("c1")), Self.entry(intent("c2"))]), at: Self.now)
        #expect(
            machine.handle(.challenges(.clear, accountBroken: false), at: Self.now) == [
                .attempt(Self.entry(intent("c1")), write)
            ])
        let until = Self.now.addingTimeInterval(40)
        let actions = machine.handle(.attempted(stop: false, deferredUntil: until), at: Self.now)
        #expect(Self.lines(actions).map(\.reason) == ["behind an earlier deferred write"])
        #expect(!actions.contains(.attempt(Self.entry(intent("c2")), write)))
    }

    /// A read-back entry deferred (found not applied, then the limiter said wait) does not hold
    /// its class: the next fresh write is still attempted (and deferred by the limiter itself).
    @Test func aDeferredReadBackDoesNotHoldItsClass() throws {
        var machine = Self.machine(try Self.recipe(Self.postStep), cursor: Self.now)
        _ = machine.tick(now: Self.now)
        let write = PlannedWrite(kind: .post, submolt: "general", title: "Tides")
        func entry(_ key: String, _ state: JournalState) -> JournalEntry {
            Self.entry(
                JournalIntent(
                    key: key, account: "a", recipe: "t", job: "j", occurrence: Self.hourAgo, step: 0, action: "post",
                    target: nil, contentHash: write.contentHash, payload: write.payload, notBefore: nil),
                state: state)
        }
        _ = machine.handle(.pending([entry("u1", .uncertain), entry("f1", .intent)]), at: Self.now)
        _ = machine.handle(.challenges(.clear, accountBroken: false), at: Self.now)
        let next = machine.handle(
            .attempted(stop: false, deferredUntil: Self.now.addingTimeInterval(1_800)), at: Self.now)
        #expect(next.last == .attempt(entry("f1", .intent), write))
    }
}
