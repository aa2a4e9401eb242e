import Foundation
import Generation
import MoltipassTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `Spawn`, the posix_spawn runner every child of this package is started with (never `Foundation.Process`, whose
/// `run()` crashes intermittently on Linux), and the test support on top of it.
@Suite("Spawn")
struct SpawnTests {
    static let environment = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"]

    /// Runs `script` with `/bin/sh -c` to completion (off the cooperative pool) with `options`' directory.
    static func shell(_ script: String, directory: String? = nil, input: Data = Data()) async throws
        -> Spawn.Completed
    {
        try await offloaded {
            try Spawn.run(
                path: "/bin/sh", arguments: ["sh", "-c", script], environment: environment, directory: directory,
                input: input, Spawn.Limits(timeout: 20, killGrace: 1, maxOutput: 1 << 20, maxErrors: 4096))
        }
    }

    /// A descriptor of this process that is not close-on-exec is closed in the child; the child's own three are
    /// there.
    @Test func childInheritsNoDescriptor() async throws {
        let leaked = open("/dev/null", O_RDONLY)
        #expect(leaked > 2)
        defer { close(leaked) }
        #expect(fcntl(leaked, F_GETFD) & FD_CLOEXEC == 0)
        let result = try await Self.shell(
            "for fd in 0 1 2 \(leaked); do [ -e /proc/$$/fd/$fd ] && echo \"$fd open\" || echo \"$fd closed\"; done")
        #expect(result.termination == .exited(0))
        #expect(String(decoding: result.output, as: UTF8.self) == "0 open\n1 open\n2 open\n\(leaked) closed\n")
    }

    /// The child starts in the directory asked for, gets exactly the environment given and its stdin.
    @Test func directoryEnvironmentAndInput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await Self.shell(
            "pwd; env | sort | grep -v '^PWD=\\|^SHLVL=\\|^_=\\|^SPAWNED_BY_MOLTIPASS='; cat; echo \"tag $SPAWNED_BY_MOLTIPASS\"",
            directory: directory.path, input: Data("from stdin\n".utf8))
        let real = URL(fileURLWithPath: directory.path).resolvingSymlinksInPath().path
        // Beside what was given, only the tag that finds its descendants (`Descendants`): this process's pid first.
        let expected = "\(real)\nLANG=C.UTF-8\nPATH=/usr/bin:/bin\nfrom stdin\ntag " + String(getpid()) + "."
        #expect(String(decoding: result.output, as: UTF8.self).hasPrefix(expected))
    }

    /// A directory that does not exist: the start fails in words that name it.
    @Test func missingDirectoryFailsToStart() throws {
        let missing = "/nonexistent/\(UUID().uuidString)"
        let error = #expect(throws: SpawnError.self) {
            try Spawn.start(
                path: "/bin/true", arguments: ["true"], environment: Self.environment,
                Spawn.Options(directory: missing))
        }
        #expect(error?.code == ENOENT)
        #expect(error?.description.contains(missing) == true, "\(String(describing: error))")
    }

    /// A descriptor passed in (an opened file) becomes the child's stdout.
    @Test func descriptorAsStdout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("out.txt").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        let child = try Spawn.start(
            path: "/bin/sh", arguments: ["sh", "-c", "echo into the file"], environment: Self.environment,
            Spawn.Options(stdout: .descriptor(fd)))
        close(fd)
        let termination = try await offloaded { child.wait() }
        #expect(termination == .exited(0))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "into the file\n")
    }

    /// A running child: `isRunning` until it is signalled, the signal in its termination, and no signal once it was
    /// reaped (its pid may be someone else's by then).
    @Test func signalWaitAndReap() async throws {
        let child = try Spawn.start(
            path: "/bin/sleep", arguments: ["sleep", "60"], environment: Self.environment,
            Spawn.Options(newProcessGroup: true))
        #expect(child.isRunning)
        #expect(getpgid(child.pid) == child.pid)
        #expect(child.send(SIGTERM))
        let termination = try await offloaded { child.wait() }
        #expect(termination == .signalled(SIGTERM))
        #expect(termination.status == SIGTERM)
        #expect(!child.isRunning)
        #expect(child.termination == .signalled(SIGTERM))
        #expect(!child.send(SIGKILL))
    }

    /// A signal to the group reaches the child's own children; without a group of its own the child shares ours.
    @Test func groupSignalReachesDescendants() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.file("grandchild.pid").path
        let child = try Spawn.start(
            path: "/bin/sh", arguments: ["sh", "-c", "sleep 60 & echo $! > '\(pidFile)'; wait"],
            environment: Self.environment, Spawn.Options(newProcessGroup: true))
        let grandchild = try await offloaded { () -> pid_t? in
            for _ in 0..<1_000 {
                if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), text.hasSuffix("\n") {
                    return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                usleep(5_000)
            }
            return nil
        }
        let pid = try #require(grandchild)
        #expect(child.send(SIGKILL, toGroup: true))
        #expect(try await offloaded { child.wait() } == .signalled(SIGKILL))
        let gone = try await offloaded { () -> Bool in
            for _ in 0..<1_000 {
                if kill(pid, 0) != 0 { return true }
                usleep(5_000)
            }
            return false
        }
        #expect(gone, "the grandchild \(pid) outlived its group's SIGKILL")

        let sharing = try Spawn.start(
            path: "/bin/true", arguments: ["true"], environment: Self.environment, Spawn.Options())
        #expect(try await offloaded { sharing.wait() } == .exited(0))
    }

    /// Issue 34, observation 8: a program's `setsid` grandchild is in a session of its own, so the group's SIGKILL
    /// missed it and it outlived the run. It carries the program's tag and goes with it, after an exit and after a
    /// timeout alike.
    @Test(arguments: [false, true]) func aSetsidGrandchildGoesWithTheProgram(timesOut: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.path + "/grandchild.pid"
        let script =
            "setsid sh -c 'echo $$ > \(pidFile).tmp; mv \(pidFile).tmp \(pidFile); exec sleep 300' </dev/null >/dev/null 2>&1 &"
            + " while [ ! -s \(pidFile) ]; do sleep 0.01; done; echo started" + (timesOut ? "; exec sleep 300" : "")
        let result = try await offloaded {
            try Spawn.run(
                path: "/bin/sh", arguments: ["sh", "-c", script], environment: Self.environment, input: Data(),
                Spawn.Limits(timeout: timesOut ? 1 : 20, killGrace: 0.5, maxOutput: 1 << 20, maxErrors: 4096))
        }
        #expect(String(decoding: result.output, as: UTF8.self) == "started\n")
        #expect(result.timedOut == timesOut)
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let grandchild = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // It left the program's group and session: only the tag could find it.
        var gone = false
        for _ in 0..<250 where !gone {
            let stat = try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8)
            gone = stat.map { $0.split(separator: ")").last?.split(separator: " ").first == "Z" } ?? true
            if !gone { usleep(20_000) }
        }
        #expect(gone, "the setsid grandchild \(grandchild) still runs")
        if !gone { kill(grandchild, SIGKILL) }
    }

    /// The test support's runner keeps both outputs whole well past the generators' 64 KiB.
    @Test func processRunnerKeepsLargeOutput() async throws {
        let size = 3 << 20
        let result = try await ProcessRunner.runSystem(
            "/bin/sh", ["-c", "head -c \(size) /dev/zero | tr '\\0' o; head -c \(size) /dev/zero | tr '\\0' e >&2"])
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count == size && result.stdout.utf8.allSatisfy { $0 == UInt8(ascii: "o") })
        #expect(result.stderr.utf8.count == size && result.stderr.utf8.allSatisfy { $0 == UInt8(ascii: "e") })
    }

    /// A test's child that outlives its timeout is killed with its group and reported by the signal.
    @Test func processRunnerTimeoutKills() async throws {
        let started = ContinuousClock.now
        let result = try await ProcessRunner.runSystem("/bin/sh", ["-c", "sleep 60; echo late"], timeout: 1)
        #expect(result.status == SIGTERM)
        #expect(result.stdout.isEmpty)
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
