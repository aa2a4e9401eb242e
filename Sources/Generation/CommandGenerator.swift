import Foundation
import MoltbookAPI

#if canImport(Glibc)
    import Glibc
#endif

/// A generator that is an operator's program (issue 21's `generate: command: [PATH, ARGS…]`).
///
/// The contract with the program:
/// - stdin: the JSON context, then end of file;
/// - stdout: the text, or a JSON object `{"title": …, "content": …}` (a post); trailing newlines are dropped;
///   it must be UTF-8 and at most `maxOutput` bytes (reading stops and the program is killed beyond that);
/// - exit code 0: the text; 3 (`skipExitCode`): skip this occurrence, the reason on stderr's first line;
///   anything else, a signal, a timeout, no output, text that is not UTF-8, or output starting with `{` that is
///   not that object: a failure with a plain reason naming the program (never its environment);
/// - time: `timeout`, then SIGTERM to the program's process group (its children too), SIGKILL `killGrace`
///   later; whatever of the group is still alive when the program exits is killed as well;
/// - environment: only `PATH` (`safePath`), `LANG=C.UTF-8`, `HOME`, and the variables the caller passes
///   (already filtered by name by the caller), never the parent's environment: no key variable leaks.
///
/// The program is a path (relative paths from the current directory); a bare name is looked up in `safePath`.
public struct CommandGenerator: Sendable {
    /// What one run produced.
    public enum Outcome: Sendable, Equatable {
        /// The program printed text (exit code 0).
        case text(GeneratedText)
        /// The program declined this occurrence (exit code 3); the reason is its stderr's first line.
        case skip(reason: String)
        /// The program failed; `retryLater` says whether the next occurrence may succeed (false when the
        /// command itself is wrong and only the operator can fix it).
        case failed(reason: String, retryLater: Bool)
    }

    /// The exit code that means "skip this occurrence".
    public static let skipExitCode: Int32 = 3
    /// The only `PATH` a generator sees.
    public static let safePath = "/usr/local/bin:/usr/bin:/bin"
    /// The variables every generator gets; the caller's variables never replace them.
    public static let fixedVariableNames: Set<String> = ["PATH", "LANG", "HOME"]
    public static let defaultTimeout: TimeInterval = 60
    public static let defaultMaxOutput = 64 * 1024
    /// Bytes of stderr kept (for reasons); the rest is read and dropped so the program never blocks on it.
    static let stderrLimit = 8 * 1024

    /// `[PATH, ARGS…]`.
    public var command: [String]
    /// Variables passed to the program (the caller's whitelist, by name, already applied).
    public var environment: [String: String]
    public var timeout: TimeInterval
    public var maxOutput: Int
    /// The `HOME` the program sees (none when nil).
    public var home: String?
    /// The wait between SIGTERM and SIGKILL at the timeout.
    public var killGrace: TimeInterval

    public init(
        command: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = CommandGenerator.defaultTimeout,
        maxOutput: Int = CommandGenerator.defaultMaxOutput,
        home: String? = ProcessInfo.processInfo.environment["HOME"],
        killGrace: TimeInterval = 2
    ) {
        self.command = command
        self.environment = environment
        self.timeout = timeout
        self.maxOutput = maxOutput
        self.home = home
        self.killGrace = killGrace
    }

