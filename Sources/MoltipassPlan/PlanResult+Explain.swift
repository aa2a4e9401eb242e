import Foundation
import MoltipassEngine

extension PlanResult {
    /// `plan --explain JOB`: for each occurrence of the job (`JOB` or `RECIPE/JOB`), the chain
    /// of decisions: schedule occurrence → each limiter verdict (deferred until t because rule R)
    /// → the outcome. Nil when no event names the job.
    public func explain(job: String, zone display: PlanDisplayZone? = nil) -> String? {
        let zone = (display ?? defaultDisplayZone).zone
        let parts = job.split(separator: "/", maxSplits: 1).map(String.init)
        let matching = eventsByTime.filter { event in
            parts.count == 2 ? event.recipe == parts[0] && event.job == parts[1] : event.job == job
        }
        guard !matching.isEmpty else { return nil }
        var lines: [String] = []
        var order: [String] = []
        var byWrite: [String: [Event]] = [:]
        for event in matching {
            let id = event.key ?? "\(event.recipe)/\(event.job)/\(event.action)/\(event.time.timeIntervalSince1970)"
            if byWrite[id] == nil { order.append(id) }
            byWrite[id, default: []].append(event)
        }
        for id in order {
            let chain = byWrite[id]!
            let first = chain[0]
            let what = [first.action, Self.targetText(first), first.title.map { "\"\(Self.cut($0, 50))\"" }]
                .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            if let occurrence = first.occurrence {
                lines.append("\(first.recipe)/\(first.job): occurrence \(Self.local(occurrence, zone)) → \(what)")
            } else {
                lines.append("\(first.recipe)/\(first.job): \(what)")
            }
            for event in chain {
                var step = "  \(Self.local(event.time, zone))  \(event.outcome.rawValue)"
                switch event.outcome {
                case .deferred:
                    step += " until \(event.until.map { Self.local($0, zone) } ?? "later")"
                    if let reason = event.reason { step += " because \(reason)" }
                default:
                    if let reason = event.reason { step += ": \(reason)" }
                }
                lines.append(step)
            }
        }
        return lines.joined(separator: "\n")
    }
}
