import Foundation

extension RecipeDecoder {
    /// The fields of a mapping by key, reporting unknown keys (with a suggestion), missing required keys and
    /// non-scalar keys. Nil if `node` is not a mapping. A key in `refused` is known elsewhere but
    /// does not apply here: it is reported as such, with its value as what is expected instead.
    func mapping(
        _ node: YAMLNode, allowed: [String], required: [String] = [], what: String, refused: [String: String] = [:]
    ) -> [String: YAMLNode]? {
        guard let pairs = node.mapping else {
            error(
                node.mark, code: "type", "\(what) is \(node.kindDescription)",
                expected: "a mapping with keys " + allowed.map { "`\($0)`" }.joined(separator: ", "))
            return nil
        }
        var fields: [String: YAMLNode] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar else {
                error(
                    pair.key.mark, code: "type", "a key in \(what) is \(pair.key.kindDescription)",
                    expected: "a plain word as key")
                continue
            }
            if let instead = refused[key] {
                error(pair.key.mark, code: "conflict", "`\(key)` does not apply to \(what)", expected: instead)
                continue
            }
            guard allowed.contains(key) else {
                error(
                    pair.key.mark, code: "unknown-key", "unknown key `\(key)` in \(what)",
                    expected: "one of " + allowed.map { "`\($0)`" }.joined(separator: ", "),
                    suggestion: Suggest.closest(to: key, among: allowed))
                continue
            }
            fields[key] = pair.value
        }
        for key in required where fields[key] == nil && !pairs.contains(where: { $0.key.scalar == key }) {
            error(node.mark, code: "missing-key", "\(what) has no `\(key)`", expected: "`\(key):`")
        }
        return fields
    }

    func string(_ node: YAMLNode, what: String, allowEmpty: Bool = false) -> String? {
        guard let value = node.scalar, !node.isNull || allowEmpty else {
            error(node.mark, code: "type", "\(what) is \(node.kindDescription)", expected: "a string")
            return nil
        }
        if !allowEmpty && value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            error(node.mark, code: "value", "\(what) is empty", expected: "a non-empty string")
            return nil
        }
        return value
    }

    /// A name-like string: agent, submolt, job id.
    func name(_ node: YAMLNode, what: String) -> Located<String>? {
        guard let text = string(node, what: what) else { return nil }
        guard Self.isName(text) else {
            error(
                node.mark, code: "value", "\(what) `\(text)` has characters outside letters, digits, `_`, `-`, `.`",
                expected: "1–64 of A–Z a–z 0–9 _ - .")
            return nil
        }
        return Located(text, at: node.mark)
    }

    func integer(_ node: YAMLNode, in range: ClosedRange<Int>, what: String) -> Int? {
        guard let text = node.scalar, node.scalarStyle == .plain, let value = Int(text) else {
            error(
                node.mark, code: "type", "\(what) is \(node.scalar.map { "`\($0)`" } ?? node.kindDescription)",
                expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        guard range.contains(value) else {
            error(
                node.mark, code: "value", "\(what) \(value) is out of range",
                expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    func boolean(_ node: YAMLNode, what: String) -> Bool? {
        switch node.scalarStyle == .plain ? node.scalar : nil {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default:
            error(
                node.mark, code: "type", "\(what) is \(node.scalar.map { "`\($0)`" } ?? node.kindDescription)",
                expected: "true or false")
            return nil
        }
    }

    /// Seconds, from `90s`, `15m`, `1h30m` … (`0s` too when `allowZero`).
    func duration(_ node: YAMLNode, what: String, allowZero: Bool = false) -> Int? {
        guard let text = string(node, what: what) else { return nil }
        do {
            return try DurationText.seconds(text, allowZero: allowZero)
        } catch {
            self.error(
                mark(ofOffset: error.offset, in: node), code: "value", "\(what) `\(text)`: \(error.message)",
                expected: "a duration like 90s, 15m, 2h, 1d or 1h30m")
            return nil
        }
    }

    /// A duration within `range`; out of it, an error `NAME DURATION is out of range` at the
    /// value, expecting `expected`.
    func duration(_ node: YAMLNode, what: String, name: String? = nil, in range: ClosedRange<Int>, expected: String)
        -> Int?
    {
        guard let seconds = duration(node, what: what) else { return nil }
        guard range.contains(seconds) else {
            error(
                node.mark, code: "value", "\(name ?? what) \(DurationText.format(seconds)) is out of range",
                expected: expected)
            return nil
        }
        return seconds
    }

    func list(_ node: YAMLNode, what: String, nonEmpty: Bool) -> [YAMLNode]? {
        guard let items = node.sequence else {
            error(node.mark, code: "type", "\(what) is \(node.kindDescription)", expected: "a list")
            return nil
        }
        if nonEmpty && items.isEmpty {
            error(node.mark, code: "value", "\(what) is an empty list", expected: "at least one item")
            return nil
        }
        return items
    }

    /// A list of names, or a single name.
    func stringList(_ node: YAMLNode, what: String) -> [Located<String>] {
        if node.scalar != nil && !node.isNull { return name(node, what: what).map { [$0] } ?? [] }
        guard let items = list(node, what: what, nonEmpty: true) else { return [] }
        return items.compactMap { name($0, what: what) }
    }

    func zone(_ node: YAMLNode) -> TimeZone? {
        guard let text = string(node, what: "time_zone") else { return nil }
        if (text.contains("/") || text == "UTC"), let zone = TimeZone(identifier: text) { return zone }
        error(
            node.mark, code: "value", "unknown time zone `\(text)`",
            expected: "an IANA zone name like Europe/Berlin or UTC",
            suggestion: Suggest.closest(to: text, among: TimeZone.knownTimeZoneIdentifiers))
        return nil
    }

    /// A template in a scalar, with errors placed at the offending character. `hasTrigger`: the
    /// step answers an inbound item (`{{ trigger.* }}` exists).
    func template(_ node: YAMLNode, what: String, hasTarget: Bool, hasTrigger: Bool = false, allowEmpty: Bool = false)
        -> Template?
    {
        guard let text = string(node, what: what, allowEmpty: allowEmpty) else { return nil }
        do {
            return try Template.parse(
                text, at: node.mark,
                scope: Template.Scope(environment: environment, hasTarget: hasTarget, hasTrigger: hasTrigger))
        } catch {
            self.error(
                mark(ofOffset: error.offset, in: node), code: "template", "in \(what): \(error.message)",
                expected: error.expected, suggestion: error.suggestion)
            return nil
        }
    }

    /// A regular expression, compiled once to check it.
    func pattern(_ node: YAMLNode, what: String) -> Located<String>? {
        guard let text = string(node, what: what) else { return nil }
        do {
            _ = try NSRegularExpression(pattern: text)
            return Located(text, at: node.mark)
        } catch {
            self.error(
                node.mark, code: "value", "\(what) `\(text)` is not a valid regular expression",
                expected: "an ICU regular expression, e.g. (?i)release|changelog")
            return nil
        }
    }

    /// 1–64 of `A–Z a–z 0–9 _ - .`, checked byte by byte (a regular expression compiled per name
    /// was a visible share of a cron run's start, and its `$` also let a trailing newline through).
    static func isName(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }

    /// An environment variable name: `[A-Z_][A-Z0-9_]*`.
    static func isEnvironmentName(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || (65...90).contains(first) else { return false }
        return text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (65...90).contains($0) || (48...57).contains($0) }
    }
}
