import CCurl
import Foundation

/// One request's libcurl state: option values, C buffers and the abort flag.
///
/// Created on the calling task, performed on the transport's queue, read back after.
final class CurlTransfer: @unchecked Sendable {
    struct Outcome: Sendable {
        var result: Result<HTTPResponse, TransportError>
        var newConnections: Int
    }

    private let request: HTTPRequest
    private let configuration: CurlTransport.Configuration
    private let headerLines: [String]
    private let abortFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    init(request: HTTPRequest, configuration: CurlTransport.Configuration) throws(TransportError) {
        self.request = request
        self.configuration = configuration
        var lines: [String] = []
        for field in request.headers {
            guard Self.isValidHeader(name: field.name, value: field.value) else {
                throw .disallowedURL(reason: "header \(field.name.prefix(40)) has characters that are not allowed")
            }
            lines.append("\(field.name): \(field.value)")
        }
        // No `Expect: 100-continue` round trip for larger bodies.
        lines.append("Expect:")
        self.headerLines = lines
        abortFlag.initialize(to: 0)
    }

    deinit { abortFlag.deallocate() }

    /// Requests an abort; the progress callback stops the transfer at its next tick.
    func abort() { ccurl_raise_flag(abortFlag) }

    func perform(on easy: CurlEasy, share: CurlShare) -> Outcome {
        guard let handle = easy.handle else {
            return Outcome(
                result: .failure(.other(code: 0, detail: "curl_easy_init failed", requestSent: false)),
                newConnections: 0)
        }
        curl_easy_reset(handle)
        // libcurl keeps these pointers for the whole transfer: they must be stable allocations,
        // not the temporary addresses `&local` would give.
        let body = UnsafeMutablePointer<ccurl_buffer>.allocate(capacity: 1)
        let headers = UnsafeMutablePointer<ccurl_buffer>.allocate(capacity: 1)
        ccurl_buffer_init(body, configuration.maxResponseBytes)
        ccurl_buffer_init(headers, 256 << 10)
        var list: UnsafeMutablePointer<curl_slist>? = nil
        defer {
            ccurl_buffer_free(body)
            ccurl_buffer_free(headers)
            body.deallocate()
            headers.deallocate()
            curl_slist_free_all(list)
        }
        for line in headerLines { list = curl_slist_append(list, line) }

        let timeout = request.timeout ?? configuration.totalTimeout
        let allowHTTP =
            configuration.policy.allowInsecureLoopback
            && request.url.scheme?.lowercased() == "http"
            && URLPolicy.isLoopback(host: request.url.host ?? "")
        var setup = CURLE_OK
        func set(_ code: CURLcode) { if setup == CURLE_OK { setup = code } }
        set(ccurl_setopt_string(handle, CURLOPT_URL, request.url.absoluteString))
        set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, allowHTTP ? "http,https" : "https"))
        set(ccurl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https"))
        set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        set(ccurl_setopt_long(handle, CURLOPT_MAXREDIRS, 0))
        set(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        set(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(ccurl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout)))
        set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
        // Loopback sandboxes are never reached through an environment proxy.
        set(ccurl_setopt_string(handle, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1"))
        set(ccurl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent))
        set(ccurl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, ""))
        set(ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
        set(ccurl_setopt_share(handle, share.handle))
        set(ccurl_capture_body(handle, body))
        set(ccurl_capture_headers(handle, headers))
        set(ccurl_abort_on_flag(handle, abortFlag))
        set(configureMethod(handle))
        guard setup == CURLE_OK else {
            return Outcome(
                result: .failure(
                    .other(
                        code: Int(setup.rawValue), detail: Self.message(setup),
                        requestSent: false)), newConnections: 0)
        }

        let code = curl_easy_perform(handle)
        var connects = 0
        ccurl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        var requestSize = 0
        ccurl_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &requestSize)
        let sent = requestSize > 0
        guard code == CURLE_OK else {
            let error = Self.error(
                for: code, requestSent: sent, overflow: body.pointee.overflowed != 0,
                limit: configuration.maxResponseBytes)
            return Outcome(result: .failure(error), newConnections: connects)
        }
        var status = 0
        ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let bodyData = body.pointee.length > 0 ? Data(bytes: body.pointee.data, count: body.pointee.length) : Data()
        let headerData =
            headers.pointee.length > 0
            ? Data(bytes: headers.pointee.data, count: headers.pointee.length) : Data()
        let response = HTTPResponse(status: status, headers: Self.parseHeaders(headerData), body: bodyData)
        return Outcome(result: .success(response), newConnections: connects)
    }

    private func configureMethod(_ handle: UnsafeMutableRawPointer) -> CURLcode {
        switch request.method {
        case .get where request.body == nil:
            return ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        default:
            let body = request.body ?? Data()
            var code = ccurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if code != CURLE_OK { return code }
            code = body.withUnsafeBytes { raw in
                // COPYPOSTFIELDS copies the bytes, so the Data may go away after this call.
                ccurl_setopt_pointer(
                    handle, CURLOPT_COPYPOSTFIELDS,
                    UnsafeMutableRawPointer(
                        mutating: raw.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)))
            }
            if code != CURLE_OK { return code }
            if request.method != .post {
                code = ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
            return code
        }
    }

    /// Header names are tokens; values have no CR, LF or NUL (no header injection).
    static func isValidHeader(name: String, value: String) -> Bool {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
            return false
        }
        return !value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }

    /// Parses the last response's header block out of the raw header lines libcurl delivered
    /// (interim 1xx responses come first).
    static func parseHeaders(_ data: Data) -> HTTPHeaders {
        let text = String(decoding: data, as: UTF8.self)
        var current = HTTPHeaders()
        // "\r\n" is a single Character in Swift, so split on newline characters, not on "\n".
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.hasPrefix("HTTP/") {
                current = HTTPHeaders()
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { current.add(name: name, value: value) }
        }
        return current
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    static func message(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }

    static func error(for code: CURLcode, requestSent sent: Bool, overflow: Bool, limit: Int) -> TransportError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(requestSent: sent)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return .connectFailed(detail: message(code))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tlsFailed(detail: message(code))
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .disallowedURL(reason: message(code))
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            return .connectionLost(requestSent: sent, detail: message(code))
        case CURLE_WRITE_ERROR where overflow:
            return .responseTooLarge(limit: limit)
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled(requestSent: sent)
        default:
            return .other(code: Int(code.rawValue), detail: message(code), requestSent: sent)
        }
    }
}
