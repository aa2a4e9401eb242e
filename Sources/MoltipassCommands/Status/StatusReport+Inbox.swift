import Foundation
import MoltipassEngine

/// The inbox in `status`'s text: one summary line, then a line per pending DM request.
extension StatusReport.Inbox {
    /// How many names of requesters the summary line lists before "and N more".
    static let namesShown = 5

    /// `inbox: 2 pending DM requests (from alice, bob), 3 unread messages, 1 unread
    /// notification, new activity on 2 posts, as of …`, indented as the agent's other lines.
    var lines: [String] {
        let iso = { (date: Date) in MoltbookDateText.iso(date) }
        var parts: [String] = []
        switch dm.state {
        case "available":
            let requests = dm.pendingRequests
            let counted = max(dm.pendingRequestCount ?? 0, requests.count)
            if counted == 0, dm.unreadable.isEmpty {
                parts.append("no pending DM requests")
            } else if requests.isEmpty {
                // Counted but not listed, or a route that failed: never "no pending DM requests".
                parts.append(counted > 0 ? Self.count(counted, "pending DM request") : "DM requests unknown")
            } else {
                var names = requests.prefix(Self.namesShown).map { Self.printable($0.from) }.joined(separator: ", ")
                if requests.count > Self.namesShown { names += " and \(requests.count - Self.namesShown) more" }
                let unlisted = counted > requests.count ? ", \(counted - requests.count) not listed" : ""
                parts.append("\(Self.count(counted, "pending DM request")) (from \(names)\(unlisted))")
            }
            if let unread = dm.unreadMessages { parts.append(Self.count(unread, "unread message")) }
            if !dm.unreadable.isEmpty {
                parts.append("cannot read " + dm.unreadable.map(Self.printable).joined(separator: "; "))
            }
        case "blocked":
            parts.append(
                "DMs blocked (\(dm.reason ?? "by the server"))" + (dm.until.map { " until \(iso($0))" } ?? ""))
        case "unsupported":
            parts.append("no DMs on this server")
        default:
            parts.append("DM check failed (\(dm.reason ?? "no reason given"))")
        }
        if let unread = unreadNotifications { parts.append(Self.count(unread, "unread notification")) }
        if let posts = postsWithActivity { parts.append("new activity on \(Self.count(posts, "post"))") }
        var lines = ["  inbox: " + parts.joined(separator: ", ") + ", as of \(iso(asOf))"]
        for request in dm.pendingRequests {
            lines.append(
                "  DM request from \(Self.printable(request.from)) (conversation \(Self.printable(request.conversationId))"
                    + (request.createdAt.map { ", \(iso($0))" } ?? "") + ")"
                    + (request.preview.map { ": \"\(Self.printable(PlannedWrite.excerpt($0, limit: 60)))\"" } ?? ""))
        }
        return lines
    }

    /// Another agent's text with its control characters (a terminal's escape sequences) as spaces.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// "1 unread message", "3 unread messages".
    static func count(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
