import Dispatch
import Foundation
import Generation
import Synchronization

/// `run --once` told to stop (SIGTERM from a cron timeout or `timeout(1)`, SIGINT): the generator
/// programs it started lead process groups of their own, so the signal does not reach them and
/// they would outlive the run. It kills them and exits as the signal would have (128 + its
/// number) at once: a run told to stop has no time for a program's grace. What the run journaled stays; what it had not
/// journaled is planned again by the next run, as after a kill (docs/generation.md).
public final class OnceStop: Sendable {
    private let sources: SendableBox<[any DispatchSourceSignal]>

    private init(_ sources: [any DispatchSourceSignal]) { self.sources = SendableBox(sources) }

    deinit { for source in sources.value { source.cancel() } }

    /// Handles SIGTERM and SIGINT until the returned value is released.
    public static func install() -> OnceStop {
        let queue = DispatchQueue(label: "moltipass.once-stop")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { stop(exitingWith: 128 + number) }
            source.resume()
            sources.append(source)
        }
        return OnceStop(sources)
    }

    /// The status a stop asked for (0: none), set before the programs are killed.
    private static let requested = Atomic<Int32>(0)

    /// Kills the programs' groups and leaves at once with `_exit`: the pass, which sees its
    /// program die, must not get to finish and exit with its own status first. The status is
    /// recorded before the kill, so a pass that saw its program die and ended before this
    /// thread reached `_exit` leaves with it too (`exitIfStopped`): on a loaded machine the run
    /// once exited 17, "generator failed", instead of 143 (CI of 2026-12-02).
    static func stop(exitingWith status: Int32) {
        requested.store(status, ordering: .sequentiallyConsistent)
        RunningGenerators.killNow()
        _exit(status)
    }

    /// Leaves with the stop's status when a stop was asked for; returns otherwise.
    public static func exitIfStopped() {
        let status = requested.load(ordering: .sequentiallyConsistent)
        if status != 0 { _exit(status) }
    }
}
