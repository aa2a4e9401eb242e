import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run of a generator program with bounded time and output, the plumbing under `CommandGenerator` (blocking:
/// call it from a thread of its own).
///
/// `Spawn` starts it (see there why not `Foundation.Process`): a new process group, so a timeout's
/// `kill(-pid, …)` reaches its descendants (a model server client, a `sleep`); default signals; no descriptor but
/// the three pipes; exactly the environment given. One poll loop (`SpawnedProcess.collect`) writes stdin, reads
/// stdout (stopping at the limit) and stderr, and watches the clock; when the program exits, whatever it left in
/// its group is killed; the child is only reaped after that, so its pid cannot be reused meanwhile.
enum GeneratorProcess {
    typealias Limits = Spawn.Limits
    typealias Termination = Spawn.Termination
    typealias Result = Spawn.Completed

    /// Why the program did not start, in words (no raw system text).
    struct StartError: Error, CustomStringConvertible {
        var code: Int32
        var description: String {
            switch code {
            case ENOEXEC: return "it is not a program the system can run (a script needs a #! line)"
            case ENOENT: return "its interpreter (the #! line) was not found"
            case EACCES: return "permission denied"
            case ETXTBSY: return "the file is still open for writing"
            default: return SpawnError.words(code)
            }
        }
    }

    static func run(
        path: String, arguments: [String], environment: [String], input: Data, _ limits: Limits
    ) -> Swift.Result<Result, StartError> {
        do {
            return .success(
                try Spawn.run(path: path, arguments: arguments, environment: environment, input: input, limits))
        } catch {
            return .failure(StartError(code: error.code))
        }
    }
}
