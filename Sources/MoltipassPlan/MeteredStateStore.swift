import Foundation
import MoltipassEngine
import Storage

/// A store that measures the time spent in it (`PassCostMeter.Part.store`), for
/// `moltipass-bench pass-cost`.
struct MeteredStateStore: StateStore {
    let inner: any StateStore
    let meter: PassCostMeter

    func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
        try await meter.measure(.store) { try await inner.read(body) }
    }

    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> T
    ) async throws -> T {
        try await meter.measure(.store) { try await inner.transaction(body) }
    }
}
