import Determinism
import Foundation
import MoltbookAPI

/// Injected faults: outages, broken bodies, latency, dropped connections, redirects, 401 waves.
extension SandboxState {
    /// Takes one use of the first queued fault matching the request, or nil.
    mutating func takeFault(for request: SandboxRequest) -> FaultSpec? {
        guard let index = faults.firstIndex(where: { $0.matches(method: request.method, path: request.path) }) else {
            return nil
        }
        let fault = faults[index]
        faults[index].count -= 1
        if faults[index].count <= 0 { faults.remove(at: index) }
        return fault
    }

    /// Produces the reply for a request hit by `fault`; only `delay`, `drop` and `malformed_json` apply the request.
    mutating func apply(_ fault: FaultSpec, to request: SandboxRequest, now: Date) -> SandboxReply {
        switch fault.mode {
        case .http500:
            return Self.jsonFault(500, "Internal server error")
        case .http502:
            return Self.jsonFault(502, "Bad gateway")
        case .http503:
            return Self.jsonFault(503, "Service temporarily unavailable")
        case .htmlError:
            let status = fault.status ?? 403
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html")
            headers.add(name: "Server", value: "CloudFront")
            headers.add(name: "X-Cache", value: "Error from cloudfront")
            let body = Self.cloudFrontPage(status: status, requestID: random.token(52, alphabet: SeededRandom.urlSafe))
            return SandboxReply(response: HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        case .malformedJSON:
            var response = Self.render(api(request, now: now))
            response.status = 200
            response.body = response.body.prefix(max(1, response.body.count / 2))
            response.headers.remove(name: "Content-Length")
            return SandboxReply(response: response)
        case .delay:
            let millis = Int(((fault.delaySeconds ?? 3) * 1000).rounded())
            return SandboxReply(response: Self.render(api(request, now: now)), delay: .milliseconds(millis))
        case .drop:
            return SandboxReply(response: Self.render(api(request, now: now)), dropConnection: true)
        case .dropBefore:
            let placeholder = APIResult.ok(["message": "connection dropped before the request was applied"])
            return SandboxReply(response: Self.render(placeholder), dropConnection: true)
        case .redirect:
            var location = fault.location ?? ("https://moltbook.com" + request.path)
            if fault.location == nil, !request.query.isEmpty {
                location +=
                    "?"
                    + request.query.keys.sorted().map { "\($0)=\(request.query[$0] ?? "")" }
                    .joined(separator: "&")
            }
            var headers = HTTPHeaders()
            headers.add(name: "Location", value: location)
            headers.add(name: "Content-Type", value: "text/plain")
            return SandboxReply(
                response: HTTPResponse(status: 301, headers: headers, body: Data("Redirecting to \(location)".utf8)))
        case .rateLimited:
            let seconds = Int((fault.delaySeconds ?? 60).rounded(.up))
            var result = APIResult(
                status: 429,
                body: [
                    "success": false, "error": "Rate limit exceeded", "remaining": 0,
                    "reset_at": .string(SandboxTime.iso(now.addingTimeInterval(Double(seconds)))),
                    "retry_after_seconds": .int(seconds),
                ])
            result.headers.append(("Retry-After", String(seconds)))
            return SandboxReply(response: Self.render(result))
        case .authWave:
            return SandboxReply(
                response: Self.render(
                    .error(401, "Authentication required", hint: "Send Authorization: Bearer YOUR_API_KEY")))
        }
    }

    private static func jsonFault(_ status: Int, _ message: String) -> SandboxReply {
        SandboxReply(response: render(.error(status, message, hint: "Try again later")))
    }

    /// A CloudFront-style error page.
    static func cloudFrontPage(status: Int, requestID: String) -> String {
        """
        <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
        <HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">
        <TITLE>ERROR: The request could not be satisfied</TITLE>
        </HEAD><BODY>
        <H1>\(status) ERROR</H1>
        <H2>The request could not be satisfied.</H2>
        <HR noshade size="1px">
        \(status == 403 ? "Request blocked." : "CloudFront wasn't able to connect to the origin.")
        We can't connect to the server for this app or website at this time. There might be too much traffic or a \
        configuration error. Try again later, or contact the app or website owner.
        <BR clear="all">
        <HR noshade size="1px">
        <PRE>
        Generated by cloudfront (CloudFront)
        Request ID: \(requestID)
        </PRE>
        <ADDRESS>
        </ADDRESS>
        </BODY></HTML>
        """
    }
}
