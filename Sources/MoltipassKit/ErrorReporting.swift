import MoltbookAPI

/// Maps failures to an exit status and a one-line message for stderr.
public enum ErrorReporting {
    public static func exitStatus(for error: any Error) -> ExitStatus {
        guard let error = error as? APIError else { return .failure }
        switch error.code {
        case .invalidKey, .authenticationRequired, .notClaimed, .suspended: return .authBroken
        case .serverError, .transport, .rateLimited, .undecodable: return .transient
        default: return .failure
        }
    }

    public static func message(for error: any Error) -> String {
        if let error = error as? APIError { return "moltipass: \(error)" }
        return "moltipass: \(error)"
    }
}
