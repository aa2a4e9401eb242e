import Foundation

/// The `moltbook-sandbox` executable running as a child process, for end-to-end CLI tests.
public final class SandboxProcess: @unchecked Sendable {
    public let process: Process
    /// `http://127.0.0.1:PORT/api/v1`, read from the line the sandbox prints.
    public let baseURL: URL

    /// Starts the sandbox on an ephemeral port and waits (off the cooperative pool) for its
    /// "listening on" line.
    public static func start(arguments: [String] = [], timeout: TimeInterval = 20) async throws -> SandboxProcess {
        try await offloaded { try SandboxProcess(arguments: arguments, timeout: timeout) }
    }

    private init(arguments: [String], timeout: TimeInterval) throws {
        let process = Process()
        process.executableURL = ProcessRunner.executable("moltbook-sandbox")
        process.arguments = ["--port", "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = out.fileHandleForReading
        var buffer = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var found: URL?
        while found == nil && Date() < deadline && process.isRunning {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            let text = String(decoding: buffer, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on ") }),
                let range = line.range(of: "listening on ")
            {
                found = URL(string: String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces))
            }
        }
        guard let found else {
            process.terminate()
            throw HarnessError("moltbook-sandbox did not print its URL: \(String(decoding: buffer, as: UTF8.self))")
        }
        self.process = process
        self.baseURL = found
    }

    /// Sends SIGTERM and waits (off the cooperative pool) for the exit status.
    @discardableResult
    public func stop() async -> Int32 {
        let process = self.process
        if process.isRunning { process.terminate() }
        return
            (try? await offloaded {
                process.waitUntilExit()
                return process.terminationStatus
            }) ?? -1
    }

    deinit { if process.isRunning { process.terminate() } }
}
