import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The generator programs this process is running, for a runner that stops: a daemon told to stop ends them
/// rather than leave them behind. Each leads a process group of its own (so that a timeout reaches its children),
/// which also keeps the signal that stops the daemon from reaching it: a program that hangs would outlive the
/// daemon for good, one that takes long would go on with nobody to read its text.
///
/// They are found as this process's children that lead their own process group, carry its `Descendants` tag and
/// have not exited (Linux' `/proc`), so no spawn has to register them: between the look and the signal such a child is not reaped by the
/// run that started it (it reaps only after killing the group), so its pid, the group's id, is not anyone else's.
public enum RunningGenerators {
    /// The process groups of the programs running now (their leaders' pids).
    public static var groups: [pid_t] {
        let parent = getpid()
        // Only the programs run for the engine (tagged): not a test's servers and command lines, which also lead
        // groups of their own when the test process hosts a runner.
        let marker = Array("\(Descendants.variable)=\(parent).".utf8)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let name = stat.lastIndex(of: ")")
            else { return false }
            // After the name: state, parent pid, process group, …
            let fields = stat[stat.index(after: name)...].split(separator: " ")
            guard fields.count > 2 else { return false }
            return fields[0] != "Z" && fields[0] != "X" && pid_t(fields[1]) == parent && pid_t(fields[2]) == pid
                && Descendants.carries(marker, pid: pid, prefix: true)
        }
        .sorted()
    }

    /// Sends SIGTERM to every running program's process group and SIGKILL `grace` seconds later to those still
    /// running; returns when none runs, or a second after the SIGKILL. The runs that started them answer
    /// "was killed by signal N".
    public static func stop(grace: TimeInterval = 2) async {
        signal(SIGTERM)
        if await wait(seconds: grace) {
            Descendants.killAll()
            return
        }
        signal(SIGKILL)
        _ = await wait(seconds: 1)
        Descendants.killAll()
    }

    /// SIGKILLs every running program's group and whatever left a group (`Descendants`) at once: a `run --once`
    /// told to stop, which leaves with `_exit` right after.
    public static func killNow() {
        signal(SIGKILL)
        Descendants.killAll()
    }

    private static func signal(_ signal: Int32) {
        for group in groups { kill(-group, signal) }
    }

    /// Whether no program runs within `seconds`.
    private static func wait(seconds: TimeInterval) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while !groups.isEmpty {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
