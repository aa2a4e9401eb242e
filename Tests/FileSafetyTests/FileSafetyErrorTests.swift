import FileSafety
import Foundation
import Testing

/// Every file error reads as plain English: the path, what failed, the system's words for why.
@Suite struct FileSafetyErrorTests {
    /// Each case's description, exactly.
    @Test(arguments: [
        (FileSafetyError.notFound(path: "/s/keys"), "/s/keys does not exist"),
        (.notARegularFile(path: "/s/keys"), "/s/keys is not a regular file"),
        (
            .insecurePermissions(path: "/s/keys", mode: 0o644),
            "refusing to use /s/keys: it is accessible by group or others (mode 0644); fix it with: chmod 600 /s/keys"
        ),
        (
            .tooLarge(path: "/s/keys", size: 11, limit: 10),
            "refusing to read /s/keys: 11 bytes is over the 10-byte limit"
        ),
        (.lockTimeout(path: "/s/state.lock", timeout: 5), "/s/state.lock stayed locked by another process for 5 s"),
        (.system(.creating, path: "/s/x", errno: EACCES), "creating /s/x failed: Permission denied"),
        (.system(.renaming, path: "/s/x", errno: EXDEV), "renaming onto /s/x failed: Invalid cross-device link"),
        (.system(.syncing, path: "/s", errno: EIO), "syncing /s failed: Input/output error"),
        (
            .system(.settingPermissions, path: "/s/x", errno: EPERM),
            "setting permissions on /s/x failed: Operation not permitted"
        ),
    ])
    func plainDescription(error: FileSafetyError, expected: String) {
        #expect(error.description == expected)
        #expect(!error.description.contains("Error Domain"))
        #expect(!error.description.contains("errno"))
    }

    /// The chmod hint can be pasted into a shell whatever the path holds.
    @Test(arguments: [
        ("/home/me/.config/moltipass/keys.moltipass", "chmod 600 /home/me/.config/moltipass/keys.moltipass"),
        ("/tmp/my keys", "chmod 600 '/tmp/my keys'"),
        ("/tmp/it's", "chmod 600 '/tmp/it'\\''s'"),
        ("/tmp/$HOME;rm", "chmod 600 '/tmp/$HOME;rm'"),
    ])
    func chmodHintQuoted(path: String, hint: String) {
        #expect(FileSafetyError.chmodHint(for: path) == hint)
    }
}
