/// A handler's answer before the pipeline adds rate-limit headers and serialises it.
struct APIResult: Sendable {
    var status: Int
    var body: JSON
    var headers: [(String, String)] = []

    init(status: Int, body: JSON, headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// A success envelope: `{"success":true, …fields}`.
    static func ok(_ fields: [String: JSON], status: Int = 200) -> APIResult {
        var body = fields
        body["success"] = true
        return APIResult(status: status, body: .object(body))
    }

    /// The error envelope `{"success":false,"error":…,"hint":…}` plus any extra fields.
    static func error(_ status: Int, _ message: String, hint: String? = nil, extra: [String: JSON] = [:]) -> APIResult {
        var body = extra
        body["success"] = false
        body["error"] = .string(message)
        if let hint { body["hint"] = .string(hint) }
        return APIResult(status: status, body: .object(body))
    }

    static func badRequest(_ message: String, hint: String? = nil) -> APIResult {
        error(400, message, hint: hint)
    }

    static func notFound(_ message: String, hint: String? = nil) -> APIResult {
        error(404, message, hint: hint)
    }
}
