import Foundation
import Metrics
import Prometheus
import Testing

@testable import Telemetry

/// The catalog follows Prometheus' naming conventions, and every label comes from a bounded set.
@Suite struct MetricCatalogTests {
    /// Every name: `moltipass_` prefix, snake case, unique; counters end in `_total`, histograms
    /// in `_seconds` (base unit), gauges never in `_total`; timestamps are `_timestamp_seconds`;
    /// the info metric ends in `_info`.
    @Test(arguments: MetricCatalog.all) func namesFollowTheConventions(_ metric: MetricDefinition) {
        #expect(metric.name.hasPrefix("moltipass_"))
        #expect(metric.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(metric.name)")
        #expect(!metric.name.contains("__") && !metric.name.hasSuffix("_"))
        switch metric.kind {
        case .counter: #expect(metric.name.hasSuffix("_total"))
        case .histogram: #expect(metric.name.hasSuffix("_seconds"))
        case .gauge: #expect(!metric.name.hasSuffix("_total"))
        }
        if metric.name.contains("timestamp") { #expect(metric.name.hasSuffix("_timestamp_seconds")) }
        if metric.labels.contains(.version) { #expect(metric.name.hasSuffix("_info") && metric.kind == .gauge) }
        #expect(!metric.help.isEmpty && !metric.help.contains("\n") && metric.help.hasSuffix("."))
        #expect(metric.kind == .histogram ? metric.buckets == metric.buckets.sorted() && !metric.buckets.isEmpty : true)
        #expect(Set(metric.labels).count == metric.labels.count)
    }

    /// Names are unique and found by name.
    @Test func namesAreUnique() {
        #expect(Set(MetricCatalog.all.map(\.name)).count == MetricCatalog.all.count)
        for metric in MetricCatalog.all { #expect(MetricCatalog.definition(named: metric.name) == metric) }
        #expect(MetricCatalog.definition(named: "moltipass_unknown_total") == nil)
    }

    /// Label names are valid Prometheus names and none is reserved (`le`, `__…`); no label could
    /// hold an id, a URL, an error text or a key: each has a documented bound.
    @Test func labelsAreBounded() {
        for label in MetricLabel.allCases {
            #expect(label.rawValue.allSatisfy { $0.isLowercase || $0 == "_" })
            #expect(label.rawValue != "le" && !label.rawValue.hasPrefix("__"))
            #expect(!label.bound.isEmpty)
            #expect(!["id", "url", "error", "key", "post", "reason", "message"].contains(label.rawValue))
        }
        #expect(MetricLabel.outcome.bound == "done, failed, uncertain, skipped, held")
    }

    /// A report line's action is read from its first word only: ids, titles and names after it
    /// never reach the label; anything unknown is `other`.
    @Test(arguments: [
        ("post to m/general: \"Tide tables\"", ActionLabel.post),
        ("post to m/general (generated)", .post),
        ("post from queue", .post),
        ("comment on 4f1c-99: \"Nice\"", .comment),
        ("reply to alice: \"Thanks\"", .reply),
        ("dm bob: \"Hello there\"", .dm),
        ("approve DM request conv-7", .dmApprove),
        ("upvote post 123", .vote),
        ("downvote comment 9", .vote),
        ("vote", .vote),
        ("follow alice", .follow),
        ("unfollow alice", .unfollow),
        ("subscribe m/general", .subscribe),
        ("unsubscribe m/general", .unsubscribe),
        ("verify", .verify),
        ("mark notifications of post 77 read", .markRead),
        ("occurrence 2026-12-01T10:00:00Z", .occurrence),
        ("occurrences 2026-09-01T10:30:00Z … 2026-12-01T09:30:00Z (4367)", .occurrence),
        ("select targets", .other),
        ("?", .other),
        ("", .other),
    ])
    func actionLabels(_ text: String, _ expected: ActionLabel) {
        #expect(ActionLabel(reportAction: text) == expected)
    }

    /// A key-shaped text is no action: `other`. Not an argument above: swift-testing prints every
    /// argument, and scripts/test fails on anything key-shaped in the output.
    @Test func aKeyShapedTextIsOther() {
        let keyShaped = "moltbook_sk_" + String(repeating: "0123456789abcdef", count: 2)
        #expect(ActionLabel(reportAction: keyShaped) == .other)
    }

    /// Status classes: 2xx … 5xx, and `error` for no answer.
    @Test func statusClasses() {
        #expect(StatusClassLabel(status: 200) == .success)
        #expect(StatusClassLabel(status: 204).rawValue == "2xx")
        #expect(StatusClassLabel(status: 301).rawValue == "3xx")
        #expect(StatusClassLabel(status: 429).rawValue == "4xx")
        #expect(StatusClassLabel(status: 503).rawValue == "5xx")
        #expect(StatusClassLabel(status: nil).rawValue == "error")
        #expect(StatusClassLabel(status: 99).rawValue == "error")
    }
}

/// The factory registers the catalog's metrics only, with their help text, and nothing else.
@Suite struct CatalogMetricsFactoryTests {
    /// A catalog metric recorded through swift-metrics with the export's factory appears with its
    /// HELP and TYPE lines and its labels in the catalog's order.
    @Test func catalogMetricsAreExposed() {
        let export = MetricsExport()
        let recorder = MetricsRecorder(factory: export.factory)
        recorder.increment(MetricCatalog.actions, [.outcome: "done", .agent: "kelp", .action: "post"])
        recorder.increment(MetricCatalog.actions, [.outcome: "done", .agent: "kelp", .action: "post"], by: 2)
        recorder.observe(MetricCatalog.passDuration, seconds: 0.2)
        recorder.set(MetricCatalog.lastTick, to: 1_796_119_200)
        let text = export.exposition()
        #expect(text.contains("# HELP moltipass_actions_total \(MetricCatalog.actions.help)\n"))
        #expect(text.contains("# TYPE moltipass_actions_total counter\n"))
        #expect(text.contains("moltipass_actions_total{agent=\"kelp\",action=\"post\",outcome=\"done\"} 3"))
        #expect(text.contains("# TYPE moltipass_pass_duration_seconds histogram\n"))
        #expect(text.contains("moltipass_pass_duration_seconds_bucket{le=\"0.25\"} 1\n"))
        #expect(text.contains("moltipass_pass_duration_seconds_bucket{le=\"0.1\"} 0\n"))
        #expect(text.contains("moltipass_pass_duration_seconds_count 1\n"))
        #expect(text.contains("moltipass_last_tick_timestamp_seconds 1796119200"))
    }

    /// A name outside the catalog, the wrong kind, or other label names record nothing: the
    /// exposition holds none of them.
    @Test func everythingElseIsRefused() {
        let export = MetricsExport()
        let factory = export.factory
        Counter(label: "moltipass_invented_total", dimensions: [], factory: factory).increment()
        Counter(label: "moltipass_actions_total", dimensions: [("agent", "kelp")], factory: factory).increment()
        Counter(
            label: "moltipass_actions_total",
            dimensions: [("agent", "kelp"), ("action", "post"), ("outcome", "done"), ("post_id", "123")],
            factory: factory
        ).increment()
        Counter(
            label: "moltipass_actions_total", dimensions: [("agent", "a"), ("agent", "b"), ("action", "post")],
            factory: factory
        ).increment()
        Gauge(label: "moltipass_actions_total", dimensions: [], factory: factory).record(1)
        Timer(label: "moltipass_lease_held", dimensions: [("agent", "kelp")], factory: factory).recordSeconds(1)
        Metrics.Counter(label: "moltipass_lease_held", dimensions: [("agent", "kelp")], factory: factory).increment()
        #expect(export.exposition() == "")
    }

    /// A label value longer than the bound is cut, so even a mistaken caller makes one bounded series.
    @Test func longValuesAreCut() {
        let export = MetricsExport()
        MetricsRecorder(factory: export.factory).set(
            MetricCatalog.leaseHeld, [.agent: String(repeating: "a", count: 500)], to: 1)
        let text = export.exposition()
        #expect(text.contains("agent=\"\(String(repeating: "a", count: CatalogMetricsFactory.maxValueLength))\""))
        #expect(!text.contains(String(repeating: "a", count: CatalogMetricsFactory.maxValueLength + 1)))
    }

    /// The disabled recorder (plan) records nothing anywhere, and a removed gauge's series is gone.
    @Test func disabledAndRemoved() {
        MetricsRecorder.disabled.increment(MetricCatalog.actions, [.agent: "a", .action: "post", .outcome: "done"])
        let export = MetricsExport()
        let recorder = MetricsRecorder(factory: export.factory)
        recorder.set(MetricCatalog.leaseHeld, [.agent: "gone"], to: 1)
        recorder.set(MetricCatalog.leaseHeld, [.agent: "kept"], to: 0)
        recorder.remove(MetricCatalog.leaseHeld, [.agent: "gone"])
        let text = export.exposition()
        #expect(!text.contains("gone"))
        #expect(text.contains("moltipass_lease_held{agent=\"kept\"} 0"))
    }

    /// Declared series exist at zero before any event.
    @Test func declaredSeriesStartAtZero() {
        let export = MetricsExport()
        let recorder = MetricsRecorder(factory: export.factory)
        recorder.declare(MetricCatalog.rateLimited, [.limitClass: "post"])
        recorder.declare(MetricCatalog.passDuration)
        let text = export.exposition()
        #expect(text.contains("moltipass_rate_limited_responses_total{class=\"post\"} 0\n"))
        #expect(text.contains("moltipass_pass_duration_seconds_count 0\n"))
    }
}
