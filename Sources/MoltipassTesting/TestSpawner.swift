import Foundation
import Generation

/// Starts every child of the test process: with `Spawn` (posix_spawn; never `Foundation.Process`, whose `run()`
/// crashes intermittently on Linux: swift-corelibs-foundation PR #5472), so a child inherits no descriptor of the
/// test process but its stdin, stdout and stderr.
///
/// A child should die with the test process even when that crashes: where util-linux's `setpriv` is installed the
/// program runs under `setpriv --pdeathsig KILL` (which then execs it: same pid), so the kernel kills it when its
/// parent goes. The parent-death signal follows the *thread* that started the child, not the process, hence every
/// start happens on one thread that lives as long as the test process.
enum TestSpawner {
    static let setpriv = "/usr/bin/setpriv"
    static let canSetDeathSignal = FileManager.default.isExecutableFile(atPath: setpriv)

    /// Starts `path` (absolute) with `arguments` (argv after the program) and exactly `environment`.
    static func start(
        _ path: String, _ arguments: [String], environment: [String: String], _ options: Spawn.Options
    ) throws -> SpawnedProcess {
        // Checked here: under setpriv a missing program would only be setpriv's exit status.
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("\(path) is not an executable file")
        }
        let (program, argv) =
            canSetDeathSignal
            ? (setpriv, [setpriv, "--pdeathsig", "KILL", "--", path] + arguments) : (path, [path] + arguments)
        let environment = Spawn.environment(environment.merging(movedClock) { given, _ in given })
        let started = SpawnThread.shared.perform { () -> Result<SpawnedProcess, SpawnError> in
            do throws(SpawnError) {
                return .success(try Spawn.start(path: program, arguments: argv, environment: environment, options))
            } catch {
                return .failure(error)
            }
        }
        switch started {
        case .success(let child): return child
        case .failure(let error): throw HarnessError(error.description)
        }
    }

    /// The variables that move the test process's wall clock (`scripts/clock-ahead`: `LD_PRELOAD` naming it and
    /// `CLOCK_AHEAD_SECONDS`), passed on to every child: a child on another clock than its test would make the
    /// suite's "clock moved ahead" guard (docs/testing.md) test nothing. Empty when the clock is not moved.
    static let movedClock: [String: String] = {
        let inherited = ProcessInfo.processInfo.environment
        guard let preload = inherited["LD_PRELOAD"], preload.contains("clock-ahead"),
            let seconds = inherited["CLOCK_AHEAD_SECONDS"]
        else { return [:] }
        return ["LD_PRELOAD": preload, "CLOCK_AHEAD_SECONDS": seconds]
    }()

    /// The test process's own environment, for system programs that need more than PATH and LANG.
    static var inheritedEnvironment: [String: String] { ProcessInfo.processInfo.environment }
}

/// One thread, never ending, that runs the closures given to it one after the other.
final class SpawnThread: @unchecked Sendable {
    static let shared = SpawnThread()

    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
        let thread = Thread { [self] in serve() }
        thread.name = "moltipass-test-spawner"
        thread.start()
    }

    /// Runs `body` on the thread and returns its result (blocking the caller meanwhile).
    func perform<T>(_ body: @escaping () -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        condition.withLock {
            jobs.append {
                box.value = body()
                done.signal()
            }
            condition.signal()
        }
        done.wait()
        return box.value!
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}
