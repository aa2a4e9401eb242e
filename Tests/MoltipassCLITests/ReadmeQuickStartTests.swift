import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// README.md's "Quick start with the sandbox", run line by line through the real binaries.
@Suite("README quick start")
struct ReadmeQuickStartTests {
    /// The lines run in order (the sandbox on a free port instead of 8787, the example paths in a
    /// temp dir, the throwaway keychain with a tiny scrypt cost): the keychain is created from
    /// `MOLTIPASS_PASSPHRASE`, both agents are registered and claimed, the demo recipes' run
    /// exits 0, `status` shows both agents, and the sandbox counted 1 post, 1 comment, 1 vote
    /// and no 429; no key is printed.
    @Test func quickStartRuns() async throws {
        let lines = try Readme.shellLines(in: Readme.section("Quick start with the sandbox"))
        #expect(lines.count >= 10)
        let shell = ReadmeShell(
            home: try KeysHome(), environment: ["MOLTIPASS_PASSPHRASE_FILE": ""], useClock: false)
        defer { Task { await shell.stop() } }
        var outputs: [String: ProcessRunner.Result] = [:]
        for line in lines {
            guard let result = try await shell.run(line) else { continue }
            let key = line.text.contains("/_sandbox/counters") ? "counters" : line.words.dropFirst().first ?? ""
            outputs[key] = result
        }
        #expect(shell.sandbox != nil, "the quick start starts a sandbox")
        #expect(FileManager.default.fileExists(atPath: shell.home.path + "/tmp-moltipass-demo/keychain"))
        #expect(FileManager.default.fileExists(atPath: shell.home.path + "/tmp-moltipass-demo/state.sqlite"))
        let run = try #require(outputs["run"])
        #expect(run.stderr.contains("6 done"), "\(run.stderr)")
        let status = try #require(outputs["status"])
        #expect(status.stdout.contains("agent demo_author") && status.stdout.contains("agent demo_reader"))
        let counters = try JSONValue.parse(Data(try #require(outputs["counters"]).stdout.utf8))
        #expect(counters["posts_created"]?.int == 1)
        #expect(counters["comments_created"]?.int == 1)
        #expect(counters["votes_cast"]?.int == 1)
        #expect(counters["rate_limited"]?.int == 0)
        #expect(counters["duplicate_contents"]?.int == 0)
        shell.home.expectNoLeak(of: [])
    }
}
