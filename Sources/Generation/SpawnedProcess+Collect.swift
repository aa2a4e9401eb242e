import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Spawn {
    /// Bounds of one run to completion.
    package struct Limits: Sendable {
        /// From the start until SIGTERM to the child's group.
        package var timeout: TimeInterval
        /// From SIGTERM until SIGKILL.
        package var killGrace: TimeInterval
        /// Stdout beyond this many bytes stops the run (the group is killed; `outputExceeded`).
        package var maxOutput: Int
        /// Stderr beyond this many bytes is read and dropped.
        package var maxErrors: Int
        /// Whether what is left of the child's group is killed as soon as the child exits (a generator's), or left
        /// running (an operator's solver, a test's program).
        package var killGroupOnExit: Bool
        /// How long the pipes are still read after the child exited (a descendant may hold them open).
        package var drainAfterExit: TimeInterval

        package init(
            timeout: TimeInterval, killGrace: TimeInterval, maxOutput: Int, maxErrors: Int,
            killGroupOnExit: Bool = true, drainAfterExit: TimeInterval = 1
        ) {
            self.timeout = timeout
            self.killGrace = killGrace
            self.maxOutput = maxOutput
            self.maxErrors = maxErrors
            self.killGroupOnExit = killGroupOnExit
            self.drainAfterExit = drainAfterExit
        }
    }

    /// What a run to completion left behind.
    package struct Completed: Sendable {
        package var termination: Termination
        package var output: Data
        package var errors: Data
        /// The timeout passed and the child was killed.
        package var timedOut: Bool
        /// Stdout passed `maxOutput` and the child was killed.
        package var outputExceeded: Bool
    }

    /// Starts `path` with its stdin, stdout and stderr as pipes, in a process group of its own, and runs it to
    /// completion (`SpawnedProcess.collect`). Blocking: call it from a thread of its own.
    package static func run(
        path: String, arguments: [String], environment: [String], directory: String? = nil, input: Data,
        _ limits: Limits
    ) throws(SpawnError) -> Completed {
        let options = Options(
            directory: directory, stdin: .pipe, stdout: .pipe, stderr: .pipe, newProcessGroup: true,
            tagsDescendants: true)
        return try start(path: path, arguments: arguments, environment: environment, options).collect(
            input: input, limits)
    }
}

extension SpawnedProcess {
    /// Writes `input` to the child's stdin pipe and closes it, reads its stdout and stderr pipes (those it has),
    /// and returns once it exited and was reaped: at the timeout its group (or, without one, the child) gets
    /// SIGTERM, then SIGKILL after the grace. One poll loop on this thread; closes the pipes. Call it once.
    package func collect(input: Data, _ limits: Spawn.Limits) -> Spawn.Completed {
        // A closed stdin must be EPIPE, not a signal that kills us (the child gets SIGPIPE's default back).
        if stdin != nil { signal(SIGPIPE, SIG_IGN) }
        var loop = CollectLoop(process: self, input: input, limits: limits)
        return loop.run()
    }
}

/// The poll loop of one child being run to completion.
struct CollectLoop {
    let process: SpawnedProcess
    var stdin: Int32?
    var stdout: Int32?
    var stderr: Int32?
    let input: [UInt8]
    var written = 0
    let limits: Spawn.Limits
    var output = Data()
    var errors = Data()
    var timedOut = false
    var outputExceeded = false

    init(process: SpawnedProcess, input: Data, limits: Spawn.Limits) {
        self.process = process
        stdin = process.stdin
        stdout = process.stdout
        stderr = process.stderr
        self.input = Array(input)
        self.limits = limits
        for fd in [stdin, stdout, stderr].compactMap({ $0 }) {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        if self.input.isEmpty { closeStdin() }
    }

    mutating func run() -> Spawn.Completed {
        let deadline = Spawn.now() + limits.timeout
        var terminatedAt: TimeInterval?
        var killed = false
        var exitedAt: TimeInterval?
        while true {
            let now = Spawn.now()
            if exitedAt == nil, SpawnedProcess.hasExited(process.pid) {
                exitedAt = now
                // Whatever the program left behind in its group goes with it; the pipes keep what was written.
                if limits.killGroupOnExit, process.leadsGroup { process.send(SIGKILL, toGroup: true) }
            }
            if let exitedAt, (stdout == nil && stderr == nil) || now >= exitedAt + limits.drainAfterExit {
                break
            }
            if exitedAt == nil {
                if !timedOut, now >= deadline {
                    timedOut = true
                    terminatedAt = now
                    process.send(SIGTERM, toGroup: true)
                }
                if let terminatedAt, !killed, now >= terminatedAt + limits.killGrace {
                    killed = true
                    process.send(SIGKILL, toGroup: true)
                }
            }
            pollOnce(milliseconds: 20)
            if outputExceeded, !killed {
                killed = true
                process.send(SIGKILL, toGroup: true)
            }
        }
        for fd in [stdin, stdout, stderr].compactMap({ $0 }) { close(fd) }
        // What left the group (a `setsid` grandchild) goes too, once the program has exited or been killed.
        if limits.killGroupOnExit || timedOut || killed, let tag = process.tag { Descendants.kill(tag: tag) }
        return Spawn.Completed(
            termination: process.wait(), output: output, errors: errors, timedOut: timedOut,
            outputExceeded: outputExceeded)
    }

    mutating func pollOnce(milliseconds: Int32) {
        var fds = [stdin, stdout, stderr].compactMap { $0 }.map { fd in
            pollfd(fd: fd, events: Int16(fd == stdin ? POLLOUT : POLLIN), revents: 0)
        }
        guard !fds.isEmpty else {
            // Only the exit is left to notice: look often, so a run ends soon after its program.
            usleep(1_000)
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
        switch Self.read(fd, room: 64 * 1024) {
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
}
