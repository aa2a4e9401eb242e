import Foundation
import MoltipassEngine
import Recipes

/// A duration on the command line (`--max-wait`, `--max-tick-age`, `--poll-interval`,
/// `--timeout`): written as recipes write them (`90s`, `5m`, `1h`, `1h30m`, `1d`), or a bare
/// number of seconds (`60`, `0.5`) as earlier versions took.
public enum DurationOption {
    /// The seconds `text` denotes, or nil when it is not a duration (or is zero and `allowZero` is false).
    public static func seconds(_ text: String, allowZero: Bool = false) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Double(trimmed), number.isFinite {
            return number > 0 || (allowZero && number == 0) ? number : nil
        }
        return (try? DurationText.seconds(trimmed, allowZero: allowZero)).map(TimeInterval.init)
    }

    /// The message for an option whose value is not a duration.
    public static func problem(_ option: String, _ text: String) -> String {
        "\(option) `\(text)` is not a duration: write it like 90s, 5m, 1h or 1h30m (a bare number is seconds)"
    }
}
