import Foundation
import MoltipassTesting
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `moltipass plan --html` through the binary: the page users open (issue 19).
@Suite("moltipass plan --html")
struct PlanPageTests {
    /// Posts every 10 minutes (the cooldown is 30), comments every 5 and upvotes every 15
    /// minutes on what the selectors find: about 17 000 items in a month.
    static let busy = """
        agent: busy_bot
        time_zone: Europe/Berlin
        jobs:
          - id: posts
            schedule: { every: 10m }
            steps:
              - post: { submolt: general, title: "Note {{ date: dd HH:mm }}", content: "Body {{ date: dd HH:mm }}" }
          - id: upvotes
            schedule: { every: 15m }
            steps:
              - vote:
                  ensure: upvoted
                  on: { source: submolt, submolt: general, sort: new, max_per_run: 3 }
          - id: replies
            schedule: { every: 5m }
            steps:
              - comment:
                  on: { source: submolt, submolt: general, sort: new, max_per_run: 1 }
                  content: "Reply {{ date: dd HH:mm }} to {{ post.author }}"
        """

    /// A month of one busy agent is a page under 1 MB, well-formed, with nothing loaded from
    /// elsewhere; the chart scales to the page (a viewBox, no fixed width), has a legend of
    /// swatches and an axis for the 24-hour line; per-day totals, a problems list and a
    /// filterable table follow.
    @Test func aMonthUnderOneMegabyte() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("busy.yaml").path
        try Self.busy.write(toFile: recipe, atomically: true, encoding: .utf8)
        let page = home.directory.file("month.html").path
        let plan = try await home.run(
            [
                "plan", recipe, "--for", "30d", "--from", "2026-03-01T00:00:00Z", "--state", home.path + "/none",
                "--html", page,
            ], timeout: 600)
        #expect(plan.status == 0, "\(plan.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: page))
        #expect(data.count < 1_000_000, "\(data.count) bytes")
        let html = String(decoding: data, as: UTF8.self)
        let parser = XMLParser(data: data)
        #expect(parser.parse(), "\(String(describing: parser.parserError)) line \(parser.lineNumber)")
        // Self-contained: the only URLs are the XML namespaces.
        let urls = html.components(separatedBy: "http").count - 1
        #expect(urls == html.components(separatedBy: "http://www.w3.org/").count - 1)
        #expect(!html.contains(" src=") && !html.contains(" href="))
        // The chart fits its width.
        let svg = try #require(
            html.range(
                of: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"[^>]*>", options: .regularExpression))
        let tag = String(html[svg])
        #expect(tag.contains("viewBox=\"0 0 1200 "))
        #expect(!tag.contains(" width="))
        #expect(html.contains("svg.chart { width: 100%; height: auto;"))
        // A legend of swatches, and the axis of the 24-hour line.
        #expect(html.contains("<div class=\"legend\">"))
        #expect(html.components(separatedBy: "<span><svg width=").count - 1 == 7)
        #expect(html.contains("<line class=\"yaxis\""))
        #expect(html.contains("<text class=\"tick\""))
        #expect(html.contains("<line class=\"limit\""), "comments have a daily limit at the server")
        // Totals per day: one row per day of the month.
        #expect(html.contains("<h2>Per day</h2>"))
        for day in 2...30 { #expect(html.contains("<tr><td>2026-03-\(day < 10 ? "0" : "")\(day)</td>")) }
        // The problems found, and the filterable table.
        #expect(html.contains("<h2>Problems</h2>"))
        #expect(html.contains("writes expired unsent: the schedule is faster than the limits"))
        #expect(html.contains("writes deferred</b>"))
        #expect(html.contains("<select id=\"f-agent\">") && html.contains("<select id=\"f-outcome\">"))
        #expect(html.contains("<input id=\"f-text\""))
        #expect(html.contains("function planFilter()"))
    }

    /// Deferrals that overlap are counted, not drawn on top of each other: three posts of one
    /// occurrence wait behind the cooldown at once, and the chart says how many.
    @Test func overlappingDeferralsAreCounted() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("three.yaml").path
        try """
        agent: three_bot
        time_zone: UTC
        jobs:
          - id: three
            schedule: { at: 2026-03-02T00:10:00Z }
            steps:
              - post: { submolt: general, title: "One", content: "First" }
              - post: { submolt: general, title: "Two", content: "Second" }
              - post: { submolt: general, title: "Three", content: "Third" }
        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let page = home.directory.file("three.html").path
        let plan = try await home.run([
            "plan", recipe, "--for", "6h", "--from", "2026-03-02T00:00:00Z", "--state", home.path + "/none",
            "--html", page,
        ])
        #expect(plan.status == 0, "\(plan.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("2026-03-02 00:10–00:15: 2 waiting</title>"), "two posts wait at once")
        #expect(html.contains("2 waiting</text>"))
        // One table row per write, its waits folded in.
        #expect(html.contains("<td>Three</td><td>done</td><td>waited 2× (post rule: post.cooldown"))
    }
}
