import CoreMetrics
import Prometheus
import Synchronization

/// One registry of the catalog's metrics and its exposition in the Prometheus text format: what
/// `/metrics` serves and `run --once --metrics-textfile` writes.
///
/// Code that records passes the export's `factory` explicitly (`Counter(label:dimensions:factory:)`),
/// so tests make as many exports as they like. A process that serves metrics also installs its
/// factory as swift-metrics' global backend once (`bootstrapProcessBackend`), so a library that
/// uses the global API lands in the same registry (still only the catalog's names).
public final class MetricsExport: Sendable {
    /// The content type of the Prometheus text format, version 0.0.4.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public let registry: PrometheusCollectorRegistry
    public let factory: CatalogMetricsFactory

    public init() {
        registry = PrometheusCollectorRegistry()
        factory = CatalogMetricsFactory(registry: registry)
    }

    /// Every registered series in the text format.
    public func exposition() -> String {
        registry.emitToString()
    }

    private static let bootstrapped = Mutex(false)

    /// Makes `export`'s factory swift-metrics' global backend, once per process (swift-metrics
    /// allows one bootstrap): later calls do nothing and return false.
    @discardableResult
    public static func bootstrapProcessBackend(_ export: MetricsExport) -> Bool {
        let first = bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        if first { MetricsSystem.bootstrap(export.factory) }
        return first
    }
}
