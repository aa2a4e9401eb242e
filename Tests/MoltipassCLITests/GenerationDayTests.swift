import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 21's acceptance, through the real binaries: a `moltipass` daemon and a
/// `moltbook-sandbox --openai` process on clocks scaled ×720 (a simulated day in two minutes; the model server's
/// budget of 20 calls a minute is real time),
/// with a command generator writing posts and an OpenAI-compatible generator writing comments,
/// killed with SIGKILL at random points and started again. Counted on the generators' side:
/// the command logs each run, the fake lists each call.
///
/// Pinned to the moltbook.com dialect (the dialect matrix runs the engine's own tests again;
/// this one is about the generators and takes two minutes).
@Suite("Generated content: a simulated day", .serialized)
struct GenerationDayTests {
    /// 2026-01-01T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let scale = 720.0
    static let counting = Fixtures.directory.appendingPathComponent("generators/counting.sh").path
    static let modelKey = "sk-day-test-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")

    struct Day {
        let fixture: RunFixture
        let keyFile: String
        let log: String
        let recipe: String
        var run: KilledDay
        var kills: [Double] { run.kills }
        var daemons: [ChildProcess] { run.daemons }
    }

    /// The sandbox (with the OpenAI fake requiring `modelKey`), a writer registered two days
    /// early, 40 target posts by a host in m/agents, and the recipe.
    static func setUp() async throws -> Day {
        let keyDirectory = try TemporaryDirectory(prefix: "gen-day-key")
        let keyFile = keyDirectory.file("model.key").path
        try Data((modelKey + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let fixture = try await RunFixture.start(
            sandboxArguments: [
                "--now", RunFixture.iso(start), "--time-scale", String(Int(scale)), "--openai", "--openai-key-file",
                keyFile,
            ], dialect: .moltbookCom)
        // The fixture's HOME holds the key file from here on (removed with it).
        let ownKeyFile = fixture.home.path + "/model.key"
        try FileManager.default.copyItem(atPath: keyFile, toPath: ownKeyFile)
        chmod(ownKeyFile, 0o600)
        keyDirectory.remove()

        try await fixture.setClock(start.addingTimeInterval(-7 * 86_400))
        try await fixture.agent("day_writer")
        let hostKey = APIKey(try await registerOnSandbox(fixture.sandbox, "day_host"))
        try await claimOnSandbox(fixture.sandbox, "day_host")
        for index in 0..<40 {
            // One host post every two hours: the scaled clock runs on between setting it and the
            // post (a loaded machine's second is 12 simulated minutes), far from the cooldown.
            try await fixture.setClock(start.addingTimeInterval(-6 * 86_400 + Double(index) * 7_200))
            try await fixture.rawPost(
                key: hostKey, submolt: "agents", title: "Harbor question \(index)",
                content: "What do you make of tide table \(index)?")
        }
        try await fixture.setClock(start)
        let log = fixture.home.path + "/generator.log"
        let recipe = try fixture.file(
            "day.yaml",
            """
            agent: day_writer
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 2h }
                steps:
                  - post:
                      submolt: general
                      generate:
                        command: [\(counting), \(log)]
              - id: replies
                schedule: { every: 1h, start: 2026-01-01T00:15:00Z }
                steps:
                  - comment:
                      on: { source: submolt, submolt: agents, sort: new, limit: 50, max_per_run: 1 }
                      generate:
                        openai:
                          base_url: \(openAIBase(fixture))/v1
                          model: day-model
                          system: "You are day_writer, brief and kind."
                          prompt: "Reply in one sentence to {{ post.title }}: {{ post.content }}"
                          key_file: \(ownKeyFile)
            """)
        return Day(
            fixture: fixture, keyFile: ownKeyFile, log: log, recipe: recipe,
            run: KilledDay(fixture: fixture, recipes: [recipe], scale: scale))
    }

    /// The fake's root: `http://127.0.0.1:PORT/openai` (beside the Moltbook API, not under it).
    static func openAIBase(_ fixture: RunFixture) -> String {
        var components = URLComponents(url: fixture.sandbox.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/openai"
        return components.url!.absoluteString
    }

    @Test(.pinsItsDialect) func dayWithKillsGeneratesAndSendsEachTextOnce() async throws {
        var day = try await Self.setUp()
        defer { Task { [fixture = day.fixture] in await fixture.stop() } }
        // A simulated day is 120 s of wall time: three kills at random points, each followed by
        // a restart from where the sandbox's clock stands.
        let end = try await day.run.live(label: "GenerationDayTests", from: Self.start)

        try await Self.checkPosts(day, end: end)
        try await Self.checkComments(day, end: end)
        try Self.checkSecrets(day)
    }

    /// Every two hours one post, written once by the program: titles unique, each from its own
    /// write, and a write generated again only across a kill.
    static func checkPosts(_ day: Day, end: Date) async throws {
        let titles = try await day.fixture.titles(of: "day_writer")
        let occurrences = Int(end.timeIntervalSince(start) / 7_200) + 1
        #expect(abs(titles.count - occurrences) <= 1, "\(titles.count) posts for \(occurrences) occurrences: \(titles)")
        #expect(Set(titles).count == titles.count, "a post was sent twice: \(titles)")
        let runs = ((try? String(contentsOfFile: day.log, encoding: .utf8)) ?? "").split(separator: "\n")
            .map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 5 && $0[0] == "start" }
        var byWrite: [String: [Double]] = [:]
        for run in runs { byWrite["\(run[1])#\(run[2])", default: []].append(Double(run[4]) ?? 0) }
        for (write, times) in byWrite { expectOnlyAcrossKills(times, kills: day.kills, what: "post \(write)") }
        // Every title sent came from one write the program was asked for.
        let asked = Set(byWrite.keys.map { String($0.prefix(8)) })
        for title in titles {
            #expect(asked.contains(String(title.dropFirst("Field note ".count))), "\(title) was never generated")
        }
        #expect(try await day.fixture.counter("posts_created") == titles.count + 40)
    }

    /// Every hour one comment on a target picked by the selector, written once by the model: no
    /// target twice, and each prompt (one per write) asked again only across a kill.
    static func checkComments(_ day: Day, end: Date) async throws {
        let response = try await day.fixture.transport.send(
            HTTPRequest(method: .get, url: URL(string: openAIBase(day.fixture) + "/_calls")!))
        let entries = try #require(try JSONValue.parse(response.body).array)
        var byPrompt: [String: [Double]] = [:]
        for entry in entries where entry["model"]?.string == "day-model" {
            byPrompt[entry["prompt_hash"]?.string ?? "?", default: []].append(entry["received_at"]?.double ?? 0)
        }
        for (prompt, times) in byPrompt { expectOnlyAcrossKills(times, kills: day.kills, what: "comment \(prompt)") }
        let comments = try await day.fixture.sqlite(
            "SELECT COUNT(*) FROM journal WHERE action = 'comment' AND state = 'done'")
        let done = Int(comments.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let occurrences = Int((end.timeIntervalSince(start) - 900) / 3_600) + 1
        #expect(abs(done - occurrences) <= 2, "\(done) comments for \(occurrences) occurrences")
        let targets = try await day.fixture.sqlite(
            "SELECT COUNT(DISTINCT target) FROM journal WHERE action = 'comment' AND state = 'done'")
        #expect(Int(targets.trimmingCharacters(in: .whitespacesAndNewlines)) == done, "a target got two comments")
        #expect(try await day.fixture.counter("comments_created") == done)
        #expect(byPrompt.count >= done)
    }

    /// The model key is nowhere: not in the daemons' output, the state file or their argv.
    static func checkSecrets(_ day: Day) throws {
        for daemon in day.daemons {
            #expect(!daemon.stdout.contains(modelKey) && !daemon.stderr.contains(modelKey))
            #expect(!daemon.arguments.joined(separator: " ").contains(modelKey))
        }
        for suffix in ["", "-wal"] {
            if let bytes = FileManager.default.contents(atPath: day.fixture.statePath + suffix) {
                #expect(bytes.range(of: Data(modelKey.utf8)) == nil, "the model key is in the state file\(suffix)")
            }
        }
        let logs = day.daemons.map(\.stdout).joined()
        #expect(logs.contains("text generated"), "the daemon logged no generation")
    }

    /// Calls for one write at `times`: each call after the first needs a kill between it and
    /// the one before (the runner died while the text was being written or before it was
    /// journaled, so that text was never sent).
    static func expectOnlyAcrossKills(_ times: [Double], kills: [Double], what: String) {
        let sorted = times.sorted()
        for (earlier, later) in zip(sorted, sorted.dropFirst()) {
            #expect(
                kills.contains { $0 >= earlier && $0 <= later },
                "\(what) was generated twice without a kill in between (\(earlier), \(later); kills \(kills))")
        }
    }
}

/// A small seeded generator for the kill points (printed, to replay a failure by eye).
struct KillPoints {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
