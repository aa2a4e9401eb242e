import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 10, through the binary: two agents under the same keychain entry name
/// (two keychains) on two different servers, sharing one state file. Before: treated as one
/// agent, the second's post was skipped as a duplicate of the first's and its subscription taken
/// as done. Now the state records the server it first saw the name on, and the other server's
/// recipe is refused before any request, with what to do (exit 77, as an agent that cannot
/// write); the first agent goes on as before.
@Suite("One state, two servers")
struct TwoServersOneStateTests {
    @Test func theSameEntryNameOnAnotherServerIsRefusedNotMerged() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        let other = try await SandboxProcess.start(arguments: ["--dialect", TestDialect.current.rawValue])
        let otherHome = try KeysHome()
        defer {
            otherHome.remove()
            Task { await other.stop() }
        }
        try await otherHome.initKeychain()
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("twin")
        let registered = try await otherHome.run([
            "register", "twin", "--description", "the other twin", "--base-url", other.baseURL.absoluteString,
        ])
        #expect(registered.status == 0, "\(registered.stderr)")
        try await claimOnSandbox(other, "twin")
        let body = """
            time_zone: UTC
            jobs:
              - id: notes
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, title: "Twin note {{ date: HH:mm }}", content: "Written at {{ date: HH:mm }} on one of two servers." }
            """
        let here = try fixture.file("here.yaml", "agent: twin\nbase_url: \(fixture.base)\n" + body)
        let there = try fixture.file("there.yaml", "agent: twin\nbase_url: \(other.baseURL.absoluteString)\n" + body)

        let first = try await fixture.run([here, "--once"], at: RunFixture.t0)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try await fixture.titles(of: "twin") == ["Twin note 10:00"])

        let refused = try await otherHome.run([
            "run", there, "--once", "--state", fixture.statePath, "--now", RunFixture.iso(RunFixture.t0),
        ])
        #expect(refused.status == 77, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("this state holds the agent 'twin' of \(fixture.base)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--state"), "\(refused.stderr)")
        let counters = try await RawHTTP.request(
            "GET", "/_sandbox/counters", port: UInt16(other.baseURL.port ?? 0))
        let created = try JSONValue.parse(Data(counters.body.utf8))["posts_created"]?.int
        #expect(created == 0, "nothing sent to the other server")
        // Nothing of the refused run stayed in the state: the first agent goes on.
        let again = try await fixture.run([here, "--once"], at: RunFixture.t0.addingTimeInterval(1_860))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await fixture.titles(of: "twin") == ["Twin note 10:00", "Twin note 10:30"])
        // With a state of its own, the other twin works.
        let own = try await otherHome.run([
            "run", there, "--once", "--state", otherHome.path + "/state.sqlite", "--now",
            RunFixture.iso(RunFixture.t0),
        ])
        #expect(own.status == 0, "\(own.stderr)")
    }
}
