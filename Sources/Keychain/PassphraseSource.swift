import FileSafety
import Foundation

/// Where a passphrase comes from, in the order they are tried.
public enum PassphraseSource: Sendable, Equatable, CustomStringConvertible {
    /// `--passphrase-file PATH`.
    case file(path: String)
    /// `MOLTIPASS_PASSPHRASE_FILE` (Docker and Kubernetes secrets).
    case environmentFile(path: String)
    /// `MOLTIPASS_PASSPHRASE`.
    case environment
    /// A no-echo prompt on the terminal.
    case prompt

    /// The variable naming a passphrase file.
    public static let fileVariable = "MOLTIPASS_PASSPHRASE_FILE"
    /// The variable holding the passphrase itself.
    public static let valueVariable = "MOLTIPASS_PASSPHRASE"
    /// Passphrase files larger than this are refused: 64 KiB.
    public static let maximumFileSize = 64 * 1024

    /// Picks the first available source: the flag, then `MOLTIPASS_PASSPHRASE_FILE`, then
    /// `MOLTIPASS_PASSPHRASE` (empty variables count as unset), then the terminal when
    /// `isInteractive`. Otherwise fails at once with `KeychainError.noPassphraseSource`.
    public static func select(
        passphraseFile: String?, environment: [String: String], isInteractive: Bool
    ) throws -> PassphraseSource {
        if let passphraseFile, !passphraseFile.isEmpty { return .file(path: passphraseFile) }
        if let path = environment[fileVariable], !path.isEmpty { return .environmentFile(path: path) }
        if let value = environment[valueVariable], !value.isEmpty { return .environment }
        if isInteractive { return .prompt }
        throw KeychainError.noPassphraseSource
    }

    /// Reads the passphrase from this source. Files must be 0600 or stricter (checked on the
    /// open descriptor) and lose one trailing newline (`\n` or `\r\n`).
    ///
    /// - Parameter prompt: asks the terminal, for `.prompt`; never called for other sources.
    public func read(environment: [String: String], prompt: () throws -> String) throws -> Passphrase {
        let passphrase: Passphrase
        switch self {
        case .file(let path), .environmentFile(let path):
            var bytes: [UInt8]
            do {
                bytes = [UInt8](
                    try KeychainError.mappingFiles(what: "passphrase file") {
                        try PrivateFile.read(path, limit: Self.maximumFileSize)
                    })
            } catch KeychainError.fileNotFound {
                throw KeychainError.missingPassphraseFile(path: path)
            }
            if bytes.last == 0x0A {
                bytes.removeLast()
                if bytes.last == 0x0D { bytes.removeLast() }
            }
            passphrase = Passphrase(bytes: bytes)
        case .environment:
            // One trailing newline dropped, as from a file (issue 34, observation 8: a value set
            // from a file with its newline, `MOLTIPASS_PASSPHRASE="$(cat f; echo)"` or a secret
            // store's, was "wrong passphrase" with no hint). A passphrase is never meant to end
            // in one.
            var value = environment[Self.valueVariable] ?? ""
            if value.hasSuffix("\r\n") {
                value.removeLast(1)  // "\r\n" is one Character
            } else if value.hasSuffix("\n") {
                value.removeLast()
            }
            passphrase = Passphrase(value)
        case .prompt:
            passphrase = Passphrase(try prompt())
        }
        guard !passphrase.isEmpty else { throw KeychainError.emptyPassphrase(source: description) }
        return passphrase
    }

    public var description: String {
        switch self {
        case .file(let path): "--passphrase-file \(path)"
        case .environmentFile(let path): "\(Self.fileVariable) (\(path))"
        case .environment: Self.valueVariable
        case .prompt: "the terminal"
        }
    }
}
