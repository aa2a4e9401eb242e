import Foundation

/// Resolves the passphrase for a command: selects the source, reads it, and confirms a new
/// passphrase when it was typed.
///
/// The environment, the terminal check and the prompt are parameters, so tests run without a
/// terminal and without touching the real environment.
public struct PassphraseResolver: Sendable {
    /// The `--passphrase-file` flag, if given.
    public var passphraseFile: String?
    /// The process environment (only the two `MOLTIPASS_PASSPHRASE*` variables are read).
    public var environment: [String: String]
    /// Whether a person can be prompted.
    public var isInteractive: Bool
    /// Shows a message and reads one line without echo.
    public var prompt: @Sendable (_ message: String) throws -> String

    public init(
        passphraseFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        isInteractive: Bool = TerminalPrompt.isAvailable,
        prompt: @escaping @Sendable (_ message: String) throws -> String = TerminalPrompt.readSecret
    ) {
        self.passphraseFile = passphraseFile
        self.environment = environment
        self.isInteractive = isInteractive
        self.prompt = prompt
    }

    /// The source that would be used.
    public func source() throws -> PassphraseSource {
        try PassphraseSource.select(
            passphraseFile: passphraseFile, environment: environment, isInteractive: isInteractive)
    }

    /// The passphrase to unlock an existing file.
    public func passphrase(message: String = "Keychain passphrase: ") throws -> Passphrase {
        try source().read(environment: environment) { try prompt(message) }
    }

    /// A passphrase for a new file or `keys passwd`: typed twice when prompted.
    public func newPassphrase(
        message: String = "New keychain passphrase: ", confirmation: String = "Repeat the passphrase: "
    ) throws -> Passphrase {
        let source = try source()
        let first = try source.read(environment: environment) { try prompt(message) }
        if source == .prompt {
            let second = try source.read(environment: environment) { try prompt(confirmation) }
            guard first == second else { throw KeychainError.passphraseMismatch }
        }
        return first
    }
}
