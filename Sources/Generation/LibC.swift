import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Three glibc functions the Swift Glibc module does not import (they sit behind `_GNU_SOURCE`), found at run time
/// with their C signatures; each says what happens on a libc without it.
enum LibC {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32

    private static let pipe2: Pipe2? = dlsym(nil, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
    private static let addCloseFromNP: AddCloseFrom? = dlsym(
        nil, "posix_spawn_file_actions_addclosefrom_np"
    ).map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChdirNP: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: AddChdir.self)
    }

    /// A pipe whose two ends are close-on-exec (atomically with `pipe2`, else set right after `pipe`).
    static func pipeCloseOnExec(_ fds: inout [Int32]) -> Int32 {
        if let pipe2 { return fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, O_CLOEXEC) } }
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return 0
    }

    /// Closes every descriptor from `lowest` up in the child (glibc 2.34+); without it, close-on-exec suffices
    /// for the descriptors this program opens.
    static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        if let addCloseFromNP { _ = addCloseFromNP(&actions, lowest) }
    }

    /// Whether the child's working directory can be set (`posix_spawn_file_actions_addchdir_np`, glibc 2.29+).
    static var canChangeDirectory: Bool { addChdirNP != nil }

    /// Makes the child change to `directory` before it runs the program: 0, or an error number (`ENOSYS` on a
    /// libc without the function).
    static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Int32 {
        guard let addChdirNP else { return ENOSYS }
        return directory.withCString { addChdirNP(&actions, $0) }
    }
}