    /// Runs the program once with `context` on its stdin. The waiting happens on a thread of its own, never on
    /// Swift's cooperative pool.
    public func run(context: Data) async -> Outcome {
        let generator = self
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: generator.runBlocking(context: context)) }
            thread.name = "moltipass-generator"
            thread.start()
        }
    }

    /// The environment the program gets, as `NAME=value` strings, sorted.
    public var childEnvironment: [String] {
        var variables: [String: String] = ["PATH": Self.safePath, "LANG": "C.UTF-8"]
        if let home { variables["HOME"] = home }
        for (name, value) in environment
        where !Self.fixedVariableNames.contains(name) && Self.isVariableName(name) && !value.contains("\0") {
            variables[name] = value
        }
        return variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Runs the program and judges what it did (blocking).
    func runBlocking(context: Data) -> Outcome {
        guard let program = command.first, !program.isEmpty else {
            return .failed(reason: "the generator command is empty", retryLater: false)
        }
        let who = "generator \(program)"
        guard let path = Self.resolve(program) else {
            return .failed(reason: "\(who) is not an executable file", retryLater: false)
        }
        let limits = GeneratorProcess.Limits(
            timeout: timeout, killGrace: killGrace, maxOutput: maxOutput, maxErrors: Self.stderrLimit)
        switch GeneratorProcess.run(
            path: path, arguments: command, environment: childEnvironment, input: context, limits)
        {
        case .failure(let error):
            // Only "text file busy" can pass by itself; the others need the operator.
            return .failed(reason: "\(who) could not start: \(error.description)", retryLater: error.code == ETXTBSY)
        case .success(let result):
            return judge(result, who: who)
        }
    }

    func judge(_ result: GeneratorProcess.Result, who: String) -> Outcome {
        let detail = Self.firstLine(of: result.errors).map { ": \($0)" } ?? ""
        if result.outputExceeded {
            return .failed(reason: "\(who) printed more than \(maxOutput) bytes and was stopped", retryLater: true)
        }
        if result.timedOut {
            return .failed(
                reason: "\(who) did not finish within \(Self.formatSeconds(timeout)) s and was killed",
                retryLater: true)
        }
        switch result.termination {
        case .signalled(let signal):
            return .failed(reason: "\(who) was killed by signal \(signal)\(detail)", retryLater: true)
        case .exited(Self.skipExitCode):
            return .skip(reason: Self.firstLine(of: result.errors) ?? "the generator skipped this occurrence")
        case .exited(let status) where status != 0:
            return .failed(reason: "\(who) exited with status \(status)\(detail)", retryLater: true)
        case .exited:
            return Self.parse(result.output, who: who)
        }
    }

    /// Text, or a post's `{"title", "content"}`, from what the program printed.
    static func parse(_ output: Data, who: String) -> Outcome {
        guard let printed = String(validating: output, as: UTF8.self) else {
            return .failed(reason: "\(who) printed text that is not valid UTF-8", retryLater: true)
        }
        var scalars = printed.unicodeScalars[...]
        while let last = scalars.last, last == "\n" || last == "\r" { scalars = scalars.dropLast() }
        let text = String(String.UnicodeScalarView(scalars))
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return .failed(reason: "\(who) printed nothing", retryLater: true)
        }
        guard text.hasPrefix("{") else { return .text(GeneratedText(content: text)) }
        let notPost = "\(who) printed JSON that is not an object {\"title\": …, \"content\": …} of strings"
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            Set(object.keys).isSubset(of: ["title", "content"]),
            let content = object["content"] as? String, !content.isEmpty
        else { return .failed(reason: notPost, retryLater: true) }
        switch object["title"] {
        case nil, is NSNull: return .text(GeneratedText(content: content))
        case let title as String: return .text(GeneratedText(title: title, content: content))
        default: return .failed(reason: notPost, retryLater: true)
        }
    }

    /// The executable file a program names: a path as is, a bare name from `safePath`; nil when there is none.
    public static func resolve(_ program: String) -> String? {
        let candidates =
            program.contains("/")
            ? [program] : safePath.split(separator: ":").map { "\($0)/\(program)" }
        return candidates.first { candidate in
            var info = stat()
            return stat(candidate, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(candidate, X_OK) == 0
        }
    }

    /// The first non-empty line of stderr, without control characters, redacted (`Redactor`: a program may
    /// print a key), at most 200 characters.
    static func firstLine(of errors: Data) -> String? {
        let text = String(decoding: errors, as: UTF8.self)
        guard
            let line = text.split(whereSeparator: \.isNewline)
                .map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { !$0.isEmpty })
        else { return nil }
        let clean = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\u{7F}" }))
        return clean.isEmpty ? nil : String(Redactor.redact(clean).prefix(200))
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
    }

    static func formatSeconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
