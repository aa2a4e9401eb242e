/// A handler's answer before the pipeline adds rate-limit headers and serialises it.
struct APIResult: Sendable {
    var status: Int
    var body: JSON
    var headers: [(String, String)] = []
    /// The body is already in the dialect's shape: `SandboxState.shapeError` leaves it alone.
    var shaped = false

    init(status: Int, body: JSON, headers: [(String, String)] = [], shaped: Bool = false) {
        self.status = status
        self.body = body
        self.headers = headers
        self.shaped = shaped
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

    /// A FastAPI-style error, `{"detail": …}` (the minimal mock's), left as it is.
    static func detail(_ status: Int, _ detail: JSON) -> APIResult {
        APIResult(status: status, body: ["detail": detail], shaped: true)
    }

    static func badRequest(_ message: String, hint: String? = nil) -> APIResult {
        error(400, message, hint: hint)
    }

    static func notFound(_ message: String, hint: String? = nil) -> APIResult {
        error(404, message, hint: hint)
    }
}
