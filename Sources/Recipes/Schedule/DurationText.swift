/// Durations as written in recipes: `90s`, `15m`, `2h`, `1d`, `1h30m` (units d, h, m, s, largest first, each once).
public enum DurationText {
    /// Why a duration was refused; `offset` is the character offset of the problem.
    public struct Failure: Error, Sendable, Equatable {
        public var offset: Int
        public var message: String
    }

    static let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// The number of seconds `text` denotes: more than 0, or 0 too when `allowZero` (`0s`,
    /// where zero means "none", as for `randomized_delay`).
    public static func seconds(_ text: String, allowZero: Bool = false) throws(Failure) -> Int {
        let characters = Array(text)
        guard !characters.isEmpty else { throw Failure(offset: 0, message: "empty duration") }
        var total = 0
        var index = 0
        var lastUnit = -1
        while index < characters.count {
            let start = index
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            guard index > start else {
                throw Failure(offset: index, message: "expected a number at `\(String(characters[index...]))`")
            }
            guard let number = Int(String(characters[start..<index])), number <= 1_000_000 else {
                throw Failure(offset: start, message: "number too large")
            }
            guard index < characters.count else {
                throw Failure(offset: index, message: "`\(number)` has no unit")
            }
            guard let unit = units.firstIndex(where: { $0.0 == characters[index] }) else {
                throw Failure(offset: index, message: "unknown unit `\(characters[index])`")
            }
            guard unit > lastUnit else {
                throw Failure(offset: index, message: "units out of order or repeated at `\(characters[index])`")
            }
            lastUnit = unit
            total += number * units[unit].1
            index += 1
        }
        guard total > 0 || allowZero else { throw Failure(offset: 0, message: "duration is zero") }
        guard total <= 366 * 86_400 else { throw Failure(offset: 0, message: "duration longer than a year") }
        return total
    }

    /// The shortest text for `seconds` in the same notation (`5400` → `1h30m`).
    public static func format(_ seconds: Int) -> String {
        guard seconds > 0 else { return "0s" }
        var rest = seconds
        var text = ""
        for (unit, size) in units where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}
