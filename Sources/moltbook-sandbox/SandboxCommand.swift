import ArgumentParser
import Determinism
import Foundation
import MoltbookSandbox
import MoltbookSandboxServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `moltbook-sandbox`: serves a local fake of the Moltbook API on loopback until SIGINT/SIGTERM.
@main
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moltbook-sandbox",
        abstract: "Serve a local fake of the Moltbook API on loopback.",
        discussion: "Prints one line with the API base URL, then serves until SIGINT or SIGTERM. See docs/sandbox.md."
    )

    @Option(help: "Loopback address to bind (127.0.0.1, ::1 or localhost).")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one.")
    var port: UInt16 = 0

    @Option(help: "PRNG seed: the same seed and requests give the same responses.")
    var seed: UInt64 = 1

    @Option(help: "Probability (0...1) that a post, comment or submolt gets a verification challenge.")
    var challengeRate: Double?

    @Option(help: "JSON file with sandbox config (snake_case keys, all optional).")
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Server to imitate: \(SandboxDialect.names) (default: the config's, else moltbook.com).",
            valueName: "name"))
    var dialect: SandboxDialect?

    @Option(
        help: ArgumentHelp(
            "A seeded variant of the server: the dialect, create answers, paging, filters, rate-limit headers and challenges drawn from SEED (docs/sandbox.md, \"Variants\"); the config's other settings stay.",
            valueName: "SEED"))
    var variant: UInt64?

    @Flag(help: "Claim agents as soon as they register.")
    var autoClaim = false

    @Option(
        help: ArgumentHelp(
            "Simulate N other agents that comment on agents' posts, answer their replies, mention them and send DMs (0...1000; the config's `simulation` key sets the rest; docs/sandbox.md).",
            valueName: "N"))
    var simulatedAgents: Int?

    @Option(
        help: ArgumentHelp(
            "Agents younger than this many seconds get 403 on DM routes (default 86400; 0: none).",
            valueName: "seconds"))
    var dmMinAgeSeconds: Int?

    @Flag(
        help: ArgumentHelp(
            "Also serve an OpenAI-compatible chat-completions fake under /openai/v1 (models name faults; docs/sandbox.md)."
        ))
    var openai = false

    @Option(
        help: ArgumentHelp(
            "With --openai: a file holding the bearer key the fake requires (default: any request is accepted).",
            valueName: "path"))
    var openaiKeyFile: String?

    @Option(
        help: ArgumentHelp(
            "Start the clock at this instant (ISO-8601, e.g. 2026-01-01T00:00:00Z) instead of the wall clock.",
            valueName: "instant"))
    var now: String?

    @Option(
        help: ArgumentHelp(
            "Run the clock N times faster than real time, from --now or the wall clock (1...100000; for tests and demos).",
            valueName: "N"))
    var timeScale: String?

    @Flag(help: "Log one line per request to stderr (method, path, status; never headers).")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Append one JSON line per request to FILE: wall time, the sandbox's clock, the agent (by its key), method, path, status, peer address; never headers, keys or bodies.",
            valueName: "file"))
    var requestLog: String?

    func validate() throws {
        if let now, SandboxTime.parse(now) == nil {
            throw ValidationError("--now `\(now)` is not an ISO-8601 instant: write it like 2026-01-01T00:00:00Z")
        }
        if let timeScale, TimeScale(timeScale) == nil {
            throw ValidationError(TimeScale.problem("--time-scale", timeScale))
        }
        if let simulatedAgents, !(0...1_000).contains(simulatedAgents) {
            throw ValidationError("--simulated-agents `\(simulatedAgents)` is not a count from 0 to 1000")
        }
        if let dmMinAgeSeconds, dmMinAgeSeconds < 0 {
            throw ValidationError("--dm-min-age-seconds `\(dmMinAgeSeconds)` must be 0 or more")
        }
    }

    /// The server's clock: the wall clock (moved by `/_sandbox/clock`), or with `--now` or
    /// `--time-scale` a clock from that instant (else now) running that many times real time.
    var clock: SettableClock {
        let start = now.flatMap(SandboxTime.parse)
        let scale = timeScale.flatMap(TimeScale.init)
        guard start != nil || scale != nil else { return SettableClock() }
        return SettableClock(start: start ?? Date(), scale: scale?.factor ?? 1)
    }

    func run() async throws {
        var sandboxConfig = SandboxConfig()
        if let config {
            guard let data = FileManager.default.contents(atPath: config) else {
                throw ValidationError("--config \(config): the file cannot be read")
            }
            do {
                sandboxConfig = try JSONDecoder().decode(SandboxConfig.self, from: data)
            } catch let error as DecodingError {
                throw ValidationError("--config \(config): \(Self.describe(error))")
            }
        }
        // Limits the config left at the old dialect's defaults follow the new dialect.
        if let dialect { sandboxConfig.dialect = dialect }
        if let challengeRate { sandboxConfig.challengeRate = challengeRate }
        if autoClaim { sandboxConfig.autoClaim = true }
        if let simulatedAgents { sandboxConfig.simulation.agents = simulatedAgents }
        if let dmMinAgeSeconds { sandboxConfig.dmMinAgeSeconds = dmMinAgeSeconds }
        if let variant {
            let drawn = SandboxVariant(seed: variant)
            sandboxConfig = drawn.applied(to: sandboxConfig)
            FileHandle.standardError.write(Data("moltbook-sandbox: \(drawn)\n".utf8))
        }

        let log: (@Sendable (String) -> Void)? =
            verbose ? { @Sendable line in FileHandle.standardError.write(Data((line + "\n").utf8)) } : nil
        var openAI: OpenAIStub?
        if openai {
            let key = try openaiKeyFile.map {
                try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            openAI = OpenAIStub(key: key)
        }
        let requests: SandboxRequestLog?
        do {
            requests = try requestLog.map(SandboxRequestLog.init(path:))
        } catch {
            throw ValidationError("--request-log \(requestLog ?? ""): the file cannot be opened for writing")
        }
        let server = SandboxServer(
            model: SandboxModel(config: sandboxConfig, seed: seed), clock: clock, host: host, port: port, log: log,
            openAI: openAI, requestLog: requests)
        let url = try await server.start()
        FileHandle.standardOutput.write(Data("moltbook-sandbox listening on \(url.absoluteString)\n".utf8))
        await Self.waitForTerminationSignal()
        await server.stop()
        requests?.close()
    }

    /// What is wrong in a config file, by key path (`simulation.reply_probability: …`).
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "" : keys.joined(separator: ".") + ": "
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : path(context) + context.debugDescription
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return path(context) + "expected a value of type \(type)"
        case .keyNotFound(let key, let context):
            return path(context) + "missing key \(key.stringValue)"
        @unknown default:
            return "not a valid sandbox config"
        }
    }

    /// Suspends until SIGINT or SIGTERM arrives.
    private static func waitForTerminationSignal() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "moltbook-sandbox.signals")
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        for await _ in stream { break }
        sources.forEach { $0.cancel() }
    }
}

extension SandboxDialect: ExpressibleByArgument {}
