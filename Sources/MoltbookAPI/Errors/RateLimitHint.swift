import Foundation

/// Every rate-limit signal one response carried, as parsed, before any policy is applied.
///
/// Relative waits are kept relative and absolute times absolute; `retryWait(now:)` turns them
/// into one wait. Absolute times are measured against the server's `Date` header when present,
/// so a skewed local clock does not shorten or stretch a hint.
public struct RateLimitHint: Sendable, Equatable {
    /// `Retry-After` given as seconds.
    public var retryAfterHeader: Double?
    /// `Retry-After` given as an HTTP-date.
    public var retryAfterDate: Date?
    /// Body `retry_after_seconds` (also the OSS server's camelCase `retryAfter`).
    public var retryAfterSeconds: Double?
    /// Body `retry_after_minutes` (post cooldowns; also `retryAfterMinutes`).
    public var retryAfterMinutes: Double?
    /// Body `reset_at`.
    public var resetAt: Date?
    /// Body `remaining` (the generic window 429).
    public var bodyRemaining: Int?
    /// `X-RateLimit-Limit`.
    public var windowLimit: Int?
    /// `X-RateLimit-Remaining`.
    public var windowRemaining: Int?
    /// `X-RateLimit-Reset` (Unix seconds; milliseconds are recognised and converted).
    public var windowReset: Date?
    /// The standard headers' reset (`RateLimit-Reset`, `RateLimit: …;t=`): seconds from the
    /// response, as the IETF draft gives it (express-rate-limit and many gateways send these).
    public var windowResetAfter: Double?
    /// Body `daily_remaining` (comments).
    public var dailyRemaining: Int?
    /// A wait read from prose (`"hint":"Wait 27 minutes before posting again"`), used only when
    /// no structured wait exists.
    public var textWait: Double?
    /// The response's `Date` header.
    public var serverDate: Date?
    /// The limit's period as the server's prose names it ("You can only post once every 30
    /// minutes"): what the server's rule is, not how long this refusal lasts.
    public var period: Double?

    public init() {}

    /// True when the response carried no rate-limit information at all.
    public var isEmpty: Bool {
        var copy = self
        copy.serverDate = nil
        return copy == RateLimitHint()
    }

    /// The wait the server asked for, in seconds from `now`: the largest of every explicit
    /// wait it gave (Retry-After, retry_after_seconds, retry_after_minutes, reset_at), because
    /// the server's hints win and the largest is the one that cannot be wrong; the prose wait
    /// only when nothing structured exists. Nil when the response named no wait.
    public func retryWait(now: Date) -> Double? {
        let reference = serverDate ?? now
        var waits: [Double] = []
        if let retryAfterHeader { waits.append(retryAfterHeader) }
        if let retryAfterDate { waits.append(retryAfterDate.timeIntervalSince(reference)) }
        if let retryAfterSeconds { waits.append(retryAfterSeconds) }
        if let retryAfterMinutes { waits.append(retryAfterMinutes * 60) }
        if let resetAt { waits.append(resetAt.timeIntervalSince(reference)) }
        if let wait = waits.max() { return max(0, wait) }
        return textWait.map { max(0, $0) }
    }

    /// When the request window (`X-RateLimit-Reset`) refills, in seconds from `now`.
    public func windowResetWait(now: Date) -> Double? {
        windowReset.map { max(0, $0.timeIntervalSince(serverDate ?? now)) } ?? windowResetAfter.map { max(0, $0) }
    }

    /// The instant the server allows the next attempt, or nil when it named no wait.
    public func retryDate(now: Date) -> Date? {
        retryWait(now: now).map { now.addingTimeInterval($0) }
    }
}

extension RateLimitHint {
    /// Parses headers and (if JSON) the body of any response.
    public static func parse(headers: HTTPHeaders, body: JSONValue?) -> RateLimitHint {
        var hint = RateLimitHint()
        if let value = headers["Retry-After"].map(HTTPHeaders.trimmingOWS) {
            if let seconds = Double(value), seconds.isFinite, seconds >= 0 {
                hint.retryAfterHeader = seconds
            } else {
                hint.retryAfterDate = MoltbookDate.parseHTTPDate(value)
            }
        }
        hint.windowLimit = headers["X-RateLimit-Limit"].flatMap { Int(HTTPHeaders.trimmingOWS($0)) }
        hint.windowRemaining = headers["X-RateLimit-Remaining"].flatMap {
            Int(HTTPHeaders.trimmingOWS($0))
        }
        if let reset = headers["X-RateLimit-Reset"].flatMap({ Double(HTTPHeaders.trimmingOWS($0)) }) {
            // Documented as Unix seconds; a value this large can only be milliseconds.
            hint.windowReset = Date(timeIntervalSince1970: reset > 1e11 ? reset / 1000 : reset)
        }
        hint.serverDate = headers["Date"].flatMap(MoltbookDate.parseHTTPDate)
        readStandardHeaders(headers, into: &hint)
        guard let body, body.object != nil else { return hint }
        hint.retryAfterSeconds = (body["retry_after_seconds"] ?? body["retryAfter"])?.double
        hint.retryAfterMinutes = (body["retry_after_minutes"] ?? body["retryAfterMinutes"])?.double
        hint.resetAt = body["reset_at"]?.date
        hint.bodyRemaining = body["remaining"]?.int
        hint.dailyRemaining = body["daily_remaining"]?.int
        for key in ["hint", "error", "message"] {
            guard let text = body[key]?.string else { continue }
            if hint.textWait == nil { hint.textWait = waitInProse(text) }
            if hint.period == nil { hint.period = periodInProse(text) }
        }
        return hint
    }

