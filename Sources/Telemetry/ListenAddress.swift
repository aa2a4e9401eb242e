/// Where `run --listen` binds: `HOST:PORT`, `:PORT` or `PORT`, the host an IPv4 address,
/// `[IPv6]` or `localhost`; without a host, loopback (127.0.0.1). Nothing is exposed beyond the
/// machine unless the address says so (`0.0.0.0:9464`). Port 0 takes a free port (tests).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable {
        case ipv4
        case ipv6
    }

    /// The address as numbers (`127.0.0.1`, `::1`): never a name to resolve.
    public var host: String
    public var family: Family
    public var port: UInt16

    public init(host: String, family: Family, port: UInt16) {
        self.host = host
        self.family = family
        self.port = port
    }

    /// `127.0.0.1:9464`, `[::1]:9464`.
    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `--listen`: the address, or why the text is not one.
    public static func parse(_ text: String) -> Result<ListenAddress, ListenAddressError> {
        let problem = ListenAddressError(text: text)
        var host = ""
        var portText = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(problem)
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = String(text[text.index(close, offsetBy: 2)...])
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
            if host.contains(":") { return .failure(problem) }
        }
        guard !portText.isEmpty, portText.utf8.allSatisfy({ (48...57).contains($0) }), portText.count <= 5,
            let port = UInt16(portText)
        else { return .failure(problem) }
        if host.isEmpty || host == "localhost" {
            return .success(ListenAddress(host: "127.0.0.1", family: .ipv4, port: port))
        }
        if text.hasPrefix("[") {
            guard isIPv6(host) else { return .failure(problem) }
            return .success(ListenAddress(host: host, family: .ipv6, port: port))
        }
        guard isIPv4(host) else { return .failure(problem) }
        return .success(ListenAddress(host: host, family: .ipv4, port: port))
    }

    /// Four decimal numbers 0–255, without leading zeros.
    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy { (48...57).contains($0) }
                    && (part.count == 1 || part.first != "0") && Int(part)! <= 255
            }
    }

    /// Hex groups and colons (at most one `::`), as `inet_pton` takes them; no zone index.
    static func isIPv6(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 39,
            text.utf8.allSatisfy({
                (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) || $0 == 58
            })
        else { return false }
        let compressed = text.components(separatedBy: "::")
        guard compressed.count <= 2 else { return false }
        let groups = compressed.flatMap { $0.split(separator: ":", omittingEmptySubsequences: false) }
            .filter { !$0.isEmpty }
        guard groups.allSatisfy({ $0.count <= 4 }) else { return false }
        if compressed.count == 1 {
            return text.split(separator: ":", omittingEmptySubsequences: false).count == 8 && groups.count == 8
        }
        return groups.count <= 7
            && compressed.allSatisfy { part in part.isEmpty || !part.hasPrefix(":") && !part.hasSuffix(":") }
    }
}

/// `--listen` given something that is not an address.
public struct ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String

    public var description: String {
        "--listen \(text): give HOST:PORT, :PORT or PORT (HOST an IP address, [IPv6] or localhost; "
            + "without one, 127.0.0.1), e.g. 127.0.0.1:9464, or 0.0.0.0:9464 to listen on every interface"
    }
}
