import Determinism
import FlyingFox
import FlyingSocks
import Foundation
import MoltbookAPI
import MoltbookSandbox

/// Converts FlyingFox requests to `SandboxRequest`s, asks the model, and plays out delays and drops.
struct SandboxHTTPHandler: HTTPHandler {
    let model: SandboxModel
    let clock: SettableClock
    let log: (@Sendable (String) -> Void)?
    /// The OpenAI-compatible fake under `/openai/`, when enabled.
    var openAI: OpenAIStub? = nil
    /// `--request-log`: one line per request the model answers.
    var requestLog: SandboxRequestLog? = nil

    func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        let body = try await request.bodyData
        if let openAI, request.path.hasPrefix("/openai/") {
            let response = try await openAI.handle(request, body: body, authority: request.headers[.host])
            log?("\(request.method.rawValue) \(request.path) -> \(response.statusCode.code)")
            return response
        }
        if request.path == "/_sandbox/clock" {
            return clockResponse(request, body: body)
        }
        guard let method = MoltbookAPI.HTTPMethod(rawValue: request.method.rawValue.uppercased()) else {
            let json = #"{"error":"Method not allowed","success":false}"#
            return FlyingFox.HTTPResponse(
                statusCode: .methodNotAllowed, headers: [.contentType: "application/json; charset=utf-8"],
                body: Data(json.utf8))
        }
        var query: [String: String] = [:]
        for item in request.query where query[item.name] == nil { query[item.name] = item.value }
        var headers = MoltbookAPI.HTTPHeaders()
        for (name, value) in request.headers { headers.add(name: name.rawValue, value: value) }
        let sandboxRequest = SandboxRequest(
            method: method, path: request.path, query: query, headers: headers, body: body)
        let (arrived, instant) = (Date(), clock.now)
        let reply = model.handle(sandboxRequest, now: instant)
        log?("\(method.rawValue) \(request.path) -> \(reply.response.status)")
        if let requestLog {
            requestLog.record(
                time: arrived, clock: instant, agent: model.agentName(of: sandboxRequest), method: method.rawValue,
                path: request.path, status: reply.response.status, peer: Self.peer(request.remoteAddress))
        }
        if let delay = reply.delay { try await Task.sleep(for: delay) }
        return Self.convert(reply)
    }

    /// The connection's peer address (never `X-Forwarded-For`), for the request log.
    static func peer(_ address: FlyingFox.HTTPRequest.Address?) -> String? {
        switch address {
        case .ip4(let ip, port: _), .ip6(let ip, port: _): ip
        case .unix(let path): path
        case nil: nil
        }
    }

    /// `POST /_sandbox/clock {"advance_seconds": N}` or `{"now": "ISO"}`; `GET` reads the clock. The
    /// answer is the current `now`, plus `time_scale` when the clock runs scaled (`--time-scale`).
    private func clockResponse(_ request: FlyingFox.HTTPRequest, body: Data) -> FlyingFox.HTTPResponse {
        if request.method == .POST {
            guard let json = JSON.parseOrNil(body) else {
                return Self.json(400, ["success": false, "error": "Invalid JSON"])
            }
            if let seconds = json["advance_seconds"]?.doubleValue {
                clock.advance(by: seconds)
            } else if let text = json["now"]?.stringValue, let date = SandboxTime.parse(text) {
                clock.set(date)
            } else {
                return Self.json(
                    400,
                    [
                        "success": false, "error": "Invalid clock change",
                        "hint": "Send {\"advance_seconds\": N} or {\"now\": \"2026-02-01T00:00:00Z\"}",
                    ])
            }
        } else if request.method != .GET {
            return Self.json(405, ["success": false, "error": "Method not allowed"])
        }
        var answer: [String: JSON] = ["success": true, "now": .string(SandboxTime.iso(clock.now))]
        if let scale = clock.timeScale { answer["time_scale"] = .number(scale) }
        return Self.json(200, .object(answer))
    }

    private static func json(_ status: Int, _ body: JSON) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: phrase(status)),
            headers: [.contentType: "application/json; charset=utf-8"], body: body.serialized())
    }

    /// Builds the FlyingFox response; a dropping reply gets a body stream that fails after the headers.
    static func convert(_ reply: SandboxReply) -> FlyingFox.HTTPResponse {
        var headers = FlyingFox.HTTPHeaders()
        for field in reply.response.headers where field.name.lowercased() != "content-length" {
            headers.addValue(field.value, for: HTTPHeader(field.name))
        }
        let status = HTTPStatusCode(reply.response.status, phrase: phrase(reply.response.status))
        let body = reply.response.body
        guard reply.dropConnection else {
            return FlyingFox.HTTPResponse(statusCode: status, headers: headers, body: body)
        }
        let sequence = FailingBodySequence(prefix: Array(body.prefix(body.count / 2)))
        return FlyingFox.HTTPResponse(
            statusCode: status, headers: headers,
            body: HTTPBodySequence(from: sequence, count: max(body.count, 1)))
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}

/// A body that yields part of the promised bytes and then throws, so FlyingFox closes the connection
/// after the headers went out (the client sees a short body and a reset).
struct FailingBodySequence: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    struct Dropped: Error {}

    let prefix: [UInt8]

    func makeAsyncIterator() -> Iterator {
        Iterator(prefix: prefix)
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var prefix: [UInt8]
        var sent = false

        mutating func next() async throws -> UInt8? {
            guard !prefix.isEmpty else { throw Dropped() }
            return prefix.removeFirst()
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard !sent, !prefix.isEmpty else { throw Dropped() }
            sent = true
            return prefix
        }
    }
}
