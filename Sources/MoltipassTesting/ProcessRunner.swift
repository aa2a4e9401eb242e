import Foundation

/// Runs a built executable of this package and captures its output.
public enum ProcessRunner {
    /// What a finished process left behind.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The directory holding this package's built products (next to the running test bundle).
    public static var productsDirectory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            if url.pathExtension == "xctest"
                || FileManager.default.fileExists(
                    atPath: url.appendingPathComponent("moltipass").path)
            {
                return url.pathExtension == "xctest" ? url.deletingLastPathComponent() : url
            }
            url.deleteLastPathComponent()
        }
        return Fixtures.packageRoot.appendingPathComponent(".build/debug")
    }

    /// The path of the built executable `name`.
    public static func executable(_ name: String) -> URL {
        productsDirectory.appendingPathComponent(name)
    }

    /// Runs `name` with `arguments`, an environment (merged over a minimal one) and optional
    /// stdin, waiting at most `timeout` seconds (then it is killed). The wait happens off the
    /// cooperative pool.
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
        currentDirectory: URL? = nil, timeout: TimeInterval = 60
    ) async throws -> Result {
        try await offloaded {
            try runBlocking(
                name, arguments, environment: environment, stdin: stdin,
                currentDirectory: currentDirectory, timeout: timeout)
        }
    }

    static func runBlocking(
        _ name: String, _ arguments: [String], environment: [String: String], stdin: Data?,
        currentDirectory: URL?, timeout: TimeInterval
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable(name)
        process.arguments = arguments
        var env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        let collector = OutputCollector(out: out.fileHandleForReading, err: err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        process.waitUntilExit()
        let (stdout, stderr) = collector.finish()
        return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}

/// Drains both pipes on background threads so a chatty child never blocks on a full pipe.
final class OutputCollector: @unchecked Sendable {
    private let group = DispatchGroup()
    private var out = Data()
    private var err = Data()

    init(out: FileHandle, err: FileHandle) {
        group.enter()
        DispatchQueue.global().async {
            self.out = out.readDataToEndOfFile()
            self.group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            self.err = err.readDataToEndOfFile()
            self.group.leave()
        }
    }

    func finish() -> (String, String) {
        group.wait()
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

extension ProcessRunner {
    /// Runs a system program (absolute path) and captures its output, off the cooperative pool.
    public static func runSystem(_ path: String, _ arguments: [String], timeout: TimeInterval = 60) async throws
        -> Result
    {
        try await offloaded { try runSystemBlocking(path, arguments, timeout: timeout) }
    }

    static func runSystemBlocking(_ path: String, _ arguments: [String], timeout: TimeInterval) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let collector = OutputCollector(out: out.fileHandleForReading, err: err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let (stdout, stderr) = collector.finish()
        return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}
