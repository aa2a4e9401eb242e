import Foundation
import Synchronization

/// What a template is rendered against at run time.
public struct TemplateContext: Sendable {
    public var date: Date
    public var timeZone: TimeZone
    public var agent: String
    /// Fields of the target post (`title`, `author`, …).
    public var target: [String: String]
    /// The process environment (only whitelisted names are ever read).
    public var environment: [String: String]
    /// Seed for `{{ random }}`: the recipe seed plus the job and occurrence.
    public var seed: String
    /// A generator's context by placeholder (`post.title`, `thread`, …), prompts only.
    public var generation: [String: String] = [:]

    public init(
        date: Date, timeZone: TimeZone, agent: String, target: [String: String] = [:],
        environment: [String: String] = [:], seed: String
    ) {
        self.date = date
        self.timeZone = timeZone
        self.agent = agent
        self.target = target
        self.environment = environment
        self.seed = seed
    }
}

extension Template {
    /// The text with every placeholder filled in; a missing variable or field renders as empty.
    public func render(_ context: TemplateContext) -> String {
        var output = ""
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let text): output += text
            case .agent: output += context.agent
            case .target(let field): output += context.target[field] ?? ""
            case .context(let field): output += context.generation[field] ?? ""
            case .environment(let name): output += context.environment[name] ?? ""
            case .random(let choices):
                let pick = StableHash.hash("\(context.seed)#\(index)") % UInt64(choices.count)
                output += choices[Int(pick)]
            case .date(let format):
                output += DateFormatters.string(from: context.date, format: format, in: context.timeZone)
            }
        }
        return output
    }
}

/// `DateFormatter`s by format and zone, made once: making one costs far more than using it
/// (ICU opens a formatter), and `plan` renders a template for every planned write.
enum DateFormatters {
    private static let cache = Mutex<[String: DateFormatter]>([:])

    static func string(from date: Date, format: String, in zone: TimeZone) -> String {
        cache.withLock { cache in
            let key = zone.identifier + "\u{1F}" + format
            if let formatter = cache[key] { return formatter.string(from: date) }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = format
            cache[key] = formatter
            return formatter.string(from: date)
        }
    }
}
