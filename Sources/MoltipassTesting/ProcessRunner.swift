import Foundation
import Generation

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

    /// Runs `name` with `arguments`, an environment (merged over a minimal one), optional stdin and working
    /// directory, waiting at most `timeout` seconds (then it and its process group are killed). The wait happens
    /// off the cooperative pool. `status` is the exit status, or the number of the signal that ended it.
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
        var env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        return try collect(
            executable(name).path, arguments, environment: env,
            Spawn.Options(
                directory: currentDirectory?.path, stdin: .pipe, stdout: .pipe, stderr: .pipe, newProcessGroup: true),
            input: stdin ?? Data(), timeout: timeout)
    }

    /// Both outputs are kept whole up to this many bytes each (a test's program, not an untrusted one).
    static let outputLimit = 256 << 20
    /// From the timeout's SIGTERM to the group until SIGKILL.
    static let killGrace: TimeInterval = 5

    /// Starts `path` in a process group of its own and runs it to completion: `input` on stdin (if a pipe), both
    /// outputs read, the group killed at the timeout (SIGTERM, then SIGKILL). After the program exited, its pipes are
    /// read until their end (a background child may still hold them) for at most `timeout` more seconds; what it
    /// left running is left running, as a shell would.
    static func collect(
        _ path: String, _ arguments: [String], environment: [String: String], _ options: Spawn.Options, input: Data,
        timeout: TimeInterval
    ) throws -> Result {
        let child = try TestSpawner.start(path, arguments, environment: environment, options)
        let done = child.collect(
            input: input,
            Spawn.Limits(
                timeout: timeout, killGrace: killGrace, maxOutput: outputLimit, maxErrors: outputLimit,
                killGroupOnExit: false, drainAfterExit: timeout))
        return Result(
            status: done.termination.status, stdout: String(decoding: done.output, as: UTF8.self),
            stderr: String(decoding: done.errors, as: UTF8.self))
    }
}

extension ProcessRunner {
    /// Runs a system program (absolute path) with the test process's environment and captures its output, off the
    /// cooperative pool.
    public static func runSystem(_ path: String, _ arguments: [String], timeout: TimeInterval = 60) async throws
        -> Result
    {
        try await offloaded { try runSystemBlocking(path, arguments, timeout: timeout) }
    }

    /// Runs a system program (absolute path) and captures its output, blocking (call it from a thread of its own,
    /// e.g. in `offloaded`): stdin is `/dev/null`, the environment the test process's own or exactly `environment`
    /// over PATH and LANG.
    public static func runSystemBlocking(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, timeout: TimeInterval = 60
    ) throws -> Result {
        var env = TestSpawner.inheritedEnvironment
        if let environment {
            env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
            env.merge(environment) { $1 }
        }
        return try collect(
            path, arguments, environment: env,
            Spawn.Options(stdin: .null, stdout: .pipe, stderr: .pipe, newProcessGroup: true), input: Data(),
            timeout: timeout)
    }
}
