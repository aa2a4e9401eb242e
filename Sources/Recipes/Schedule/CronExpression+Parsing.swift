import Foundation

/// Why a cron expression was refused; `offset` is the 0-based character offset of the problem in the text.
public struct CronError: Error, Sendable, Equatable {
    public var offset: Int
    public var message: String
    public var expected: String?
    public var suggestion: String?
}

extension CronExpression {
    struct FieldSpec {
        let name: String
        let range: ClosedRange<Int>
        let names: [String: Int]
    }

    static let monthNames = [
        "JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10,
        "NOV": 11, "DEC": 12,
    ]
    static let dayNames = ["SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6]
    static let fields = [
        FieldSpec(name: "minute", range: 0...59, names: [:]),
        FieldSpec(name: "hour", range: 0...23, names: [:]),
        FieldSpec(name: "day of month", range: 1...31, names: [:]),
        FieldSpec(name: "month", range: 1...12, names: monthNames),
        FieldSpec(name: "day of week", range: 0...7, names: dayNames),
    ]

    /// Parses `text` (five fields or an `@daily`-style shortcut).
    public static func parse(_ text: String) throws(CronError) -> CronExpression {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lead = text.prefix { $0 == " " || $0 == "\t" }.count
        if trimmed.hasPrefix("@") {
            guard let expansion = descriptors[trimmed.lowercased()] else {
                let known = descriptors.keys.sorted()
                throw CronError(
                    offset: lead, message: "unknown cron shortcut `\(trimmed)`",
                    expected: "one of " + known.joined(separator: ", "),
                    suggestion: Suggest.closest(to: trimmed.lowercased(), among: known))
            }
            var expression = try parse(expansion)
            expression.source = trimmed
            return expression
        }
        // Split into fields, remembering where each starts.
        var parts: [(text: Substring, offset: Int)] = []
        var index = text.startIndex
        var offset = 0
        while index < text.endIndex {
            if text[index] == " " || text[index] == "\t" {
                index = text.index(after: index)
                offset += 1
                continue
            }
            let start = index
            let startOffset = offset
            while index < text.endIndex, text[index] != " ", text[index] != "\t" {
                index = text.index(after: index)
                offset += 1
            }
            parts.append((text[start..<index], startOffset))
        }
        guard parts.count == 5 else {
            throw CronError(
                offset: parts.count > 5 ? parts[5].offset : lead,
                message: "cron expression has \(parts.count) field\(parts.count == 1 ? "" : "s")",
                expected:
                    "5 fields: minute hour day-of-month month day-of-week, or @hourly/@daily/@weekly/@monthly/@yearly",
                suggestion: nil)
        }
        var bits: [UInt64] = []
        for (spec, part) in zip(fields, parts) {
            bits.append(try parseField(part.text, spec: spec, offset: part.offset))
        }
        // Day of week 7 is Sunday.
        var dow = bits[4]
        if dow & (1 << 7) != 0 { dow = (dow | 1) & ~(1 << 7) }
        return CronExpression(
            minutes: bits[0], hours: bits[1], daysOfMonth: bits[2], months: bits[3], daysOfWeek: dow,
            dayOfMonthIsWildcard: parts[2].text.hasPrefix("*"), dayOfWeekIsWildcard: parts[4].text.hasPrefix("*"),
            source: trimmed)
    }

    static func parseField(_ field: Substring, spec: FieldSpec, offset: Int) throws(CronError) -> UInt64 {
        var bits: UInt64 = 0
        var itemOffset = offset
        for item in field.split(separator: ",", omittingEmptySubsequences: false) {
            bits |= try parseItem(item, spec: spec, offset: itemOffset)
            itemOffset += item.count + 1
        }
        return bits
    }

    static func parseItem(_ item: Substring, spec: FieldSpec, offset: Int) throws(CronError) -> UInt64 {
        let expectation =
            "in the \(spec.name) field: *, a value \(spec.range.lowerBound)–\(spec.range.upperBound)"
            + (spec.names.isEmpty ? "" : " or a name") + ", a range a-b, or a step */n or a-b/n"
        guard !item.isEmpty else {
            throw CronError(
                offset: offset, message: "empty item in the \(spec.name) field", expected: expectation,
                suggestion: nil)
        }
        let slash = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let rangePart = slash[0]
        var low: Int
        var high: Int
        if rangePart == "*" {
            low = spec.range.lowerBound
            high = spec.name == "day of week" ? 6 : spec.range.upperBound
        } else {
            let ends = rangePart.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            low = try value(ends[0], spec: spec, offset: offset)
            high = ends.count == 2 ? try value(ends[1], spec: spec, offset: offset + ends[0].count + 1) : low
            if ends.count == 2 && low > high {
                throw CronError(
                    offset: offset, message: "range \(rangePart) in the \(spec.name) field runs backwards",
                    expected: "a range low-high with low ≤ high", suggestion: nil)
            }
        }
        var step = 1
        if slash.count == 2 {
            let stepOffset = offset + rangePart.count + 1
            guard rangePart == "*" || rangePart.contains("-") else {
                throw CronError(
                    offset: offset, message: "step `/\(slash[1])` after a single value in the \(spec.name) field",
                    expected:
                        "a step after * or a range, e.g. */\(slash[1]) or \(rangePart)-\(spec.range.upperBound)/\(slash[1])",
                    suggestion: nil)
            }
            guard let parsed = Int(slash[1]), parsed >= 1, parsed <= spec.range.upperBound else {
                throw CronError(
                    offset: stepOffset, message: "bad step `\(slash[1])` in the \(spec.name) field",
                    expected: "a step from 1 to \(spec.range.upperBound)", suggestion: nil)
            }
            step = parsed
        }
        var bits: UInt64 = 0
        for value in stride(from: low, through: high, by: step) { bits |= 1 << UInt64(value) }
        return bits
    }

    static func value(_ text: Substring, spec: FieldSpec, offset: Int) throws(CronError) -> Int {
        if let number = Int(text), text.allSatisfy(\.isASCII) {
            guard spec.range.contains(number) else {
                throw CronError(
                    offset: offset, message: "\(number) is out of range for the \(spec.name) field",
                    expected: "a value from \(spec.range.lowerBound) to \(spec.range.upperBound)", suggestion: nil)
            }
            return number
        }
        if let named = spec.names[text.uppercased()] { return named }
        let names = spec.names.keys.sorted()
        throw CronError(
            offset: offset, message: "`\(text)` is not a valid \(spec.name)",
            expected: names.isEmpty
                ? "a number from \(spec.range.lowerBound) to \(spec.range.upperBound)"
                : "a number from \(spec.range.lowerBound) to \(spec.range.upperBound) or one of \(names.joined(separator: ", "))",
            suggestion: Suggest.closest(to: text.uppercased(), among: names))
    }
}
