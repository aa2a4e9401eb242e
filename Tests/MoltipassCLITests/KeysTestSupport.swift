import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// A temp HOME with XDG directories inside it and a 0600 passphrase file, for running the
/// real `moltipass` binary against a keychain with a tiny scrypt cost.
struct KeysHome {
    let directory: TemporaryDirectory
    /// `HOME/passphrase`, mode 0600.
    let passphraseFile: String
    /// Every run's stdout and stderr, checked for leaked keys by `expectNoLeak`.
    let transcript = Transcript()
    /// The simulated instant a fixture runs at (`RunFixture.setClock` moves it), or nil for a test
    /// that runs on the wall clock. While it is set, a command that reads the clock must be given
    /// `--now` (docs/testing.md, "Time in tests"): `run` checks it before it starts the process.
    let simulated = SimulatedInstant()

    /// The instant a test's commands stand at, when the test simulates one.
    final class SimulatedInstant: @unchecked Sendable {
        private let lock = NSLock()
        private var instant: Date?
        var value: Date? {
            get { lock.withLock { instant } }
            set { lock.withLock { instant = newValue } }
        }
    }

    /// The commands that read the clock when they are not given `--now` (the binary's hidden or
    /// documented `--now` option; `lint` and `plan` take `--from` / `--start` for the same).
    static let clockCommands: Set<String> = [
        "run", "status", "pause", "resume", "generate", "cancel", "settle", "history", "migrate",
    ]

    /// The command `arguments` names (`state migrate` is `migrate`), when it is one that reads the
    /// clock and is not given its instant.
    static func commandOnTheWallClock(_ arguments: [String]) -> String? {
        guard let first = arguments.first else { return nil }
        let command = first == "state" ? (arguments.dropFirst().first ?? first) : first
        guard clockCommands.contains(command), !arguments.contains("--now") else { return nil }
        guard !arguments.contains("--help"), !arguments.contains("-h") else { return nil }
        return command
    }

    /// Output of every run so far.
    final class Transcript: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        func append(_ more: String) { lock.withLock { text += more } }
        var all: String { lock.withLock { text } }
    }

    init(passphrase: String = "correct horse battery staple") throws {
        directory = try TemporaryDirectory(prefix: "moltipass-keys")
        passphraseFile = directory.file("passphrase").path
        try Self.writeSecret(passphrase + "\n", to: passphraseFile)
    }

    var path: String { directory.path }
    /// Where the XDG default puts the keychain.
    var keychainPath: String { path + "/config/moltipass/keychain" }

    /// HOME and the XDG directories inside the temp dir, and the passphrase file.
    var environment: [String: String] {
        [
            "HOME": path, "XDG_CONFIG_HOME": path + "/config", "XDG_DATA_HOME": path + "/data",
            "XDG_STATE_HOME": path + "/state", "XDG_CACHE_HOME": path + "/cache",
            "MOLTIPASS_PASSPHRASE_FILE": passphraseFile,
        ]
    }

    /// Runs `moltipass arguments` with this home's environment (plus `extra`, where an empty
    /// value removes a variable) and records the output unless `recorded` is false (only
    /// `keys export --reveal` may print a key).
    func run(
        _ arguments: [String], stdin: String? = nil, extra: [String: String] = [:], timeout: TimeInterval = 60,
        recorded: Bool = true
    ) async throws -> ProcessRunner.Result {
        if let instant = simulated.value, let command = Self.commandOnTheWallClock(arguments) {
            Issue.record(
                """
                `moltipass \(command)` runs without --now in a test at the simulated instant \(instant): it would \
                judge the state by today's date (pass --now)
                """)
        }
        var env = environment
        for (name, value) in extra { env[name] = value }
        let result = try await ProcessRunner.run(
            "moltipass", arguments, environment: env.filter { !$0.value.isEmpty }, stdin: stdin.map { Data($0.utf8) },
            timeout: timeout)
        transcript.append(recorded ? result.stdout + result.stderr : result.stderr)
        return result
    }

    /// `keys init` with a tiny work factor (scrypt N = 2^10).
    func initKeychain(_ extra: [String] = []) async throws {
        let result = try await run(["keys", "init", "--scrypt-log2n", "10"] + extra)
        #expect(result.status == 0, "keys init: \(result.stderr)")
    }

    /// `keys add NAME` with the key on stdin.
    @discardableResult
    func add(_ name: String, key: String, replace: Bool = false) async throws -> ProcessRunner.Result {
        try await run(["keys", "add", name] + (replace ? ["--replace"] : []), stdin: key + "\n")
    }

    /// The `keys list --json` array.
    func listJSON() async throws -> [JSONValue] {
        let result = try await run(["keys", "list", "--json"])
        #expect(result.status == 0, "keys list --json: \(result.stderr)")
        return try JSONValue.parse(Data(result.stdout.utf8)).array ?? []
    }

    /// The claim status `keys list --json` reports for `name`.
    func claimStatus(_ name: String) async throws -> String? {
        try await listJSON().first { $0["name"]?.string == name }?["claim_status"]?.string
    }

    /// Fails the test if any run printed one of `keys` or a sandbox key prefix.
    func expectNoLeak(of keys: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let text = transcript.all
        for key in keys {
            #expect(!text.contains(key), "a key leaked into stdout or stderr", sourceLocation: sourceLocation)
        }
        #expect(!text.contains("moltbook_sk_"), "a sandbox key leaked", sourceLocation: sourceLocation)
    }

    func remove() { directory.remove() }

    /// Writes `text` to a new file with mode 0600.
    static func writeSecret(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The permission bits of `path`.
    static func mode(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// The sandbox's admin switch: marks `name` claimed.
func claimOnSandbox(_ sandbox: SandboxProcess, _ name: String) async throws {
    var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
    components.path = "/_sandbox/agents/\(name)/claim"
    let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
    let response = try await transport.send(HTTPRequest(method: .post, url: components.url!, body: Data()))
    #expect((200...299).contains(response.status), "sandbox claim of \(name): HTTP \(response.status)")
}

/// The sandbox's count of requests served so far (`GET /_sandbox/counters`).
func sandboxRequests(_ sandbox: SandboxProcess) async throws -> Int {
    var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
    components.path = "/_sandbox/counters"
    let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
    let response = try await transport.send(HTTPRequest(method: .get, url: components.url!))
    return try JSONValue.parse(response.body)["requests_total"]?.int ?? -1
}

/// Registers `name` on the sandbox straight through the API client (not through the binary)
/// and returns its key, so a test can hand the key to `keys add` on stdin.
func registerOnSandbox(_ sandbox: SandboxProcess, _ name: String) async throws -> String {
    let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
    let client = try MoltbookClient(baseURL: sandbox.baseURL, apiKey: nil, transport: transport, allowLoopback: true)
    return try await client.register(name: name, description: "test agent \(name)").value.apiKey.withRawValue { $0 }
}

/// The sandbox's `GET /_sandbox/counters` (API requests seen, per agent and in total).
func sandboxCounters(_ sandbox: SandboxProcess) async throws -> JSONValue {
    var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
    components.path = "/_sandbox/counters"
    let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
    let response = try await transport.send(HTTPRequest(method: .get, url: components.url!))
    #expect(response.status == 200, "sandbox counters: HTTP \(response.status)")
    return try JSONValue.parse(response.body)
}

/// How many authenticated API requests the sandbox has seen from the agent `name`.
func sandboxRequests(_ sandbox: SandboxProcess, by name: String) async throws -> Int {
    try await sandboxCounters(sandbox)["requests_by_agent"]?[name]?.int ?? 0
}
