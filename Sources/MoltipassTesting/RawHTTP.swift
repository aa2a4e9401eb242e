import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 request over a plain loopback socket, written and read byte for byte: for the
/// metrics and probe listener's tests, which need `HEAD` and the exact headers (the API client
/// speaks only the API's methods). The blocking socket work runs on a thread of its own.
public enum RawHTTP {
    public struct Response: Sendable {
        public var status: Int
        /// Header names lowercased; the last value of each.
        public var headers: [String: String]
        public var body: String
        /// The bytes as they came.
        public var raw: String
    }

    /// `METHOD PATH` to `127.0.0.1:port` (or an IPv4 `host`), `Connection: close`, read to the end
    /// (at most `timeout` seconds for each read: generous, the tests check answers, not latency).
    public static func request(
        _ method: String, _ path: String, port: UInt16, host: String = "127.0.0.1", timeout: TimeInterval = 30,
        headers: [(String, String)] = []
    ) async throws -> Response {
        try await offloaded {
            try exchange(method, path, host: host, port: port, timeout: timeout, headers: headers)
        }
    }

    static func exchange(
        _ method: String, _ path: String, host: String, port: UInt16, timeout: TimeInterval,
        headers extra: [(String, String)]
    ) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw HarnessError("not an IPv4 address: \(host)")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HarnessError("connect \(host):\(port): \(String(cString: strerror(errno)))") }
        let fields = extra.map { "\($0.0): \($0.1)\r\n" }.joined()
        let request = Array(
            "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n\(fields)Connection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw HarnessError("send \(method) \(path): \(String(cString: strerror(errno)))")
            }
            sent += count
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw HarnessError("recv \(method) \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        let raw = String(decoding: bytes, as: UTF8.self)
        guard let split = raw.range(of: "\r\n\r\n") else { throw HarnessError("no complete HTTP head: \(raw)") }
        let head = raw[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw HarnessError("no status line: \(head.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(raw[split.upperBound...]), raw: raw)
    }
}
