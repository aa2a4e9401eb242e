import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The processes a child left behind outside its process group: a `setsid` or double-forked grandchild is in a
/// session of its own, so the group's SIGKILL misses it and it outlived the run (issue 34, observation 8).
///
/// Every program run for the engine (a generator, a solver: `Spawn.run`) is started with `SPAWNED_BY_MOLTIPASS=PID.N`
/// in its environment, which its descendants inherit whatever group or session they move to; they are found by that variable in Linux' `/proc`
/// (`/proc/PID/environ` is readable for this user's own processes only, which is all we may signal anyway). A
/// program that starts its descendants with an environment of its own choosing escapes this: run such a program
/// under a service manager that ends its control group (docs/generators.md).
package enum Descendants {
    /// The variable that marks a child's descendants.
    package static let variable = "SPAWNED_BY_MOLTIPASS"

    private static let counter = Atomic<Int>(0)

    /// A new tag, unique within this process and across processes (it starts with our pid).
    package static func newTag() -> String {
        "\(getpid()).\(counter.wrappingAdd(1, ordering: .relaxed).newValue)"
    }

    /// SIGKILLs every process of ours whose environment carries `tag` (or, with `prefix`, any tag that starts with
    /// it), a few rounds while new ones appear (a program that forks as it dies); how many were signalled.
    @discardableResult
    package static func kill(tag: String, prefix: Bool = false) -> Int {
        let marker = Array("\(variable)=\(tag)".utf8)
        let me = getpid()
        var signalled = 0
        for _ in 0..<5 {
            let found = processes { $0 != me && carries(marker, pid: $0, prefix: prefix) }
            guard !found.isEmpty else { break }
            for pid in found where Glibc.kill(pid, SIGKILL) == 0 { signalled += 1 }
        }
        return signalled
    }

    /// Kills what every child of this process left behind (a runner that stops).
    @discardableResult
    package static func killAll() -> Int { kill(tag: "\(getpid()).", prefix: true) }

    /// The live (not zombie) processes in `/proc` that satisfy `test`.
    static func processes(_ test: (pid_t) -> Bool) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard test(pid), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let name = stat.lastIndex(of: ")")
            else { return false }
            let state = stat[stat.index(after: name)...].split(separator: " ").first
            return state != "Z" && state != "X"
        }
    }

    /// Whether `/proc/PID/environ` holds `marker` as one whole variable (or, with `prefix`, one that starts so).
    static func carries(_ marker: [UInt8], pid: pid_t, prefix: Bool) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        return data.split(separator: 0, omittingEmptySubsequences: true).contains { entry in
            prefix ? entry.starts(with: marker) : entry.elementsEqual(marker)
        }
    }
}
