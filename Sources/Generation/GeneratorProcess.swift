import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run of a program with bounded time and output, the plumbing under `CommandGenerator` (blocking: call it
/// from a thread of its own).
///
/// Why `posix_spawn` and not `Foundation.Process` (which the challenge solver uses): on Linux, `Process` cannot
/// put the child in a process group of its own, so a timeout could only kill the program and leave its children
/// (a model server client, a `sleep`) running and holding the pipes; it also reads pipes on its own threads with
/// no way to stop at a byte count. Here the child leads a new process group (`POSIX_SPAWN_SETPGROUP`), so
/// `kill(-pid, …)` reaches its descendants; signals the parent ignores (SIGPIPE) are reset to their defaults;
/// every descriptor other than the three pipes is closed in the child (`addclosefrom_np`), and the environment
/// is exactly the one given. One poll loop writes stdin, reads stdout (stopping at the limit) and stderr, and
/// watches the clock; the child is only reaped after its group was killed, so its pid cannot be reused meanwhile.
enum GeneratorProcess {
    struct Limits {
        var timeout: TimeInterval
        var killGrace: TimeInterval
        var maxOutput: Int
        var maxErrors: Int
    }

    enum Termination: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    struct Result {
        var termination: Termination
        var output: Data
        var errors: Data
        var timedOut: Bool
        var outputExceeded: Bool
    }

    /// Why the program did not start, in words (no raw system text).
    struct StartError: Error, CustomStringConvertible {
        var code: Int32
        var description: String {
            switch code {
            case ENOEXEC: return "it is not a program the system can run (a script needs a #! line)"
            case ENOENT: return "its interpreter (the #! line) was not found"
            case EACCES: return "permission denied"
            case ETXTBSY: return "the file is still open for writing"
            default: return "system error \(code)"
            }
        }
    }

    /// How long the pipes are still read after the program exited (a descendant outside its group may hold them).
    static let drainAfterExit: TimeInterval = 1

    static func run(
        path: String, arguments: [String], environment: [String], input: Data, _ limits: Limits
    ) -> Swift.Result<Result, StartError> {
        // A closed stdin must be EPIPE, not a signal that kills us (the child gets SIGPIPE's default back).
        signal(SIGPIPE, SIG_IGN)
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var fds: [Int32] = [-1, -1]
            guard LibC.pipeCloseOnExec(&fds) == 0 else {
                let code = errno
                pipes.joined().forEach { _ = close($0) }
                return .failure(StartError(code: code))
            }
            pipes.append(fds)
        }
        let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
        // A program written a moment ago can be "text file busy" for an instant (another process forked while
        // its writer's descriptor was open): a few short retries, as the challenge solver does.
        var attempt = 0
        var spawned = spawn(
            path: path, arguments: arguments, environment: environment, stdio: (stdin[0], stdout[1], stderr[1]))
        while case .failure(let error) = spawned, error.code == ETXTBSY, attempt < 5 {
            attempt += 1
            usleep(useconds_t(20_000 * attempt))
            spawned = spawn(
                path: path, arguments: arguments, environment: environment, stdio: (stdin[0], stdout[1], stderr[1]))
        }
        for fd in [stdin[0], stdout[1], stderr[1]] { close(fd) }
        guard case .success(let pid) = spawned else {
            for fd in [stdin[1], stdout[0], stderr[0]] { close(fd) }
            if case .failure(let error) = spawned { return .failure(error) }
            return .failure(StartError(code: EINVAL))
        }
        var loop = Loop(pid: pid, stdin: stdin[1], stdout: stdout[0], stderr: stderr[0], input: input, limits: limits)
        return .success(loop.run())
    }

    /// Starts the program in a process group of its own with the three descriptors as 0, 1, 2.
    static func spawn(
        path: String, arguments: [String], environment: [String], stdio: (Int32, Int32, Int32)
    ) -> Swift.Result<pid_t, StartError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdio.0, 0)
        posix_spawn_file_actions_adddup2(&actions, stdio.1, 1)
        posix_spawn_file_actions_adddup2(&actions, stdio.2, 2)
        LibC.addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        return code == 0 ? .success(pid) : .failure(StartError(code: code))
    }

    /// The poll loop of one running child.
    struct Loop {
        let pid: pid_t
        var stdin: Int32?
        var stdout: Int32?
        var stderr: Int32?
        let input: [UInt8]
        var written = 0
        let limits: Limits
        var output = Data()
        var errors = Data()
        var timedOut = false
        var outputExceeded = false

        init(pid: pid_t, stdin: Int32, stdout: Int32, stderr: Int32, input: Data, limits: Limits) {
            self.pid = pid
            self.stdin = stdin
            self.stdout = stdout
            self.stderr = stderr
            self.input = Array(input)
            self.limits = limits
            for fd in [stdin, stdout, stderr] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
            if self.input.isEmpty { closeStdin() }
        }

        mutating func run() -> Result {
            let start = Self.now()
            let deadline = start + limits.timeout
            var terminatedAt: TimeInterval?
            var killed = false
            var exitedAt: TimeInterval?
            while true {
                let now = Self.now()
                if exitedAt == nil, hasExited() {
                    exitedAt = now
                    // Whatever the program left behind in its group goes with it; the pipes keep what was written.
                    kill(-pid, SIGKILL)
                }
                if let exitedAt, (stdout == nil && stderr == nil) || now >= exitedAt + GeneratorProcess.drainAfterExit {
                    break
                }
                if exitedAt == nil {
                    if !timedOut, now >= deadline {
                        timedOut = true
                        terminatedAt = now
                        kill(-pid, SIGTERM)
                    }
                    if let terminatedAt, !killed, now >= terminatedAt + limits.killGrace {
                        killed = true
                        kill(-pid, SIGKILL)
                    }
                }
                pollOnce(milliseconds: 20)
                if outputExceeded, !killed {
                    killed = true
                    kill(-pid, SIGKILL)
                }
            }
            for fd in [stdin, stdout, stderr].compactMap({ $0 }) { close(fd) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            let signal = status & 0x7f
            let termination: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
            return Result(
                termination: termination, output: output, errors: errors, timedOut: timedOut,
                outputExceeded: outputExceeded)
        }

        /// Whether the child has exited, without reaping it (its pid, and so its group id, stay reserved).
        func hasExited() -> Bool {
            var info = siginfo_t()
            let rc = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            return rc == -1 ? errno != EINTR : info.si_signo == SIGCHLD
        }

        mutating func pollOnce(milliseconds: Int32) {
            var fds = [stdin, stdout, stderr].compactMap { $0 }.map { fd in
                pollfd(fd: fd, events: Int16(fd == stdin ? POLLOUT : POLLIN), revents: 0)
            }
            guard !fds.isEmpty else {
                usleep(useconds_t(milliseconds) * 1000)
                return
            }
            guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return }
            for entry in fds where entry.revents != 0 {
                if entry.fd == stdin {
                    writeInput()
                } else if entry.fd == stdout {
                    readOutput()
                } else {
                    readErrors()
                }
            }
        }

        mutating func writeInput() {
            guard let fd = stdin else { return }
            let count = input[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count > 0 { written += count }
            if written >= input.count || (count < 0 && errno != EAGAIN && errno != EINTR) { closeStdin() }
        }

        mutating func closeStdin() {
            if let fd = stdin { close(fd) }
            stdin = nil
        }

        mutating func readOutput() {
            guard let fd = stdout else { return }
            switch Self.read(fd, room: limits.maxOutput + 1 - output.count) {
            case .data(let bytes):
                output.append(contentsOf: bytes)
                if output.count > limits.maxOutput {
                    outputExceeded = true
                    close(fd)
                    stdout = nil
                }
            case .again: break
            case .end:
                close(fd)
                stdout = nil
            }
        }

        mutating func readErrors() {
            guard let fd = stderr else { return }
            switch Self.read(fd, room: 16 * 1024) {
            case .data(let bytes): errors.append(contentsOf: bytes.prefix(max(0, limits.maxErrors - errors.count)))
            case .again: break
            case .end:
                close(fd)
                stderr = nil
            }
        }

        enum Read {
            case data([UInt8])
            case again
            case end
        }

        static func read(_ fd: Int32, room: Int) -> Read {
            var buffer = [UInt8](repeating: 0, count: max(1, min(room, 64 * 1024)))
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 { return .data(Array(buffer[..<count])) }
            if count < 0, errno == EAGAIN || errno == EINTR { return .again }
            return .end
        }

        static func now() -> TimeInterval {
            TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
        }
    }
}
