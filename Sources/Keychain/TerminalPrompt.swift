import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A no-echo prompt on the controlling terminal (`/dev/tty`), so stdin stays free for data
/// such as a key piped into `keys add`.
public enum TerminalPrompt {
    /// Longest accepted line.
    static let maximumLength = 4096

    /// Whether a person is there to answer: a controlling terminal exists and stdin or stderr
    /// is attached to a terminal. False under cron, in a container without `-t`, in CI.
    public static var isAvailable: Bool {
        guard isatty(STDIN_FILENO) == 1 || isatty(STDERR_FILENO) == 1 else { return false }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Writes `message` to the terminal, reads one line with echo off, restores the terminal.
    public static func readSecret(_ message: String) throws -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw KeychainError.promptFailed(reason: "no terminal (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw KeychainError.promptFailed(reason: "not a terminal") }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        write(fd, message)
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else {
            throw KeychainError.promptFailed(reason: "cannot turn echo off")
        }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &original)
            write(fd, "\n")
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if line.isEmpty { throw KeychainError.promptFailed(reason: "end of input") }
                break
            }
            if byte == 0x0A { break }
            guard line.count < maximumLength else { throw KeychainError.promptFailed(reason: "line too long") }
            line.append(byte)
        }
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes {
            #if canImport(Glibc)
                Glibc.write(fd, $0.baseAddress, $0.count)
            #else
                Darwin.write(fd, $0.baseAddress, $0.count)
            #endif
        }
    }
}
