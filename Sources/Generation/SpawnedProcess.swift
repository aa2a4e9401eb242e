import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child started by `Spawn.start`: its pid, the parent's ends of the pipes asked for, and waiting and signalling
/// that never reach another process.
///
/// The child is reaped only by `wait` (or `collect`); until then its pid, and its process group's id, stay reserved,
/// so a signal sent meanwhile reaches it or its group even after it exited. After reaping nothing is sent (the pid
/// may belong to someone else by then). The pipe descriptors belong to the caller (`collect` closes them).
package final class SpawnedProcess: @unchecked Sendable {
    package let pid: pid_t
    /// Whether the child leads a process group of its own.
    package let leadsGroup: Bool
    /// The `Descendants` tag of a group leader: what its descendants carry wherever they move.
    package let tag: String?
    /// The write end of the child's stdin, if it is a pipe.
    package let stdin: Int32?
    /// The read end of the child's stdout, if it is a pipe.
    package let stdout: Int32?
    /// The read end of the child's stderr, if it is a pipe.
    package let stderr: Int32?

    private let lock = NSLock()
    private var reaped: Spawn.Termination?

    init(pid: pid_t, leadsGroup: Bool, tag: String? = nil, stdin: Int32?, stdout: Int32?, stderr: Int32?) {
        self.pid = pid
        self.leadsGroup = leadsGroup
        self.tag = tag
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
    }

    /// How it ended, once reaped.
    package var termination: Spawn.Termination? { lock.withLock { reaped } }

    /// Whether it has not exited yet (without reaping it).
    package var isRunning: Bool {
        lock.withLock { reaped == nil && !Self.hasExited(pid) }
    }

    /// Sends `signal` to the child, or with `toGroup` to its whole process group (if it leads one; else to the
    /// child), unless it was reaped. Whether the signal was sent.
    @discardableResult
    package func send(_ signal: Int32, toGroup: Bool = false) -> Bool {
        lock.withLock {
            guard reaped == nil else { return false }
            return kill(toGroup && leadsGroup ? -pid : pid, signal) == 0
        }
    }

    /// Blocks until the child exits, reaps it and returns how it ended (at once if it was reaped already).
    @discardableResult
    package func wait() -> Spawn.Termination {
        if let reaped = termination { return reaped }
        // Wait without reaping, so that `send` from another thread never meets a recycled pid.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1, errno == EINTR {}
        return lock.withLock { reapLocked() }
    }

    /// Waits at most `timeout` seconds: how it ended, or nil if it still runs (it is left running).
    package func wait(timeout: TimeInterval) -> Spawn.Termination? {
        let deadline = Spawn.now() + timeout
        while isRunning {
            guard Spawn.now() < deadline else { return nil }
            usleep(2_000)
        }
        return wait()
    }

    /// Reaps the exited child (the lock held). If something else in this process reaped it first, its status is
    /// lost: that is reported as exit status 255.
    private func reapLocked() -> Spawn.Termination {
        if let reaped { return reaped }
        var status: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &status, 0) } while rc == -1 && errno == EINTR
        let termination = rc == pid ? Spawn.Termination(waitStatus: status) : .exited(255)
        reaped = termination
        return termination
    }

    /// Whether `pid` has exited, without reaping it.
    static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        let rc = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return rc == -1 ? errno != EINTR : info.si_signo == SIGCHLD
    }
}
