import Foundation
import Generation

/// Another process holding an exclusive `flock(2)` on a lock file, for tests of locking across
/// processes: a shell that opens the file, locks it with util-linux's `flock`, then becomes
/// `sleep`, so the lock lives exactly as long as that one process (SIGKILL ends both, with no
/// child left holding the descriptor).
public final class LockHolder: @unchecked Sendable {
    let child: SpawnedProcess

    public var pid: Int32 { child.pid }

    private init(child: SpawnedProcess) { self.child = child }

    /// Starts a holder of `lockPath` and returns once it holds the lock (at most `timeout`
    /// seconds, then the process is killed and this throws).
    public static func start(lockPath: String, timeout: TimeInterval = 10) async throws -> LockHolder {
        let ready = lockPath + ".held-\(UUID().uuidString.prefix(8))"
        let child = try TestSpawner.start(
            "/bin/sh", ["-c", "exec 9>>\"$1\" && flock 9 && : >\"$2\" && exec sleep 120", "sh", lockPath, ready],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], Spawn.Options(newProcessGroup: true))
        let holder = LockHolder(child: child)
        let held = try await offloaded { () -> Bool in
            let deadline = Date().addingTimeInterval(timeout)
            while !FileManager.default.fileExists(atPath: ready) {
                guard child.isRunning, Date() < deadline else { return false }
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
        let child = child
        _ = try? await offloaded {
            child.send(SIGKILL, toGroup: true)
            child.wait()
        }
    }

    /// Whether another process could take the lock on `lockPath` right now (`flock -n`).
    public static func isFree(_ lockPath: String) async throws -> Bool {
        let result = try await ProcessRunner.runSystem("/usr/bin/flock", ["-n", lockPath, "true"], timeout: 10)
        return result.status == 0
    }

    deinit { if child.send(SIGKILL, toGroup: true) { child.wait() } }
}

/// The lock holder did not get its lock in time.
public struct LockHolderError: Error, CustomStringConvertible {
    public let lockPath: String
    public var description: String { "a helper process could not lock \(lockPath) in time" }
}
