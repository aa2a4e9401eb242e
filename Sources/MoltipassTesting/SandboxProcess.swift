import Foundation
import Generation

/// The `moltbook-sandbox` executable running as a child process, for end-to-end CLI tests.
public final class SandboxProcess: @unchecked Sendable {
    let child: SpawnedProcess
    /// `http://127.0.0.1:PORT/api/v1`, read from the line the sandbox prints.
    public let baseURL: URL

    public var pid: Int32 { child.pid }

    /// Starts the sandbox on an ephemeral port and waits (off the cooperative pool) for its
    /// "listening on" line.
    public static func start(arguments: [String] = [], timeout: TimeInterval = 20) async throws -> SandboxProcess {
        try await offloaded { try SandboxProcess(arguments: arguments, timeout: timeout) }
    }

    private init(arguments: [String], timeout: TimeInterval) throws {
        let child = try TestSpawner.start(
            ProcessRunner.executable("moltbook-sandbox").path, ["--port", "0"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
            Spawn.Options(stdin: .null, stdout: .pipe, stderr: .null, newProcessGroup: true))
        guard let stdout = child.stdout else { preconditionFailure("stdout was asked for as a pipe") }
        let (found, printed) = Self.readURL(stdout, from: child, timeout: timeout)
        guard let found else {
            close(stdout)
            child.send(SIGKILL, toGroup: true)
            child.wait()
            throw HarnessError("moltbook-sandbox did not print its URL: \(String(decoding: printed, as: UTF8.self))")
        }
        // Whatever it prints later is read and dropped, so it never blocks on a full pipe.
        let drain = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(stdout, $0.baseAddress, $0.count) }
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
            close(stdout)
        }
        drain.start()
        self.child = child
        self.baseURL = found
    }

    /// Reads `fd` until a "listening on URL" line, its end, the child's exit or the timeout.
    private static func readURL(_ fd: Int32, from child: SpawnedProcess, timeout: TimeInterval) -> (URL?, Data) {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = Data()
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 50)
            if ready == 0 {
                if !child.isRunning { break }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[..<count])
            // Whole lines only: a URL cut in two by the pipe would parse as another one.
            let text = String(decoding: buffer, as: UTF8.self)
            guard let end = text.lastIndex(of: "\n") else { continue }
            for line in text[..<end].split(separator: "\n") {
                if let range = line.range(of: "listening on ") {
                    let url = URL(string: String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces))
                    return (url, buffer)
                }
            }
        }
        return (nil, buffer)
    }

    /// Sends SIGTERM and waits (off the cooperative pool) for the exit status (SIGKILL to its group after 30 s).
    @discardableResult
    public func stop() async -> Int32 {
        let child = child
        child.send(SIGTERM)
        return
            (try? await offloaded { () -> Int32 in
                if let termination = child.wait(timeout: 30) { return termination.status }
                child.send(SIGKILL, toGroup: true)
                return child.wait().status
            }) ?? -1
    }

    deinit {
        // Never stopped (a failed test): killed with its group, and reaped.
        if child.send(SIGKILL, toGroup: true) { child.wait() }
    }
}
