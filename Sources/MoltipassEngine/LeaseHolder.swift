import Foundation

/// Who holds an account's lease, and whether that holder is a process that no longer exists.
///
/// A holder is `KIND-PID-RANDOM@MACHINE` (`once-4121-9f3a61c2@1c0e9a47.4026531836`). `MACHINE` is
/// the kernel's boot id (first 8 hex digits) and the PID namespace's inode: two processes with
/// the same `MACHINE` see the same process table, so one can ask the kernel whether the other's
/// PID still exists. A `run --once` killed by SIGKILL or the OOM killer leaves its lease behind;
/// the next run on the same machine takes it over at once instead of waiting out the lease's
/// time to live (10 minutes: two skipped cron runs at a 5-minute interval).
///
/// Only a definite "no such process" counts as dead. A holder from another machine, another PID
/// namespace (a container sharing the state volume), an older holder format, or a PID that exists
/// (even reused by an unrelated process) is treated as alive: its lease is left to expire.
public enum LeaseHolder {
    /// A new holder name for this process: `once-…` for `run --once`, `daemon-…` for the daemon.
    public static func make(_ kind: String) -> String {
        let base = "\(kind)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8).lowercased())"
        return machine.map { base + "@" + $0 } ?? base
    }

    /// This machine's identity as holders spell it; nil where `/proc` does not say (then no
    /// lease is ever taken over).
    public static let machine: String? = {
        guard
            let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
            let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")
        else { return nil }
        // "pid:[4026531836]" → "4026531836"
        let inode = namespace.filter(\.isNumber)
        let bootPrefix = boot.trimmingCharacters(in: .whitespacesAndNewlines).prefix(8)
        guard bootPrefix.count == 8, !inode.isEmpty else { return nil }
        return "\(bootPrefix).\(inode)"
    }()

    /// The PID and machine of a holder name, if it has the current format.
    static func parse(_ holder: String) -> (pid: Int32, machine: String)? {
        let parts = holder.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        let fields = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, let pid = Int32(fields[1]), pid > 0 else { return nil }
        return (pid, String(parts[1]))
    }

    /// Whether `holder` names a process of this machine that no longer exists.
    public static func isDeadLocalProcess(_ holder: String) -> Bool {
        isDead(holder, machine: machine) { pid in
            kill(pid, 0) == 0 || errno != ESRCH
        }
    }

    /// The decision, with the machine and the process lookup as parameters (for tests).
    static func isDead(_ holder: String, machine: String?, exists: (Int32) -> Bool) -> Bool {
        guard let machine, let (pid, theirs) = parse(holder), theirs == machine else { return false }
        guard pid != ProcessInfo.processInfo.processIdentifier else { return false }
        return !exists(pid)
    }
}
