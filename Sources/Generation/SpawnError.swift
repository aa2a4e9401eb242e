#if canImport(Glibc)
    import Glibc
#endif

/// A program that did not start: the error number and what it means, in words (no raw system text).
package struct SpawnError: Error, Sendable, CustomStringConvertible {
    /// The `errno`-style code (`ENOENT`, `ETXTBSY` …).
    package var code: Int32
    package var description: String

    package init(code: Int32, description: String) {
        self.code = code
        self.description = description
    }

    /// A failure of `posix_spawn` for `program` (started in `directory`, if any).
    init(code: Int32, program: String, directory: String?) {
        let what: String
        switch code {
        case ENOENT:
            what =
                directory.map { "it, its #! interpreter or the directory \($0) does not exist" }
                ?? "it or its #! interpreter does not exist"
        case ENOTDIR: what = "a part of its path (or of the working directory) is not a directory"
        case EACCES: what = "permission denied"
        case ENOEXEC: what = "it is not a program the system can run (a script needs a #! line)"
        case ETXTBSY: what = "the file is still open for writing"
        default: what = Self.words(code)
        }
        self.init(code: code, description: "\(program) could not start: \(what)")
    }

    /// A failure of a step before the spawn itself.
    init(code: Int32, while step: String) {
        self.init(code: code, description: "\(step) failed: \(Self.words(code))")
    }

    static func words(_ code: Int32) -> String {
        switch code {
        case EMFILE, ENFILE: return "too many open files"
        case EAGAIN: return "too many processes"
        case ENOMEM: return "out of memory"
        default: return "system error \(code)"
        }
    }
}
