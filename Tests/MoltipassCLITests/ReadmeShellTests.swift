import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// README.md as the tests read it: sections, fenced blocks, tables, and the shell lines of the
/// quick start and "Running recipes" with the time and exit status their comments give.
enum Readme {
    /// One line of a ```sh block: shell words (comment removed), and what its comment says.
    struct ShellLine: Sendable, CustomStringConvertible {
        var text: String
        var words: [String]
        /// `HH:MM` at the start of the comment: the time of day the line runs at.
        var time: String?
        /// `exit N` in the comment; 0 when the comment says nothing.
        var status: Int32
        var description: String { text }
    }

    static func text() throws -> String {
        try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The lines of the `## title` section (its `###` subsections included), without the heading.
    static func section(_ title: String) throws -> [Substring] {
        let lines = try text().split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "## \(title)" }) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("## ") } ?? rest.endIndex
        return Array(rest[..<end])
    }

    /// The bodies of the fenced blocks of `language` in `lines`, in order.
    static func blocks(_ language: String, in lines: [Substring]) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in lines {
            if line.hasPrefix("```") {
                if let body = current {
                    blocks.append(body)
                    current = nil
                } else if line == "```\(language)" {
                    current = []
                } else {
                    current = nil
                }
                continue
            }
            current?.append(String(line))
        }
        return blocks
    }

    /// Every non-empty line of the ```sh blocks of `lines`.
    static func shellLines(in lines: [Substring]) throws -> [ShellLine] {
        try blocks("sh", in: lines).joined().filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(parse)
    }

    static func parse(_ line: String) throws -> ShellLine {
        let comment = Self.comment(of: line)
        let time = comment.flatMap { text -> String? in
            guard let match = text.firstMatch(of: /^(\d\d:\d\d)\b/) else { return nil }
            return String(match.1)
        }
        let status = comment.flatMap { $0.firstMatch(of: /\bexit (\d+)/).flatMap { Int32($0.1) } } ?? 0
        return ShellLine(text: line, words: try KeysReadmeTests.words(line), time: time, status: status)
    }

    /// The text after the first `#` that starts a word outside quotes, trimmed.
    static func comment(of line: String) -> String? {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous == " " || previous == "\t" {
                return line[line.index(after: index)...].trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return nil
    }

    /// The rows of the first table in `lines` whose header's first cell is `header`; each row as
    /// its cells, trimmed.
    static func table(startingWith header: String, in lines: [Substring]) -> [[String]] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("| \(header) |") }) else { return [] }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { row in
            row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The `code` spans of a table cell: `` `a`, `b` `` → ["a", "b"].
    static func codeSpans(_ cell: String) -> [String] {
        cell.matches(of: /`([^`]+)`/).map { String($0.1) }
    }

    /// `text` with every ISO-8601 UTC timestamp replaced by `<time>`, and the timestamps.
    static func splitTimes(_ text: String) -> (skeleton: String, times: [Date]) {
        let pattern = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/
        let formatter = ISO8601DateFormatter()
        let times = text.matches(of: pattern).compactMap { formatter.date(from: String($0.0)) }
        return (text.replacing(pattern, with: "<time>"), times)
    }

    /// Documented output equals the real one, timestamps within `tolerance` seconds (the engine's
    /// clock is the given instant plus the run's own elapsed time, start-up included: 6 s were
    /// seen on a loaded machine, so 5 was too tight).
    static func expectSameOutput(
        _ actual: String, _ documented: String, tolerance: TimeInterval = 20,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let real = splitTimes(actual)
        let doc = splitTimes(documented)
        #expect(real.skeleton == doc.skeleton, sourceLocation: sourceLocation)
        #expect(real.times.count == doc.times.count, sourceLocation: sourceLocation)
        for (seen, shown) in zip(real.times, doc.times) {
            #expect(
                abs(seen.timeIntervalSince(shown)) <= tolerance, "\(seen) vs \(shown)", sourceLocation: sourceLocation)
        }
    }

    /// The field paths of a JSON report: top-level keys, and `name[].key` inside arrays of
    /// objects (recursively). Values that are objects (maps keyed by agent) are leaves.
    static func fieldPaths(_ value: JSONValue, prefix: String = "") -> Set<String> {
        guard let object = value.object else { return [] }
        var paths: Set<String> = []
        for (key, child) in object {
            let path = prefix + key
            paths.insert(path)
            for element in child.array ?? [] where element.object != nil {
                paths.formUnion(fieldPaths(element, prefix: path + "[]."))
            }
        }
        return paths
    }
}

/// Runs README shell lines through the real binaries in a temp HOME against a sandbox process:
/// `export` sets the environment, `moltipass` (or `.build/debug/moltipass`) runs the binary,
/// `curl` runs the system curl, `… &` starts the sandbox or a daemon, `kill -SIG %1` signals
/// the daemon. Example paths and the sandbox's example URL are mapped to the test's own.
final class ReadmeShell: @unchecked Sendable {
    static let day = "2026-12-01"

    let home: KeysHome
    var sandbox: SandboxProcess?
    var daemon: ChildProcess?
    var environment: [String: String]
    /// Set the sandbox clock and pass `--now` for lines whose comment gives a time.
    let useClock: Bool

    init(home: KeysHome, sandbox: SandboxProcess? = nil, environment: [String: String] = [:], useClock: Bool) {
        self.home = home
        self.sandbox = sandbox
        self.environment = environment
        self.useClock = useClock
    }

    /// A README word with example locations replaced by the test's.
    func local(_ word: String) -> String {
        var word = word
        if let sandbox, let origin = URL(string: "/", relativeTo: sandbox.baseURL)?.absoluteURL.absoluteString {
            word = word.replacingOccurrences(of: "http://127.0.0.1:8787/", with: origin)
        }
        // Example directories become directories (not yet existing) inside the temp HOME.
        for prefix in ["/tmp/moltipass-demo/", "/var/lib/moltipass/"] where word.hasPrefix(prefix) {
            let directory = prefix.dropFirst().dropLast().replacingOccurrences(of: "/", with: "-")
            return home.path + "/" + directory + "/" + word.dropFirst(prefix.count)
        }
        if word.hasPrefix("recipes/") { return Fixtures.packageRoot.appendingPathComponent(word).path }
        return word
    }

    static func instant(_ time: String) -> Date {
        ISO8601DateFormatter().date(from: "\(day)T\(time):00Z") ?? .distantPast
    }

    /// Runs one line; the result of a command that ran to completion (nil for `export`,
    /// `swift build`, `&` and `kill`). Expectations on exit statuses are checked here.
    @discardableResult
    func run(_ line: Readme.ShellLine) async throws -> ProcessRunner.Result? {
        var words = line.words.map(local)
        guard let program = words.first else { return nil }
        if program == "swift" { return nil }
        if program == "export" {
            for assignment in words.dropFirst() {
                guard let equals = assignment.firstIndex(of: "=") else { continue }
                environment[String(assignment[..<equals])] = local(
                    String(assignment[assignment.index(after: equals)...]))
            }
            return nil
        }
        if program == "kill" {
            try await signal(words[1], line)
            return nil
        }
        var stdoutFile: String?
        if let index = words.firstIndex(of: ">") {
            stdoutFile = local(words[index + 1])
            if !stdoutFile!.hasPrefix("/") { stdoutFile = home.path + "/" + stdoutFile! }
            words.removeSubrange(index...(index + 1))
        }
        let background = words.last == "&"
        if background { words.removeLast() }
        switch (program as NSString).lastPathComponent {
        case "moltbook-sandbox":
            #expect(background, "the sandbox line should end with &: \(line)")
            let seed = words.firstIndex(of: "--seed").map { words[$0 + 1] } ?? "1"
            sandbox = try await SandboxProcess.start(arguments: ["--seed", seed])
            return nil
        case "curl":
            let result = try await ProcessRunner.runSystem("/usr/bin/curl", Array(words.dropFirst()))
            #expect(result.status == line.status, "\(line)\n\(result.stderr)")
            return result
        case "moltipass":
            var arguments = Array(words.dropFirst())
            if arguments.starts(with: ["keys", "init"]) { arguments += ["--scrypt-log2n", "10"] }
            if useClock, let time = line.time, ["run", "status"].contains(arguments.first) {
                try await setClock(Self.instant(time))
                arguments += ["--now", RunFixture.iso(Self.instant(time))]
            }
            if background {
                daemon = try ChildProcess(
                    "moltipass", arguments, environment: mergedEnvironment(), directory: home.directory.url)
                return nil
            }
            let result = try await home.run(arguments, extra: environment)
            #expect(result.status == line.status, "\(line)\nstdout: \(result.stdout)\nstderr: \(result.stderr)")
            if let stdoutFile { try result.stdout.write(toFile: stdoutFile, atomically: true, encoding: .utf8) }
            return result
        default:
            Issue.record("README line runs an unknown program: \(line)")
            return nil
        }
    }

    /// `kill -HUP %1` / `kill -TERM %1` to the daemon: after HUP the daemon logs the reload,
    /// after TERM it exits 0 within 10 s.
    func signal(_ name: String, _ line: Readme.ShellLine) async throws {
        let daemon = try #require(daemon, "`kill` without a daemon: \(line)")
        switch name {
        case "-HUP":
            daemon.send(SIGHUP)
            #expect(try await eventually { daemon.stdout.contains("recipes reloaded") }, "\(daemon.stdout)")
        case "-TERM":
            daemon.send(SIGTERM)
            let status = await daemon.waitForExit(timeout: 10)
            #expect(status == 0, "daemon: \(daemon.stderr)")
        default:
            Issue.record("unknown signal in \(line)")
        }
    }

    func mergedEnvironment() -> [String: String] {
        var merged = home.environment
        for (name, value) in environment { merged[name] = value }
        return merged.filter { !$0.value.isEmpty }
    }

    func setClock(_ date: Date) async throws {
        try await admin(.post, "clock", .object(["now": .string(RunFixture.iso(date))]))
    }

    @discardableResult
    func admin(_ method: HTTPMethod, _ path: String, _ json: JSONValue? = nil) async throws -> JSONValue {
        let sandbox = try #require(sandbox)
        var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/_sandbox/" + path
        var headers: HTTPHeaders = [:]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        let response = try await transport.send(
            HTTPRequest(method: method, url: components.url!, headers: headers, body: json?.encoded()))
        return (try? JSONValue.parse(response.body)) ?? .null
    }

    func stop() async {
        daemon?.send(SIGKILL)
        await sandbox?.stop()
        home.remove()
    }

    /// Polls `condition` every 50 ms for at most `timeout` seconds.
    func eventually(timeout: TimeInterval = 30, _ condition: @Sendable () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

/// The README reader itself: comments, times, exit statuses and tables are read as the
/// README tests assume.
struct ReadmeShellTests {
    /// A line's comment gives its time and exit status; `#` inside quotes is not a comment.
    @Test func parsesComments() throws {
        let line = try Readme.parse(#"moltipass run "a # b.yaml" --once    # 10:00 exit 4: deferred"#)
        #expect(line.words == ["moltipass", "run", "a # b.yaml", "--once"])
        #expect(line.time == "10:00")
        #expect(line.status == 4)
        let plain = try Readme.parse("moltipass status x.yaml")
        #expect(plain.time == nil && plain.status == 0)
    }

    /// Timestamps are compared with a tolerance; the rest of the text exactly.
    @Test func comparesOutputWithTimes() {
        let split = Readme.splitTimes("at 2026-12-01T10:00:00Z and 2026-12-01T12:00:01Z")
        #expect(split.skeleton == "at <time> and <time>")
        #expect(split.times.count == 2)
        #expect(split.times[1].timeIntervalSince(split.times[0]) == 7_201)
    }

    /// Field paths of a report: arrays of objects are entered, maps are leaves.
    @Test func fieldPaths() throws {
        let json = try JSONValue.parse(Data(#"{"a":[{"b":1,"c":[{"d":2}]}],"m":{"x":{"y":1}},"e":[]}"#.utf8))
        #expect(Readme.fieldPaths(json) == ["a", "a[].b", "a[].c", "a[].c[].d", "m", "e"])
    }
}
