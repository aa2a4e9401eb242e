import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// The built binaries and the main job's script, run as a user would, in a temp HOME.
@Suite("moltipass and moltbook-sandbox binaries")
struct DemoCommandTests {
    /// `moltipass demo` against a `moltbook-sandbox` process: every step reported, exit 0,
    /// no key on stdout or stderr, and the sandbox saw the writes.
    @Test func demoAgainstSandboxBinary() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start(arguments: ["--seed", "3"])
        let result = try await ProcessRunner.run(
            "moltipass", ["demo", "--sandbox", sandbox.baseURL.absoluteString], environment: ["HOME": home.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for step in [
            "register", "status", "claim", "subscribe", "post", "comment", "vote", "vote again", "follow",
            "second post", "feed",
        ] {
            #expect(result.stdout.contains("\n\(step) ") || result.stdout.hasPrefix("\(step) "), "missing step \(step)")
        }
        #expect(result.stdout.contains("action removed"))
        #expect(result.stdout.contains("429 as expected"))
        #expect(!(result.stdout + result.stderr).contains("moltbook_sk_"))

        let counters = try await countersOf(sandbox)
        #expect(counters["posts_created"]?.int == 1)
        #expect(counters["comments_created"]?.int == 1)
        #expect(counters["votes_removed"]?.int == 1)
        #expect(counters["duplicate_contents"]?.int == 0)
        #expect((counters["rate_limited"]?.int ?? 0) == 1)
        #expect(await sandbox.stop() == 0)
    }

    /// `demo --json`: one object with every step and `finished` true; run again with the same
    /// agent name (now taken on this sandbox) it stops at the first step: `finished` false, no
    /// steps, the error on stderr and the exit status the plain form gives. Never a key.
    @Test func demoJSON() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start(arguments: ["--seed", "3"])
        defer { Task { await sandbox.stop() } }
        let arguments = ["demo", "--sandbox", sandbox.baseURL.absoluteString, "--agent", "json_demo", "--json"]
        let result = try await ProcessRunner.run("moltipass", arguments, environment: ["HOME": home.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try #require(try JSONValue.parse(Data(result.stdout.utf8)).object, "\(result.stdout)")
        #expect(Set(report.keys) == ["sandbox", "agent", "finished", "steps"])
        #expect(report["finished"] == .bool(true))
        #expect(report["agent"]?.string == "json_demo")
        #expect(report["sandbox"]?.string == sandbox.baseURL.absoluteString)
        let steps = report["steps"]?.array ?? []
        #expect(
            steps.map { $0["name"]?.string ?? "?" } == [
                "register", "status", "claim", "subscribe", "post", "comment", "vote", "vote again", "follow",
                "second post", "feed",
            ])
        #expect(steps.allSatisfy { Set($0.object?.keys ?? [:].keys) == ["name", "detail"] })
        #expect(steps.first?["detail"]?.string?.contains("json_demo key ") == true)

        let again = try await ProcessRunner.run("moltipass", arguments, environment: ["HOME": home.path])
        let plain = try await ProcessRunner.run(
            "moltipass", Array(arguments.dropLast()), environment: ["HOME": home.path])
        #expect(again.status != 0 && again.status == plain.status, "stderr: \(again.stderr)")
        #expect(again.stderr == plain.stderr && again.stderr.contains("already taken"))
        let stopped = try #require(try JSONValue.parse(Data(again.stdout.utf8)).object, "\(again.stdout)")
        #expect(stopped["finished"] == .bool(false))
        #expect(stopped["steps"] == .array([]))
        #expect(!(result.stdout + result.stderr + again.stdout + again.stderr).contains("moltbook_sk_"))
    }

    /// The main job, `scripts/demo`, run as written (with the binaries of this build): it
    /// registers the demo agents on a sandbox of its own, runs `recipes/demo/` once (exit 0,
    /// every action done) and again (nothing done), shows both agents' status and the counters
    /// (1 post, 1 comment, 1 vote, no 429, no duplicate), prints no key and leaves nothing behind.
    @Test func mainJobScript() async throws {
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/demo").path
        let result = try await ProcessRunner.runSystem(
            "/usr/bin/env", ["MOLTIPASS_BIN=" + ProcessRunner.productsDirectory.path, "bash", script], timeout: 120)
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        for agent in ["demo_author", "demo_reader"] {
            #expect(result.stdout.contains("registered \(agent)"))
            #expect(result.stdout.contains("\(agent): claimed"))
            #expect(result.stdout.contains("agent \(agent)"), "status should show \(agent)")
        }
        #expect(result.stdout.contains("ok recipes/demo/author.yaml"))
        for action in ["subscribe m/general", "post to m/general", "comment on", "upvote post", "follow demo_author"] {
            #expect(
                result.stdout.split(separator: "\n").contains { $0.hasPrefix("  done  ") && $0.contains(action) },
                "missing: \(action)")
        }
        #expect(result.stderr.contains("moltipass: 6 done"))
        #expect(result.stderr.contains("moltipass: 0 done"))
        let countersLine = try #require(
            result.stdout.split(separator: "\n").first { $0.hasPrefix("{\"posts_created\"") })
        let counters = try JSONValue.parse(Data(countersLine.utf8))
        #expect(counters["posts_created"]?.int == 1)
        #expect(counters["comments_created"]?.int == 1)
        #expect(counters["votes_cast"]?.int == 1)
        #expect(counters["rate_limited"]?.int == 0)
        #expect(counters["duplicate_contents"]?.int == 0)
        #expect(!(result.stdout + result.stderr).contains("moltbook_sk_"))
        let work = try #require(result.stdout.firstMatch(of: /created keychain (\S+)\/keychain/)).1
        #expect(!FileManager.default.fileExists(atPath: String(work)), "the temp directory is removed")
    }

    /// The demo refuses a non-loopback URL before any request (auth-broken/usage codes aside, exit 1).
    @Test func demoRefusesRemoteURL() async throws {
        let result = try await ProcessRunner.run("moltipass", ["demo", "--sandbox", "https://www.moltbook.com/api/v1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("only runs against a loopback sandbox"))
    }

    /// A missing option is a usage error with swift-argument-parser's exit code 64.
    @Test func usageError() async throws {
        let result = try await ProcessRunner.run("moltipass", ["demo"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--sandbox"))
    }

    /// The sandbox binary prints its URL, serves the API, and exits 0 on SIGTERM.
    @Test func sandboxProcessLifecycle() async throws {
        let sandbox = try await SandboxProcess.start()
        #expect(sandbox.baseURL.host == "127.0.0.1")
        #expect(sandbox.baseURL.path == "/api/v1")
        let counters = try await countersOf(sandbox)
        #expect(counters["requests_total"]?.int == 0)
        #expect(await sandbox.stop() == 0)
    }

    /// The sandbox refuses to listen on a non-loopback address.
    @Test func sandboxRefusesPublicBind() async throws {
        let result = try await ProcessRunner.run("moltbook-sandbox", ["--host", "0.0.0.0", "--port", "0"], timeout: 20)
        #expect(result.status != 0)
    }

    private func countersOf(_ sandbox: SandboxProcess) async throws -> JSONValue {
        var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/_sandbox/counters"
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        let response = try await transport.send(HTTPRequest(method: .get, url: components.url!))
        return try JSONValue.parse(response.body)
    }
}
