import FileSafety
import Foundation

/// Everything that can go wrong with a key file, its passphrase or an entry.
///
/// Each case carries what a person needs to act (the path, the `chmod` that fixes it, the
/// limit that was crossed). No case carries a key or a passphrase, so `description` is safe
/// to print and log.
public enum KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The one error for a wrong passphrase and for any change to an authenticated byte.
    case wrongPassphraseOrModified(path: String)
    /// The file does not start with the keychain magic (or is too short to hold it).
    case notAKeychain(path: String)
    /// The header is structurally broken: truncated, an impossible length, a bad salt size.
    case malformedHeader(path: String, detail: String)
    /// The file was written by a newer format version.
    case unsupportedVersion(path: String, version: UInt8)
    /// The header names a key-derivation function this build does not know.
    case unsupportedKDF(path: String, id: UInt8)
    /// The header names a cipher this build does not know.
    case unsupportedCipher(path: String, id: UInt8)
    /// The header's KDF parameters are outside the accepted bounds; nothing was derived.
    case kdfParametersOutOfBounds(path: String, detail: String)
    /// KDF parameters given for a new file are outside the accepted bounds.
    case invalidKDFParameters(detail: String)
    /// No file at the path.
    case fileNotFound(path: String)
    /// The passphrase file named by the flag or `MOLTIPASS_PASSPHRASE_FILE` does not exist.
    case missingPassphraseFile(path: String)
    /// `create` was asked to create a file that already exists.
    case alreadyExists(path: String)
    /// The path is a directory, device, socket or FIFO.
    case notARegularFile(path: String)
    /// The file (key file or passphrase file) is readable or writable by group or others.
    case insecurePermissions(path: String, mode: UInt32, what: String)
    /// The file is larger than the cap; it was not read.
    case fileTooLarge(path: String, size: Int, limit: Int)
    /// An entry with this name exists and `replace` was not given.
    case entryExists(name: String, path: String)
    /// No entry with this name.
    case entryNotFound(name: String, path: String)
    /// A model key with this name exists and `replace` was not given.
    case modelKeyExists(name: String, path: String)
    /// No model key with this name (an agent entry of that name does not count).
    case modelKeyNotFound(name: String, path: String)
    /// The entry name is not 1–64 letters, digits, `_`, `-` or `.`.
    case invalidEntryName(name: String)
    /// The API key is empty or has characters that cannot go into an HTTP header.
    case unusableKey(name: String)
    /// The model key is empty, too long, or has characters that cannot go into an HTTP header.
    case unusableModelKey(name: String)
    /// No passphrase source was given and there is no terminal to prompt on.
    case noPassphraseSource
    /// The passphrase from this source is empty.
    case emptyPassphrase(source: String)
    /// The passphrase and its confirmation differ.
    case passphraseMismatch
    /// The terminal prompt failed (no `/dev/tty`, read error, end of input).
    case promptFailed(reason: String)
    /// The decrypted entry list is not valid (written by a broken tool).
    case corruptEntries(path: String, detail: String)
    /// A system call failed.
    case io(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .wrongPassphraseOrModified(let path):
            return "cannot open keychain: wrong passphrase or the file was modified (\(path))"
        case .notAKeychain(let path):
            return "cannot open keychain: \(path) is not a moltipass keychain"
        case .malformedHeader(let path, let detail):
            return "cannot open keychain: \(path) has a damaged header (\(detail))"
        case .unsupportedVersion(let path, let version):
            return "cannot open keychain: \(path) uses format version \(version), which this moltipass does not "
                + "support; upgrade moltipass"
        case .unsupportedKDF(let path, let id):
            return "cannot open keychain: \(path) names unknown key-derivation function \(id)"
        case .unsupportedCipher(let path, let id):
            return "cannot open keychain: \(path) names unknown cipher \(id)"
        case .kdfParametersOutOfBounds(let path, let detail):
            return "cannot open keychain: \(path) asks for scrypt parameters outside the accepted bounds (\(detail)); "
                + "refusing to derive"
        case .invalidKDFParameters(let detail):
            return "invalid scrypt parameters: \(detail)"
        case .fileNotFound(let path):
            return "no keychain at \(path); create one with `moltipass keys init`"
        case .missingPassphraseFile(let path):
            return "the passphrase file \(path) does not exist"
        case .alreadyExists(let path):
            return "a keychain already exists at \(path)"
        case .notARegularFile(let path):
            return "\(path) is not a regular file"
        case .insecurePermissions(let path, let mode, let what):
            return "refusing to use \(what) \(path): it is accessible by group or others (mode "
                + FileSafetyError.octal(mode) + "); fix it with: \(FileSafetyError.chmodHint(for: path))"
        case .fileTooLarge(let path, let size, let limit):
            return "refusing to read \(path): \(size) bytes is over the \(limit)-byte limit"
        case .entryExists(let name, let path):
            return "an entry named \(name) already exists in \(path); use --replace to overwrite it"
        case .entryNotFound(let name, let path):
            return "no entry named \(name) in \(path)"
        case .modelKeyExists(let name, let path):
            return "a model key named \(name) already exists in \(path); use --replace to overwrite it"
        case .modelKeyNotFound(let name, let path):
            return "no model key named \(name) in \(path); store it with `moltipass keys add --model \(name)`"
        case .invalidEntryName(let name):
            return "invalid entry name \(Self.sanitized(name)): use 1-64 letters, digits, '_', '-' or '.'"
        case .unusableKey(let name):
            return "the API key for \(name) is empty or contains spaces or control characters"
        case .unusableModelKey(let name):
            return "the model key \(name) is empty, longer than \(ModelKey.maximumLength) bytes, or contains "
                + "spaces, newlines or other non-printable characters"
        case .noPassphraseSource:
            return "no passphrase: not running on a terminal and none of --passphrase-file, "
                + "MOLTIPASS_PASSPHRASE_FILE or MOLTIPASS_PASSPHRASE is set"
        case .emptyPassphrase(let source):
            return "the passphrase from \(source) is empty"
        case .passphraseMismatch:
            return "the passphrases do not match"
        case .promptFailed(let reason):
            return "cannot read a passphrase from the terminal: \(reason)"
        case .corruptEntries(let path, let detail):
            return "the keychain \(path) decrypted but its entry list is invalid (\(detail))"
        case .io(let path, let operation, let code):
            return "\(operation) \(path) failed: \(String(cString: strerror(code)))"
        }
    }

    /// A name made safe to show: control characters escaped, length capped.
    static func sanitized(_ name: String) -> String {
        let shown = name.prefix(80).unicodeScalars.map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "\"" + shown + (name.count > 80 ? "…" : "") + "\""
    }
}
