import Foundation
import Synchronization

/// Where a pass's time goes, for the benchmarks (`moltipass-bench pass-cost`): the machine's
/// decisions (`AccountMachine.tick` and `handle`), the store (every `read` and `transaction`),
/// and the simulated server (`plan`'s sandbox model answering a request). What is left of a
/// pass is the driver: the client encoding and decoding, the report, the keychain-free client
/// factory. Off unless a caller sets one (`Runner.Configuration.meter`, `PlanSimulation.meter`):
/// nothing reads a clock for it otherwise.
public final class PassCostMeter: Sendable {
    public enum Part: Int, CaseIterable, Sendable {
        case machine, store, server

        public var name: String {
            switch self {
            case .machine: "machine"
            case .store: "store"
            case .server: "server"
            }
        }
    }

    private let totals = Mutex<[Duration]>(Array(repeating: .zero, count: Part.allCases.count))
    private let calls = Mutex<[Int]>(Array(repeating: 0, count: Part.allCases.count))

    public init() {}

    /// Time spent in `part` so far.
    public func total(_ part: Part) -> Duration { totals.withLock { $0[part.rawValue] } }

    /// How many times `part` was entered.
    public func count(_ part: Part) -> Int { calls.withLock { $0[part.rawValue] } }

    func add(_ part: Part, _ duration: Duration) {
        totals.withLock { $0[part.rawValue] += duration }
        calls.withLock { $0[part.rawValue] += 1 }
    }

    func measure<T>(_ part: Part, _ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { add(part, clock.now - start) }
        return try body()
    }

    package func measure<T>(_ part: Part, _ body: () async throws -> T) async rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { add(part, clock.now - start) }
        return try await body()
    }
}
