import CoreMetrics
import Metrics

/// Records the catalog's metrics through swift-metrics with an explicit factory (never the
/// global one): a `MetricsExport`'s for a run that exposes them, `disabled` (swift-metrics' no-op
/// handler) where nothing is exposed, such as `plan`. Labels are the catalog's (`MetricLabel`),
/// so a caller cannot invent one.
public struct MetricsRecorder: Sendable {
    public let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Records nothing.
    public static let disabled = MetricsRecorder(factory: NOOPMetricsHandler.instance)

    /// Adds `amount` to a counter.
    public func increment(_ metric: MetricDefinition, _ labels: [MetricLabel: String] = [:], by amount: Double = 1) {
        FloatingPointCounter(label: metric.name, dimensions: dimensions(labels), factory: factory).increment(by: amount)
    }

    /// Sets a gauge.
    public func set(_ metric: MetricDefinition, _ labels: [MetricLabel: String] = [:], to value: Double) {
        Gauge(label: metric.name, dimensions: dimensions(labels), factory: factory).record(value)
    }

    /// Records one observation of `seconds` in a histogram.
    public func observe(_ metric: MetricDefinition, _ labels: [MetricLabel: String] = [:], seconds: Double) {
        Timer(label: metric.name, dimensions: dimensions(labels), factory: factory)
            .recordNanoseconds(Int64((max(0, seconds) * 1e9).rounded()))
    }

    /// Records one observation of `duration` in a histogram.
    public func observe(_ metric: MetricDefinition, _ labels: [MetricLabel: String] = [:], duration: Duration) {
        let (seconds, attoseconds) = duration.components
        observe(metric, labels, seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Creates a series at zero without an event: a counter or histogram that exists before its
    /// first event, so that `rate()` sees that event.
    public func declare(_ metric: MetricDefinition, _ labels: [MetricLabel: String] = [:]) {
        switch metric.kind {
        case .counter: _ = FloatingPointCounter(label: metric.name, dimensions: dimensions(labels), factory: factory)
        case .gauge: _ = Gauge(label: metric.name, dimensions: dimensions(labels), factory: factory)
        case .histogram: _ = Timer(label: metric.name, dimensions: dimensions(labels), factory: factory)
        }
    }

    /// Drops a gauge's series (an agent no longer in the recipes).
    public func remove(_ metric: MetricDefinition, _ labels: [MetricLabel: String] = [:]) {
        Gauge(label: metric.name, dimensions: dimensions(labels), factory: factory).destroy()
    }

    func dimensions(_ labels: [MetricLabel: String]) -> [(String, String)] {
        labels.map { ($0.key.rawValue, $0.value) }
    }
}
