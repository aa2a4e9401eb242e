import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny blocking HTTP/1.1 client over one TCP connection, run on its own thread so tests can see
/// exactly what went over the wire (keep-alive reuse, short bodies, closed connections).
enum RawHTTPClient {
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        /// The connection closed before `Content-Length` bytes arrived.
        var truncated: Bool
    }

    /// Sends each request in order on one connection; a nil entry means the connection was closed before a response.
    static func exchange(port: UInt16, requests: [String]) async -> [Response?] {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: run(port: port, requests: requests))
            }
            thread.start()
        }
    }

    /// A minimal request text with the given method, path, headers and body.
    static func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") -> String
    {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        return text
    }

    private static func run(port: UInt16, requests: [String]) -> [Response?] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return requests.map { _ in nil } }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return requests.map { _ in nil } }
        var buffer = Data()
        var results: [Response?] = []
        for request in requests {
            let bytes = Array(request.utf8)
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent == bytes.count else {
                results.append(nil)
                continue
            }
            results.append(readResponse(fd, &buffer))
        }
        return results
    }

    /// Reads one response; nil when the connection ends before the headers are complete.
    private static func readResponse(_ fd: Int32, _ buffer: inout Data) -> Response? {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard fill(fd, &buffer) else { return nil }
        }
        guard let split = buffer.range(of: separator) else { return nil }
        let head = String(decoding: buffer[buffer.startIndex..<split.lowerBound], as: UTF8.self)
        buffer = Data(buffer[split.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        let status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var truncated = false
        while buffer.count < length {
            guard fill(fd, &buffer) else {
                truncated = true
                break
            }
        }
        let body = Data(buffer.prefix(length))
        buffer = Data(buffer.dropFirst(min(length, buffer.count)))
        return Response(status: status, headers: headers, body: body, truncated: truncated)
    }

    /// Appends what the socket has; false on EOF, error or timeout.
    private static func fill(_ fd: Int32, _ buffer: inout Data) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
