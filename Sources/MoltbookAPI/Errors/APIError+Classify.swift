import Foundation

extension APIError {
    /// Builds the error for a non-success response: an HTTP error status, or `success:false`.
    static func classify(
        status: Int, json: JSONValue?, rawBody: Data, endpoint: String, rateLimit: RateLimitHint
    ) -> APIError {
        let (serverError, serverHint, serverCode) = serverText(json)
        let text = [serverError, serverHint, serverCode].compactMap { $0 }.joined(separator: " ")
        let lowered = text.lowercased()
        let excerpt = json == nil ? String(decoding: rawBody.prefix(4096), as: UTF8.self) : nil
        func make(_ code: Code, _ message: String, suspension: Double? = nil) -> APIError {
            APIError(
                code: code, message: message, endpoint: endpoint, status: status, serverError: serverError,
                serverHint: serverHint, rateLimit: rateLimit, suspensionRemaining: suspension,
                bodyExcerpt: excerpt)
        }
        let said = serverError.map { ": \($0)" } ?? ""
        if lowered.contains("suspend") {
            return make(.suspended, "the account is suspended\(said)", suspension: suspensionRemaining(in: text))
        }
        if status == 403, isAgeRestriction(lowered) {
            // A route closed to young agents (DMs in the first 24 hours): not the key, the
            // claim or a suspension, whatever the hint says about them (moltbook-api.md §1.9, §6.1).
            var error = make(.forbidden, "not available to this agent yet\(said)")
            error.agentTooNew = true
            return error
        }
        if lowered.contains("verif"), (200...299).contains(status) || [400, 403, 422].contains(status) {
            // "Complete verification to publish" without a challenge this client can read: the
            // content may exist; it is neither refused nor done (moltbook-api.md §6.3).
            return make(
                .unrecognized, "the server asks for verification in a form this client does not read\(said)")
        }
        switch status {
        case 429:
            return make(.rateLimited, "rate limited\(said)")
        case 401:
            if lowered.contains("invalid api key") || lowered.contains("invalid key") {
                return make(
                    .invalidKey,
                    "the API key was rejected; check it with `moltipass keys verify` or rotate it on the dashboard")
            }
            return make(.authenticationRequired, "authentication failed\(said)")
        case 403:
            if lowered.contains("claim") {
                return make(.notClaimed, "the agent is not claimed yet; have its human open the claim URL")
            }
            return make(.forbidden, "forbidden\(said)")
        case 404: return make(.notFound, "not found\(said)")
        case 405: return make(.methodNotAllowed, "method not allowed\(said)")
        case 409: return make(.conflict, "conflict\(said)")
        case 410: return make(.expired, "expired\(said)")
        case 413: return make(.payloadTooLarge, "payload too large\(said)")
        case 500...599: return make(.serverError, "server error\(said)")
        case 300...399: return make(.redirectRefused, "unexpected redirect")
        default:
            if (200...299).contains(status) {
                if json == nil { return make(.undecodable, "the response is not JSON") }
                // `success: false` on a 2xx with nothing recognisable: maybe applied, maybe not.
                return make(
                    .unrecognized,
                    "the server answered HTTP \(status) with success: false and no recognised reason\(said)")
            }
            return make(.badRequest, serverError == nil ? "request refused" : "request refused\(said)")
        }
    }

    /// Whether refusal text says the agent is too new for the route ("not available for agents
    /// younger than 24 hours", "agent too new", "must be at least 24 hours old").
    static func isAgeRestriction(_ lowered: String) -> Bool {
        ["younger than", "too new", "hours old", "days old"].contains { lowered.contains($0) }
    }

    /// The server's message, hint and machine code, wherever the server put them: `error` (a
    /// string, or an object with `message`/`error`), `message`, FastAPI's `detail` (a string,
    /// an object with `error`/`message`/`hint`, or a list of `{msg}`), `errors[0]`.
    static func serverText(_ json: JSONValue?) -> (error: String?, hint: String?, code: String?) {
        guard let json, json.object != nil else { return (nil, nil, nil) }
        func message(_ value: JSONValue?) -> String? {
            guard let value else { return nil }
            if let text = value.string, !text.isEmpty { return text }
            if let first = value.array?.first { return message(first) }
            return
                (value["error"]?.string ?? value["message"]?.string ?? value["msg"]?.string
                ?? value["detail"]?.string)
        }
        var error =
            message(json["error"]) ?? message(json["detail"]) ?? message(json["errors"])
            ?? json["message"]?.string
        // A validator's details, which say what was wrong where the message says only "Invalid
        // request" (issue 33, observation 11): zod's `details.issues`, `details` or `issues` lists,
        // at the top level or under `error`.
        let details = validationDetails(json).filter { $0 != error }
        if !details.isEmpty {
            error = ([error].compactMap { $0 } + [details.joined(separator: "; ")]).joined(separator: ": ")
        }
        let hint = json["hint"]?.string ?? json["detail"]?["hint"]?.string ?? json["error"]?["hint"]?.string
        let code = (json["code"] ?? json["error"]?["code"] ?? json["detail"]?["code"])?.string
        return (error, hint, code)
    }

    /// The messages of a validator's issue list (each `path: message` when it names its field),
    /// at most five.
    static func validationDetails(_ json: JSONValue) -> [String] {
        let places = [json, json["error"]].compactMap { $0 }.filter { $0.object != nil }
        for place in places {
            for list in [place["details"]?["issues"], place["details"], place["issues"]] {
                guard let items = list?.array, !items.isEmpty else { continue }
                let messages = items.compactMap { item -> String? in
                    guard let text = (item["message"] ?? item["msg"])?.string ?? item.string, !text.isEmpty else {
                        return nil
                    }
                    let path = (item["path"] ?? item["loc"])?.array?.compactMap(\.string).joined(separator: ".")
                    return path.map { $0.isEmpty ? text : "\($0): \(text)" } ?? text
                }
                if !messages.isEmpty { return Array(messages.prefix(5)) }
            }
        }
        return []
    }

    /// Reads "Suspension ends in 10 hours", "ends in 1 day", "in 30 minutes" into seconds.
    static func suspensionRemaining(in text: String) -> Double? {
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "." })
        guard let anchor = words.firstIndex(where: { $0 == "ends" || $0 == "lifts" || $0 == "remaining" }) else {
            return nil
        }
        var index = anchor
        while index + 1 < words.count {
            let word = words[index].trimmingCharacters(in: CharacterSet(charactersIn: "."))
            if let amount = Double(word) {
                let unit = words[index + 1]
                if unit.hasPrefix("second") { return amount }
                if unit.hasPrefix("minute") { return amount * 60 }
                if unit.hasPrefix("hour") { return amount * 3600 }
                if unit.hasPrefix("day") { return amount * 86400 }
                if unit.hasPrefix("week") { return amount * 604_800 }
            }
            index += 1
        }
        return nil
    }
}
