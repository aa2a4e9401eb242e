import Foundation

/// Another process holding an exclusive `flock(2)` on a lock file, for tests of locking across
/// processes: a shell that opens the file, locks it with util-linux's `flock`, then becomes
/// `sleep`, so the lock lives exactly as long as that one process (SIGKILL ends both, with no
/// child left holding the descriptor).
public final class LockHolder: @unchecked Sendable {
    public let process: Process

    private init(process: Process) { self.process = process }

    /// Starts a holder of `lockPath` and returns once it holds the lock (at most `timeout`
    /// seconds, then the process is killed and this throws).
    public static func start(lockPath: String, timeout: TimeInterval = 10) async throws -> LockHolder {
        let ready = lockPath + ".held-\(UUID().uuidString.prefix(8))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec 9>>\"$1\" && flock 9 && : >\"$2\" && exec sleep 120", "sh", lockPath, ready]
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let holder = LockHolder(process: process)
        let held = try await offloaded { () -> Bool in
            let deadline = Date().addingTimeInterval(timeout)
            while !FileManager.default.fileExists(atPath: ready) {
                guard process.isRunning, Date() < deadline else { return false }
                usleep(2_000)
            }
            return true
        }
        try? FileManager.default.removeItem(atPath: ready)
        guard held else {
            await holder.kill()
            throw LockHolderError(lockPath: lockPath)
        }
        return holder
    }

    /// Kills the holder with SIGKILL (the kernel releases its lock) and waits for it to end.
    public func kill() async {
        let process = process
        _ = try? await offloaded {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Whether another process could take the lock on `lockPath` right now (`flock -n`).
    public static func isFree(_ lockPath: String) async throws -> Bool {
        let result = try await ProcessRunner.runSystem("/usr/bin/flock", ["-n", lockPath, "true"], timeout: 10)
        return result.status == 0
    }

    deinit { if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) } }
}

/// The lock holder did not get its lock in time.
public struct LockHolderError: Error, CustomStringConvertible {
    public let lockPath: String
    public var description: String { "a helper process could not lock \(lockPath) in time" }
}
