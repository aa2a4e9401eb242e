import Foundation

/// A built executable of this package running in the background, for tests that signal it
/// (SIGTERM to a daemon, SIGKILL at a random point). Output goes to files, so a chatty child
/// never blocks on a pipe.
public final class ChildProcess: @unchecked Sendable {
    public let process: Process
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `name` with `arguments` and `environment` (merged over a minimal one); its
    /// stdout and stderr go to files in `directory`.
    public init(_ name: String, _ arguments: [String], environment: [String: String], directory: URL) throws {
        let process = Process()
        process.executableURL = ProcessRunner.executable(name)
        process.arguments = arguments
        var env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        process.environment = env
        let tag = UUID().uuidString.prefix(8)
        stdoutURL = directory.appendingPathComponent("child-\(tag).out")
        stderrURL = directory.appendingPathComponent("child-\(tag).err")
        FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGTERM, SIGKILL …) if the process still runs.
    public func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits off the cooperative pool at most `timeout` seconds; the exit status, or nil if it
    /// still runs (it is then killed, so nothing outlives the test).
    public func waitForExit(timeout: TimeInterval) async -> Int32? {
        let process = process
        return
            (try? await offloaded { () -> Int32? in
                let deadline = Date().addingTimeInterval(timeout)
                while process.isRunning && Date() < deadline { usleep(5_000) }
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    return nil
                }
                process.waitUntilExit()
                return process.terminationStatus
            }) ?? nil
    }

    /// Whether the process ended because of a signal.
    public var wasSignalled: Bool { process.terminationReason == .uncaughtSignal }

    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