    /// The IETF draft's headers (issue 33, observation 4), where no `X-RateLimit-*` said the same:
    /// `RateLimit-Limit` / `-Remaining` / `-Reset` (draft 6, what express-rate-limit sends), and
    /// the one `RateLimit` field of later drafts, `limit=100, remaining=0, reset=42` (draft 7) or
    /// `"default";r=0;t=42` (draft 8 on, the quota in `RateLimit-Policy: "default";q=100;w=60`).
    /// The reset is seconds from now; a value that can only be a Unix time is taken as one.
    static func readStandardHeaders(_ headers: HTTPHeaders, into hint: inout RateLimitHint) {
        func number(_ name: String) -> Double? {
            headers[name].flatMap { Double(HTTPHeaders.trimmingOWS($0)) }.flatMap { $0.isFinite ? $0 : nil }
        }
        var limit = number("RateLimit-Limit")
        var remaining = number("RateLimit-Remaining")
        var reset = number("RateLimit-Reset")
        let fields = parameters(headers["RateLimit"]).merging(parameters(headers["RateLimit-Policy"])) { first, _ in
            first
        }
        limit = limit ?? fields["limit"] ?? fields["q"]
        remaining = remaining ?? fields["remaining"] ?? fields["r"]
        reset = reset ?? fields["reset"] ?? fields["t"]
        if hint.windowLimit == nil, let limit, limit >= 0 { hint.windowLimit = Int(limit) }
        if hint.windowRemaining == nil, let remaining, remaining >= 0 { hint.windowRemaining = Int(remaining) }
        if hint.windowReset == nil, let reset, reset >= 0 {
            if reset > 1e9 {
                hint.windowReset = Date(timeIntervalSince1970: reset > 1e11 ? reset / 1000 : reset)
            } else {
                hint.windowResetAfter = reset
            }
        }
    }

    /// `key=value` pairs of a structured header, split at `,` and `;` (names lowercased, quoted
    /// names of policies dropped); the first value of each key.
    static func parameters(_ value: String?) -> [String: Double] {
        guard let value else { return [:] }
        var result: [String: Double] = [:]
        for part in value.split(whereSeparator: { $0 == "," || $0 == ";" }) {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2,
                let number = Double(pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
                number.isFinite
            else { continue }
            let key = pair[0].lowercased()
            if result[key] == nil { result[key] = number }
        }
        return result
    }

    /// Reads the period of "once every 30 minutes", "every 20 seconds", "every 2 hours", "once
    /// every hour"; nil without an `every` followed by a unit (with or without an amount).
    public static func periodInProse(_ text: String) -> Double? {
        guard text.lowercased().contains("every") else { return nil }
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "." })
        guard let every = words.firstIndex(of: "every"), every + 1 < words.count else { return nil }
        var amount = 1.0
        var unitIndex = every + 1
        if let number = Double(words[every + 1].trimmingCharacters(in: CharacterSet(charactersIn: "."))) {
            guard every + 2 < words.count else { return nil }
            amount = number
            unitIndex = every + 2
        }
        let unit = words[unitIndex]
        if unit.hasPrefix("second") || unit == "s" || unit == "secs" { return amount }
        if unit.hasPrefix("minute") || unit == "min" || unit == "mins" { return amount * 60 }
        if unit.hasPrefix("hour") || unit == "h" { return amount * 3600 }
        return nil
    }

    /// Reads "Wait 27 minutes", "try again in 45 seconds", "once every 2.5 minutes" style prose.
    /// "Once every N minutes" names the whole period, the longest the wait can be: taken as the
    /// wait, it is never early.
    static func waitInProse(_ text: String) -> Double? {
        // No digit, no amount: most messages ("Upvoted! 🦞") end here without being split into words.
        guard text.utf8.contains(where: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "." })
        guard words.contains(where: { ["wait", "again", "in", "every"].contains($0) }) else { return nil }
        for (index, word) in words.enumerated() where index + 1 < words.count {
            guard let amount = Double(word.trimmingCharacters(in: CharacterSet(charactersIn: "."))) else { continue }
            let unit = words[index + 1]
            if unit.hasPrefix("second") || unit == "s" || unit == "secs" { return amount }
            if unit.hasPrefix("minute") || unit == "min" || unit == "mins" { return amount * 60 }
            if unit.hasPrefix("hour") || unit == "h" { return amount * 3600 }
        }
        return nil
    }
}
