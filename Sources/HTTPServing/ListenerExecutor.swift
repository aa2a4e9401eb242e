import Foundation

/// Threads of their own for the process's HTTP listeners (the sandbox, the model stub, the
/// metrics and probes): a server started with `Task(executorPreference: ListenerExecutor.shared)`
/// runs its accept loop, its connections and the default actors they call here, not on Swift's
/// cooperative pool.
///
/// Why: that pool has one thread per core (two on CI), shared first come, first served by every
/// task of the process. The test process runs several hundred tests at once, many of them CPU-bound
/// for seconds (simulated months, page renders); a listener queued behind them answered its
/// clients after their 10 s timeouts (CI failed on it). A daemon busy with a pass over a thousand
/// agents starved its `/metrics` and probes the same way (bench/notes.md, Fleet). Threads of the
/// operating system's are scheduled fairly, so a listener here gets its share of the CPU whatever
/// the pool is busy with.
public final class ListenerExecutor: TaskExecutor, @unchecked Sendable {
    /// The process's listener threads.
    /// Four: on a loaded machine each runnable thread gets its share of the cores, and a listener
    /// that serves many clients (the test process's hundred sandboxes) needs more than one share.
    public static let shared = ListenerExecutor(threads: 4, name: "moltipass-listener")

    private let condition = NSCondition()
    /// Jobs waiting, oldest at `head` (guarded by `condition`).
    private var jobs: [UnownedJob] = []
    private var head = 0

    /// Starts `threads` threads that run the jobs given to the executor in order of arrival.
    public init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in serve() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    private func serve() {
        while true {
            let job = condition.withLock { () -> UnownedJob in
                while head == jobs.count { condition.wait() }
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 1_024, head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                return job
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
