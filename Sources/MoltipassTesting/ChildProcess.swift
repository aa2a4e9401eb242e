import Foundation
import Generation

/// A program running in the background, for tests that signal it (SIGTERM to a daemon, SIGKILL at a random point)
/// or run it beside themselves (a TLS server, a second writer). Output goes to files, so a chatty child never
/// blocks on a pipe. It leads a process group of its own; whatever outlives the test (a timed-out wait, a child
/// dropped after a failure) is killed with its group, and `TestSpawner` makes it die with the test process.
public final class ChildProcess: @unchecked Sendable {
    let child: SpawnedProcess
    /// The arguments it was started with (after the program).
    public let arguments: [String]
    let stdoutURL: URL?
    let stderrURL: URL?

    /// Starts this package's executable `name` with `arguments` and `environment` (merged over a minimal one); its
    /// stdout and stderr go to files in `directory`.
    public convenience init(
        _ name: String, _ arguments: [String], environment: [String: String], directory: URL
    ) throws {
        try self.init(
            program: ProcessRunner.executable(name).path, arguments, environment: environment, output: directory)
    }

    /// Starts the program at `path` (absolute) with `arguments` and `environment` (merged over a minimal one); its
    /// stdout and stderr go to files in `output`, or nowhere.
    public init(
        program path: String, _ arguments: [String], environment: [String: String] = [:], output: URL? = nil
    ) throws {
        var env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        let tag = UUID().uuidString.prefix(8)
        stdoutURL = output?.appendingPathComponent("child-\(tag).out")
        stderrURL = output?.appendingPathComponent("child-\(tag).err")
        var opened: [Int32] = []
        defer { opened.forEach { close($0) } }
        func stdio(_ url: URL?) throws -> Spawn.Stdio {
            guard let url else { return .null }
            let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw HarnessError("cannot create \(url.path) (errno \(errno))") }
            opened.append(fd)
            return .descriptor(fd)
        }
        let options = Spawn.Options(
            stdin: .null, stdout: try stdio(stdoutURL), stderr: try stdio(stderrURL), newProcessGroup: true)
        child = try TestSpawner.start(path, arguments, environment: env, options)
        self.arguments = arguments
    }

    public var pid: Int32 { child.pid }

    /// Whether it has not exited yet.
    public var isRunning: Bool { child.isRunning }

    /// Sends `signal` (SIGTERM, SIGKILL …) to the process if it has not been waited for.
    public func send(_ signal: Int32) { child.send(signal) }

    /// Waits off the cooperative pool at most `timeout` seconds: the exit status (or the number of the signal that
    /// ended it), or nil if it still runs (it is then killed with its group, so nothing outlives the test).
    public func waitForExit(timeout: TimeInterval) async -> Int32? {
        let child = child
        return
            (try? await offloaded { () -> Int32? in
                if let termination = child.wait(timeout: timeout) { return termination.status }
                child.send(SIGKILL, toGroup: true)
                child.wait()
                return nil
            }) ?? nil
    }

    /// Whether the process ended because of a signal.
    public var wasSignalled: Bool {
        if case .signalled = child.termination { return true }
        return false
    }

    public var stdout: String { stdoutURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }
    public var stderr: String { stderrURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }

    deinit {
        // A process never waited for (a failed test): killed with its group, and reaped.
        if child.send(SIGKILL, toGroup: true) { child.wait() }
    }
}
