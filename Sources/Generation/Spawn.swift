import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starting a program with `posix_spawn`: the one way this package starts processes (command generators, the
/// challenge solver's command, test support).
///
/// Never `Foundation.Process`: on Linux its `run()` crashes intermittently inside a `memcpy`
/// (swift-corelibs-foundation PR #5472: `findMaximumOpenFromProcSelfFD()` copies all 256 bytes of `d_name` out of
/// the last `readdir` record of glibc's buffer, and the page after it may be unmapped; the more descriptors are
/// open, the likelier). It also cannot put the child in a process group of its own, so a timeout could kill the
/// program but not its children, and it reads pipes on threads of its own with no byte limit.
///
/// Here: the child gets exactly the environment given (and, for a program run for the engine, `SPAWNED_BY_MOLTIPASS`: `Descendants`);
/// every descriptor other than its stdin, stdout and stderr is
/// closed in it (`addclosefrom_np`; the pipes are close-on-exec anyway); the signals a parent commonly ignores or
/// blocks (SIGPIPE, SIGCHLD …) are back at their defaults with an empty mask; optionally it leads a new process
/// group, so `kill(-pid, …)` reaches its descendants. A program that is "text file busy" for an instant (written a
/// moment ago while another process forked) is retried a few times.
package enum Spawn {
    /// Where one of the child's stdin, stdout and stderr goes.
    package enum Stdio: Sendable {
        /// A new pipe; the parent's end is `SpawnedProcess.stdin` (for writing), `.stdout` or `.stderr` (for
        /// reading).
        case pipe
        /// This descriptor of the parent (an opened file, say), duplicated into the child; the caller still owns
        /// and closes it.
        case descriptor(Int32)
        /// `/dev/null`.
        case null
    }

    /// How a child is started, beside its program, arguments and environment.
    package struct Options: Sendable {
        /// The child's working directory (default: the parent's).
        package var directory: String?
        package var stdin: Stdio
        package var stdout: Stdio
        package var stderr: Stdio
        /// Whether the child leads a new process group (whose id is its pid).
        package var newProcessGroup: Bool
        /// Whether a group-leading child carries the `Descendants` tag: a program this process runs for the
        /// engine (a generator, a solver), which `RunningGenerators` and `Descendants` may end. A test's servers
        /// and command lines are not tagged, so a runner in the test process never ends them.
        package var tagsDescendants: Bool

        package init(
            directory: String? = nil, stdin: Stdio = .null, stdout: Stdio = .null, stderr: Stdio = .null,
            newProcessGroup: Bool = false, tagsDescendants: Bool = false
        ) {
            self.directory = directory
            self.stdin = stdin
            self.stdout = stdout
            self.stderr = stderr
            self.newProcessGroup = newProcessGroup
            self.tagsDescendants = tagsDescendants
        }
    }

    /// How a child ended.
    package enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the number of the signal that ended it.
        package var status: Int32 {
            switch self {
            case .exited(let status), .signalled(let status): return status
            }
        }

        /// From a `waitpid` status.
        init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
    }

    /// Starts `path` (an absolute path: no `PATH` search) with `arguments` as its whole argv (`arguments[0]` is
    /// the name it sees) and `environment` as `NAME=value` strings. Pipes asked for in `options` are returned in
    /// the process for the caller to use and close.
    package static func start(
        path: String, arguments: [String], environment: [String], _ options: Options
    ) throws(SpawnError) -> SpawnedProcess {
        if options.directory != nil, !LibC.canChangeDirectory {
            throw SpawnError(
                code: ENOSYS,
                description:
                    "this C library cannot start a program in another directory "
                    + "(posix_spawn_file_actions_addchdir_np needs glibc 2.29 or later)")
        }
        // The parent's end of each pipe (stdin: the write end; stdout, stderr: the read end) and the child's.
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = [-1, -1, -1]
        func closeAll() {
            for fd in parentEnds.compactMap({ $0 }) + childEnds where fd >= 0 { close(fd) }
        }
        for (index, stdio) in [options.stdin, options.stdout, options.stderr].enumerated() {
            guard case .pipe = stdio else { continue }
            var fds: [Int32] = [-1, -1]
            guard LibC.pipeCloseOnExec(&fds) == 0 else {
                let code = errno
                closeAll()
                throw SpawnError(code: code, while: "creating a pipe")
            }
            parentEnds[index] = index == 0 ? fds[1] : fds[0]
            childEnds[index] = index == 0 ? fds[0] : fds[1]
        }
        let stdio = [options.stdin, options.stdout, options.stderr].enumerated().map { index, stdio -> Stdio in
            if case .pipe = stdio { return .descriptor(childEnds[index]) }
            return stdio
        }
        // A program that leads its own group carries a tag its descendants inherit, so that those that leave the
        // group (`setsid`) are found too (`Descendants`).
        let tag = options.newProcessGroup && options.tagsDescendants ? Descendants.newTag() : nil
        let environment = environment + (tag.map { ["\(Descendants.variable)=\($0)"] } ?? [])
        var pid = pid_t()
        var code = spawnOnce(&pid, path: path, arguments: arguments, environment: environment, stdio: stdio, options)
        var attempt = 0
        while code == ETXTBSY, attempt < 5 {
            attempt += 1
            usleep(useconds_t(20_000 * attempt))
            code = spawnOnce(&pid, path: path, arguments: arguments, environment: environment, stdio: stdio, options)
        }
        for fd in childEnds where fd >= 0 { close(fd) }
        childEnds = [-1, -1, -1]
        guard code == 0 else {
            closeAll()
            throw SpawnError(code: code, program: path, directory: options.directory)
        }
        return SpawnedProcess(
            pid: pid, leadsGroup: options.newProcessGroup, tag: tag, stdin: parentEnds[0], stdout: parentEnds[1],
            stderr: parentEnds[2])
    }

    /// One `posix_spawn` with `stdio` as the child's 0, 1 and 2: 0, or an error number.
    private static func spawnOnce(
        _ pid: inout pid_t, path: String, arguments: [String], environment: [String], stdio: [Stdio],
        _ options: Options
    ) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stdio) in stdio.enumerated() {
            switch stdio {
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, Int32(target))
            case .null:
                posix_spawn_file_actions_addopen(
                    &actions, Int32(target), "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .pipe: preconditionFailure("pipes are descriptors by now")
            }
        }
        LibC.addCloseFrom(&actions, 3)
        if let directory = options.directory {
            let code = LibC.addChdir(&actions, directory)
            guard code == 0 else { return code }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if options.newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    }

    /// `variables` as the sorted `NAME=value` strings `start` takes.
    package static func environment(_ variables: [String: String]) -> [String] {
        variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Monotonic seconds, for deadlines.
    static func now() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }
}
