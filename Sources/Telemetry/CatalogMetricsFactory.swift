import CoreMetrics
import Prometheus

/// A swift-metrics backend over one Prometheus registry that registers only the metrics of
/// `MetricCatalog`, each with its help text and buckets: a label that is not in the catalog, a
/// metric of the wrong kind or with other label names gets a handler that records nothing, so
/// nothing outside the documented set can reach the exposition (a test checks it).
///
/// Counters and floating-point counters are Prometheus counters; gauges (`Gauge`, a recorder that
/// does not aggregate) and meters are gauges; timers are histograms of seconds, and aggregating
/// recorders histograms of values, with the catalog's buckets. Dimensions are put in the
/// catalog's label order; a value longer than `maxValueLength` is cut (a bounded series even if
/// a caller passed something long).
public struct CatalogMetricsFactory: MetricsFactory {
    public let registry: PrometheusCollectorRegistry

    static let maxValueLength = 128

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// The catalog's definition for `label` when it is of one of `kinds` and `dimensions` name
    /// exactly its labels; the dimensions in its order.
    func checked(_ label: String, _ dimensions: [(String, String)], _ kinds: Set<MetricDefinition.Kind>)
        -> (MetricDefinition, [(String, String)])?
    {
        guard let definition = MetricCatalog.definition(named: label), kinds.contains(definition.kind) else {
            return nil
        }
        let given = Dictionary(dimensions, uniquingKeysWith: { first, _ in first })
        guard given.count == dimensions.count, Set(given.keys) == Set(definition.labels.map(\.rawValue)) else {
            return nil
        }
        let ordered = definition.labels.map { label in
            (label.rawValue, String(given[label.rawValue, default: ""].prefix(Self.maxValueLength)))
        }
        return (definition, ordered)
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let (definition, labels) = checked(label, dimensions, [.counter]) else {
            return NOOPMetricsHandler.instance
        }
        return registry.makeCounter(descriptor: definition.descriptor, labels: labels)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
        -> any FloatingPointCounterHandler
    {
        guard let (definition, labels) = checked(label, dimensions, [.counter]) else {
            return NOOPMetricsHandler.instance
        }
        return registry.makeCounter(descriptor: definition.descriptor, labels: labels)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        guard let (definition, labels) = checked(label, dimensions, [.gauge]) else {
            return NOOPMetricsHandler.instance
        }
        return registry.makeGauge(descriptor: definition.descriptor, labels: labels)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard let (definition, labels) = checked(label, dimensions, aggregate ? [.histogram] : [.gauge]) else {
            return NOOPMetricsHandler.instance
        }
        guard aggregate else { return registry.makeGauge(descriptor: definition.descriptor, labels: labels) }
        return registry.makeValueHistogram(
            descriptor: definition.descriptor, labels: labels, buckets: definition.buckets)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let (definition, labels) = checked(label, dimensions, [.histogram]) else {
            return NOOPMetricsHandler.instance
        }
        return registry.makeDurationHistogram(
            descriptor: definition.descriptor, labels: labels,
            buckets: definition.buckets.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) })
    }

    public func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    public func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge {
            registry.unregisterGauge(gauge)
        } else if let histogram = handler as? ValueHistogram {
            registry.unregisterValueHistogram(histogram)
        }
    }

    public func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}

extension MetricDefinition {
    /// Its name and help text as the registry takes them.
    var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
