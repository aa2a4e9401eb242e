import Foundation
import MoltipassTesting
import Testing

@testable import MoltipassCommands

/// The daemon's real sleep for a virtual wait on a `--time-scale` clock.
@Suite("Daemon wait on a scaled clock")
struct DaemonWaitTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// Scale 1 keeps the old wait (the virtual wait, at least 50 ms); scale N divides it by N,
    /// never below 5 ms, so an instant already reached does not spin.
    @Test(arguments: [
        (1.0, 1_800.0, 1_800.0), (1, 0.01, 0.05), (1, -30, 0.05),
        (600, 1_800, 3), (600, 300, 0.5), (600, 0, 0.005), (600, -60, 0.005), (100_000, 1_800, 0.018),
    ])
    func realWait(scale: Double, virtualSeconds: Double, real: Double) throws {
        let timeScale = try #require(TimeScale(factor: scale))
        let wait = Daemon.realWait(until: Self.now.addingTimeInterval(virtualSeconds), from: Self.now, scale: timeScale)
        #expect(abs(wait - real) < 1e-9, "\(wait)")
    }
}
