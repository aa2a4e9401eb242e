import FileSafety
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension KeychainError {
    /// `error` in the keychain's terms; `what` names the file in a permission refusal
    /// ("keychain", "passphrase file").
    init(_ error: FileSafetyError, what: String) {
        switch error {
        case .notFound(let path):
            self = .fileNotFound(path: path)
        case .notARegularFile(let path):
            self = .notARegularFile(path: path)
        case .insecurePermissions(let path, let mode):
            self = .insecurePermissions(path: path, mode: mode, what: what)
        case .tooLarge(let path, let size, let limit):
            self = .fileTooLarge(path: path, size: size, limit: limit)
        case .lockTimeout(let path, _):
            // The keychain waits for its lock without a timeout; kept for completeness.
            self = .io(path: path, operation: "locking", errno: EWOULDBLOCK)
        case .system(let operation, let path, let code):
            self = .io(path: path, operation: operation.rawValue, errno: code)
        }
    }

    /// Runs `body`, turning a `FileSafetyError` into a `KeychainError`; any other error (a
    /// write hook's simulated crash) passes through unchanged.
    static func mappingFiles<T>(what: String = "keychain", _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileSafetyError {
            throw KeychainError(error, what: what)
        }
    }
}
