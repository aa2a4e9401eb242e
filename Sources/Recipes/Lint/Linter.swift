import Foundation

/// Static checks beyond validity: schedules the limits cannot satisfy, size limits, empty bodies, queues that run
/// dry, secrets in content, schedules that never fire.
public enum Linter {
    /// Occurrences simulated per job at most.
    public static let occurrenceLimit = 20_000

    /// Every finding for `recipe`, in file order.
    public static func lint(_ recipe: Recipe, options: LintOptions) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        let limits = options.profile.applying(recipe.limits)
        let end = options.from.addingTimeInterval(TimeInterval(options.horizon))
        var postTimes: [(Date, Mark)] = []
        for job in recipe.jobs {
            let occurrences = Self.occurrences(of: job.trigger, from: options.from, until: end)
            if occurrences.isEmpty, job.trigger.next(after: options.from) == nil {
                findings.append(neverFires(job, recipe: recipe, from: options.from))
            }
            var commentsPerRun = 0
            var commentCapPerDay: Int?
            findings += inboxRate(job, occurrences: occurrences, file: recipe.file)
            for step in job.steps {
                findings += contentFindings(step, file: recipe.file)
                findings += repeatFindings(step, job: job, recipe: recipe, from: options.from, horizon: options.horizon)
                findings += answerFindings(step, limits: limits, file: recipe.file)
                switch step.action {
                case .post(let post):
                    let runs = post.maxPerDay.map { cap in capped(occurrences, perDay: cap) } ?? occurrences
                    postTimes += runs.map { ($0, job.scheduleMark) }
                    if let queue = post.queue {
                        let left = queue.items.count - (options.queuePositions[queue.resolvedPath] ?? 0)
                        if runs.count > left {
                            let dry = left >= 0 && left < runs.count ? runs[max(0, left)] : options.from
                            findings.append(
                                Diagnostic(
                                    file: recipe.file, mark: queue.path.mark, severity: .warning,
                                    code: "lint-queue",
                                    message: "queue `\(queue.path.value)` has \(max(0, left)) item(s) left but job "
                                        + "`\(job.id.value)` posts \(runs.count) times in the next \(DurationText.format(options.horizon)); "
                                        + "it runs dry at \(dry.formatted(.iso8601))",
                                    expected: "at least \(runs.count) queued items"))
                        }
                    }
                case .comment(let comment):
                    if case .selected(let selector) = comment.target {
                        commentsPerRun += selector.maxPerRun
                    } else {
                        commentsPerRun += 1
                    }
                    if let cap = comment.maxPerDay { commentCapPerDay = (commentCapPerDay ?? 0) + cap }
                default:
                    break
                }
            }
            if commentsPerRun > 0 {
                let busiest = busiestWindow(occurrences, seconds: 86_400) * commentsPerRun
                let requested = min(busiest, commentCapPerDay ?? busiest)
                if requested > limits.commentsPerDay {
                    findings.append(
                        Diagnostic(
                            file: recipe.file, mark: job.scheduleMark, severity: .warning,
                            code: "lint-rate",
                            message:
                                "job `\(job.id.value)` asks for up to \(requested) comments a day, the limit allows "
                                + "\(limits.commentsPerDay): some will always be deferred",
                            expected:
                                "a sparser schedule, a smaller max_per_run, or max_per_day ≤ \(limits.commentsPerDay)"))
                }
            }
        }
        findings += postRate(postTimes, limits: limits, file: recipe.file)
        return findings.sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
    }

    static func occurrences(of trigger: Trigger, from: Date, until end: Date) -> [Date] {
        var result: [Date] = []
        var cursor = from
        while result.count < occurrenceLimit, let next = trigger.next(after: cursor), next <= end {
            result.append(next)
            cursor = next
        }
        return result
    }

    /// The occurrences kept by a per-day cap (per UTC day).
    static func capped(_ times: [Date], perDay cap: Int) -> [Date] {
        var counts: [Int: Int] = [:]
        return times.filter { time in
            let day = Int(time.timeIntervalSince1970) / 86_400
            counts[day, default: 0] += 1
            return counts[day, default: 0] <= cap
        }
    }

    /// The most occurrences inside any window of `seconds` (sorted input).
    static func busiestWindow(_ times: [Date], seconds: Int) -> Int {
        var best = 0
        var start = 0
        for end in times.indices {
            while times[end].timeIntervalSince(times[start]) >= TimeInterval(seconds) { start += 1 }
            best = max(best, end - start + 1)
        }
        return best
    }

    static func postRate(_ posts: [(Date, Mark)], limits: LimitProfile, file: String) -> [Diagnostic] {
        let sorted = posts.sorted { $0.0 < $1.0 }
        guard sorted.count > 1 else { return [] }
        for index in 1..<sorted.count
        where sorted[index].0.timeIntervalSince(sorted[index - 1].0) < TimeInterval(limits.postInterval) {
            let window = max(3_600, limits.postInterval)
            let requested = busiestWindow(sorted.map(\.0), seconds: window)
            let allowed = max(1, window / limits.postInterval)
            let per = window == 3_600 ? "an hour" : DurationText.format(window)
            return [
                Diagnostic(
                    file: file, mark: sorted[index].1, severity: .warning, code: "lint-rate",
                    message: "up to \(requested) posts in \(per) requested, the limit allows \(allowed) "
                        + "(1 per \(DurationText.format(limits.postInterval))): one will always be deferred",
                    expected: "posts at least \(DurationText.format(limits.postInterval)) apart")
            ]
        }
        return []
    }

    static func neverFires(_ job: Job, recipe: Recipe, from: Date) -> Diagnostic {
        let message: String
        switch job.trigger.schedule {
        case .cron(let expression):
            message =
                "cron `\(expression.source)` never matches"
                + (job.trigger.activeHours == nil ? "" : " inside the active hours")
        case .at(let instant):
            message =
                "one-shot `at` \(instant.formatted(.iso8601)) is not after \(from.formatted(.iso8601)): it never runs"
        case .every:
            message = "`every` never falls inside the active hours"
        }
        return Diagnostic(
            file: recipe.file, mark: job.scheduleMark, severity: .error, code: "lint-never", message: message,
            expected: "a schedule with at least one future occurrence")
    }
}
