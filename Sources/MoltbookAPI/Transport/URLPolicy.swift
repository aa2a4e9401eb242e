import Foundation

/// Which URLs a transport or client may contact.
///
/// HTTPS always; plain HTTP only to a loopback address and only when explicitly allowed
/// (the local sandbox). Anything else is refused before a socket is opened.
public struct URLPolicy: Sendable, Equatable {
    /// Whether `http://` to 127.0.0.0/8, `localhost` or `[::1]` is permitted.
    public var allowInsecureLoopback: Bool

    public init(allowInsecureLoopback: Bool = false) {
        self.allowInsecureLoopback = allowInsecureLoopback
    }

    /// Throws `TransportError.disallowedURL` unless `url` may be contacted.
    public func check(_ url: URL) throws(TransportError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .disallowedURL(reason: "not an absolute URL")
        }
        if url.user != nil || url.password != nil {
            throw .disallowedURL(reason: "credentials in the URL are not allowed")
        }
        switch scheme {
        case "https":
            return
        case "http":
            guard Self.isLoopback(host: host) else {
                throw .disallowedURL(reason: "plain http is only allowed to a loopback sandbox, not to \(host)")
            }
            guard allowInsecureLoopback else {
                throw .disallowedURL(reason: "plain http to a loopback sandbox needs it to be explicitly allowed")
            }
        default:
            throw .disallowedURL(reason: "scheme \(scheme) is not allowed")
        }
    }

    /// True for `localhost`, 127.0.0.0/8 and `::1` (with or without brackets).
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
