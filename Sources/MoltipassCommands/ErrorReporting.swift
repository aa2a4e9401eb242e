import Keychain
import MoltbookAPI
import MoltipassEngine
import Storage

/// Maps failures to an exit status and a one-line message for stderr.
public enum ErrorReporting {
    public static func exitStatus(for error: any Error) -> ExitStatus {
        if let failure = error as? KeysFailure { return failure.status }
        if let error = error as? KeychainError { return exitStatus(for: error) }
        // A state another process holds past the wait is contention, not a fault: try again later (75). A CI
        // run's 20 overlapping `run --once` had one exit 1 on "state.sqlite.lock stayed locked … for 5 s".
        if let error = error as? StorageError {
            return [.lockTimeout, .unavailable].contains(error.code) ? .transient : .failure
        }
        guard let error = error as? APIError else { return .failure }
        switch error.code {
        case .invalidKey, .authenticationRequired, .notClaimed, .suspended: return .authBroken
        case .serverError, .transport, .rateLimited, .undecodable: return .transient
        default: return .failure
        }
    }

    /// Keychain failures: a name or file that already exists is a conflict (14), a bad name
    /// or KDF parameter on the command line is usage (64), everything else — wrong passphrase,
    /// modified file, unsafe permissions, no passphrase source, missing file or entry — is 12.
    public static func exitStatus(for error: KeychainError) -> ExitStatus {
        switch error {
        case .entryExists, .modelKeyExists, .alreadyExists: return .conflict
        case .invalidEntryName, .invalidKDFParameters, .unusableKey, .unusableModelKey: return .usage
        default: return .keychain
        }
    }

    public static func message(for error: any Error) -> String {
        if let error = error as? APIError { return "moltipass: \(error)" }
        return "moltipass: \(error)"
    }
}
