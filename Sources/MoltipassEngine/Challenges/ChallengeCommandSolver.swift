import ChallengeSolver
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An operator's solver program: gets the challenge text on stdin, must print one number on stdout and exit 0
/// within the timeout. Anything else (a non-zero exit, no number, extra text, a timeout, a missing program) is a
/// decline with the reason; the program is killed (SIGTERM, then SIGKILL) at the timeout.
public struct ChallengeCommandSolver: Sendable {
    public var path: String
    public var timeout: TimeInterval
    /// Output beyond this many bytes is ignored (and makes the answer garbage).
    static let outputLimit = 4096

    public init(path: String, timeout: TimeInterval) {
        self.path = path
        self.timeout = timeout
    }

    public func solve(_ text: String) async -> Solution {
        let path = path
        let timeout = timeout
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.run(path: path, timeout: timeout, text: text))
            }
        }
    }

    /// Runs the program and judges its output (blocking; called off the cooperative pool).
    static func run(path: String, timeout: TimeInterval, text: String) -> Solution {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return .declined(reason: "solver command \(path) is not an executable file", confidence: 0)
        }
        // A program written a moment ago can be "text file busy" for an instant (another process
        // forked while its writer's descriptor was still open): a few short retries, each with a
        // new process, then give up.
        var attempt = 0
        var started: (Process, Pipe, PipeDrain, PipeDrain, DispatchSemaphore)?
        while started == nil {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            let input = Pipe()
            let output = Pipe()
            let errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            do {
                try process.run()
                started = (
                    process, input, PipeDrain(output.fileHandleForReading), PipeDrain(errors.fileHandleForReading),
                    exited
                )
            } catch let error as NSError where error.code == Int(ETXTBSY) && attempt < 5 {
                attempt += 1
                usleep(useconds_t(20_000 * attempt))
            } catch {
                return .declined(reason: "solver command \(path) could not start: \(error)", confidence: 0)
            }
        }
        guard let (process, input, stdout, stderr, exited) = started else {
            return .declined(reason: "solver command \(path) could not start", confidence: 0)
        }
        // A program that never reads stdin must neither block nor kill us: write off this thread, and take a
        // closed pipe as EPIPE rather than SIGPIPE (ignoring SIGPIPE is what every network client does anyway).
        signal(SIGPIPE, SIG_IGN)
        DispatchQueue.global().async {
            try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 1) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                _ = exited.wait(timeout: .now() + 1)
            }
            return .declined(
                reason: "solver command \(path) did not answer within \(formatSeconds(timeout)) s and was killed",
                confidence: 0)
        }
        // Children of the program may still hold the pipes: wait briefly for the end of output, not forever.
        let out = stdout.finish(within: 1)
        let err = stderr.finish(within: 1)
        let status = process.terminationStatus
        guard process.terminationReason == .exit, status == 0 else {
            let detail =
                String(decoding: err.prefix(300), as: UTF8.self)
                .split(separator: "\n").first.map { ": \($0)" } ?? ""
            let how =
                process.terminationReason == .exit ? "exited with status \(status)" : "was killed by signal \(status)"
            return .declined(reason: "solver command \(path) \(how)\(detail)", confidence: 0)
        }
        let printed = String(decoding: out.prefix(outputLimit), as: UTF8.self)
        guard out.count <= outputLimit, let value = AnswerFormat.parse(printed) else {
            let shown = printed.trimmingCharacters(in: .whitespacesAndNewlines).prefix(60)
            return .declined(reason: "solver command \(path) printed '\(shown)', not one number", confidence: 0)
        }
        return .answer(AnswerFormat.twoDecimals(value), confidence: 1, operation: nil, operands: [])
    }

    static func formatSeconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// Reads a pipe to its end on a background thread; the result can be taken with a bounded wait.
final class PipeDrain: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        DispatchQueue.global().async {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                self.lock.withLock {
                    if self.data.count < 65_536 { self.data.append(chunk) }
                }
            }
            self.done.signal()
        }
    }

    /// What was read, waiting at most `seconds` for the end of the stream.
    func finish(within seconds: TimeInterval) -> Data {
        _ = done.wait(timeout: .now() + seconds)
        return lock.withLock { data }
    }
}
