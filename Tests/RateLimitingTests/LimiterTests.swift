import Foundation
import MoltbookAPI
import Testing

@testable import RateLimiting

/// Fixed instants, as in x/time/rate's tests: t0 is 2026-03-01T10:00:00Z.
let t0 = Date(timeIntervalSince1970: 1_772_359_200)
func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

@Suite("Limiter rules at fixed instants")
struct LimiterTests {
    /// One step of a table: at `time`, reserve `classes`; expect allowed or deferred until.
    struct Step: Sendable, CustomStringConvertible {
        var time: Double
        var allowed: Bool
        var until: Double? = nil
        var description: String { "t+\(time) \(allowed ? "ok" : "wait→\(until ?? -1)")" }
    }

    static func run(_ rules: [Rule], _ steps: [Step], algorithm: String = #function) {
        var limiter = Limiter(rules: [.post: rules])
        for step in steps {
            let decision = limiter.reserve([.post], at: at(step.time))
            switch decision {
            case .allowed:
                #expect(step.allowed, "\(step): was allowed")
            case .deferred(let until, _):
                #expect(!step.allowed, "\(step): was deferred")
                #expect(until == at(step.until ?? .nan), "\(step): deferred until \(until.timeIntervalSince(t0))")
            case .never:
                Issue.record("\(step): never")
            }
        }
    }

    /// A cooldown (1 per 30 min): the second post waits exactly until 30 min after the first.
    @Test func cooldown() {
        Self.run(
            [Rule(id: "post.cooldown", limit: 1, period: 1_800)],
            [
                Step(time: 0, allowed: true),
                Step(time: 1, allowed: false, until: 1_800),
                Step(time: 1_799.999, allowed: false, until: 1_800),
                Step(time: 1_800, allowed: true),
                Step(time: 1_800, allowed: false, until: 3_600),
            ])
    }

    /// A sliding window (3 per 60 s): a burst of three, then each slot frees 60 s after its use.
    @Test func slidingWindowBurst() {
        Self.run(
            [Rule(id: "w", limit: 3, period: 60)],
            [
                Step(time: 0, allowed: true),
                Step(time: 10, allowed: true),
                Step(time: 20, allowed: true),
                Step(time: 30, allowed: false, until: 60),
                Step(time: 60, allowed: true),
                Step(time: 61, allowed: false, until: 70),
                Step(time: 70, allowed: true),
            ])
    }

    /// GCRA (3 per 60 s): a burst of three, then one every 20 s.
    @Test func gcraBurstThenRate() {
        Self.run(
            [Rule(id: "g", limit: 3, period: 60, algorithm: .gcra)],
            [
                Step(time: 0, allowed: true),
                Step(time: 0, allowed: true),
                Step(time: 0, allowed: true),
                Step(time: 0, allowed: false, until: 20),
                Step(time: 20, allowed: true),
                Step(time: 21, allowed: false, until: 40),
                Step(time: 100, allowed: true),
                Step(time: 100, allowed: true),
            ])
    }

    /// A clock that jumps backwards mints no tokens (sliding window and GCRA alike).
    @Test(arguments: [Rule.Algorithm.slidingWindow, .gcra])
    func clockJumpsBackwards(algorithm: Rule.Algorithm) {
        var limiter = Limiter(rules: [.post: [Rule(id: "r", limit: 1, period: 100, algorithm: algorithm)]])
        #expect(limiter.reserve([.post], at: at(1_000)) == .allowed)
        // The clock jumps back an hour: the admission at t+1000 still counts.
        guard case .deferred(let until, _) = limiter.reserve([.post], at: at(-2_600)) else {
            Issue.record("a backwards clock minted a token")
            return
        }
        #expect(until == at(1_100))
        #expect(limiter.tokens(.post, at: at(-2_600)) == 0)
    }

    /// A zero limit never admits; a tiny period admits again almost at once.
    @Test func zeroAndTinyLimits() {
        var zero = Limiter(rules: [.post: [Rule(id: "z", limit: 0, period: 60)]])
        guard case .never(let binding) = zero.reserve([.post], at: t0) else {
            Issue.record("a zero limit admitted")
            return
        }
        #expect(binding.detail == "z: 0 per 1m")
        var tiny = Limiter(rules: [.post: [Rule(id: "t", limit: 1, period: 0.001)]])
        #expect(tiny.reserve([.post], at: t0) == .allowed)
        #expect(tiny.reserve([.post], at: at(0.001)) == .allowed)
    }

    /// Several rules in a class: the strictest binds, and it is named.
    @Test func strictestRuleBinds() {
        var limiter = Limiter(rules: [
            .comment: [
                Rule(id: "comment.cooldown", limit: 1, period: 20),
                Rule(id: "comment.daily", limit: 2, period: 86_400),
            ]
        ])
        #expect(limiter.reserve([.comment], at: t0) == .allowed)
        #expect(
            limiter.reserve([.comment], at: at(5))
                == .deferred(
                    until: at(20),
                    because: .init(limitClass: .comment, source: .rule, detail: "comment.cooldown: 1 per 20s")))
        #expect(limiter.reserve([.comment], at: at(20)) == .allowed)
        #expect(
            limiter.reserve([.comment], at: at(40))
                == .deferred(
                    until: at(86_400),
                    because: .init(limitClass: .comment, source: .rule, detail: "comment.daily: 2 per 24h")))
    }

    /// Reserving several classes is all or nothing: a refusal in one records nothing in the other.
    @Test func multiClassIsAtomic() {
        var limiter = Limiter(rules: [
            .write: [Rule(id: "write.minute", limit: 30, period: 60)],
            .post: [Rule(id: "post.cooldown", limit: 1, period: 1_800)],
        ])
        #expect(limiter.reserve([.write, .post], at: t0) == .allowed)
        #expect(limiter.tokens(.write, at: t0) == 29)
        guard case .deferred = limiter.reserve([.write, .post], at: at(1)) else {
            Issue.record("second post admitted")
            return
        }
        #expect(limiter.tokens(.write, at: at(1)) == 29)
    }

    /// Tokens count down with admissions and come back as the window slides.
    @Test func tokensAt() {
        var limiter = Limiter(rules: [.read: [Rule(id: "read.minute", limit: 60, period: 60)]])
        for second in 0..<10 { #expect(limiter.reserve([.read], at: at(Double(second))) == .allowed) }
        #expect(limiter.tokens(.read, at: at(10)) == 50)
        #expect(limiter.tokens(.read, at: at(60.5)) == 51)
        #expect(limiter.tokens(.read, at: at(200)) == 60)
    }

    /// The state round-trips through Codable (it is persisted between cron runs).
    @Test func persistence() throws {
        var limiter = Limiter(rules: LimitRules.rules(for: .standard))
        #expect(limiter.reserve([.write, .comment], at: t0) == .allowed)
        let data = try JSONEncoder().encode(limiter)
        var restored = try JSONDecoder().decode(Limiter.self, from: data)
        #expect(restored == limiter)
        #expect(restored.reserve([.write, .comment], at: at(19)) == limiter.reserve([.write, .comment], at: at(19)))
    }

    /// A limiter with every kind of state: window and GCRA rules, a hold, a learned spacing.
    static func populated() -> Limiter {
        var rules = LimitRules.rules(for: .standard)
        rules[.vote] = [Rule(id: "vote.pace", limit: 10, period: 60, algorithm: .gcra)]
        var limiter = Limiter(rules: rules)
        for second in stride(from: 0.0, to: 600, by: 21.5) {
            _ = limiter.reserve([.write, .comment], at: at(second))
            _ = limiter.reserve([.vote], at: at(second + 0.25))
        }
        var hint = RateLimitHint()
        hint.retryAfterMinutes = 7
        limiter.absorb(hint, status: 429, action: .post, request: .write, at: at(700))
        return limiter
    }

    /// The stored form round-trips exactly, equal limiters give equal bytes, and the limiter
    /// restored from it answers as the original.
    @Test func serializedRoundTrip() throws {
        var limiter = Self.populated()
        let data = limiter.serialized()
        #expect(data.starts(with: [0x00, 0x4D, 0x4C, 0x01]))
        var restored = try Limiter(serialized: data)
        #expect(restored == limiter)
        #expect(restored.serialized() == data)
        #expect(!restored.holds.isEmpty)
        #expect(restored.reserve([.write, .comment], at: at(800)) == limiter.reserve([.write, .comment], at: at(800)))
        #expect(restored.reserve([.vote], at: at(800)) == limiter.reserve([.vote], at: at(800)))
        #expect(restored.serialized() != data)
        #expect(try Limiter(serialized: Limiter(rules: [:]).serialized()) == Limiter(rules: [:]))
    }

    /// State written by earlier versions (Codable JSON) still loads.
    @Test func serializedReadsLegacyJSON() throws {
        let limiter = Self.populated()
        let legacy = try JSONEncoder().encode(limiter)
        #expect(try Limiter(serialized: legacy) == limiter)
    }

    /// Damaged bytes are an error, never a crash or a silently emptied limiter: every strict
    /// prefix, a byte too many, an unknown class and an implausible count.
    @Test func serializedRejectsDamage() throws {
        let data = Self.populated().serialized()
        for length in Self.magic.count..<data.count {
            #expect(throws: Limiter.SerializationError.self) { try Limiter(serialized: data.prefix(length)) }
        }
        #expect(throws: Limiter.SerializationError.self) { try Limiter(serialized: data + [0]) }
        var unknownClass = Data(Self.magic)
        unknownClass += [1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0] + Array("nope".utf8)
        #expect(throws: Limiter.SerializationError.self) { try Limiter(serialized: unknownClass) }
        let huge = Data(Self.magic) + [UInt8](repeating: 0xFF, count: 8)
        #expect(throws: Limiter.SerializationError.self) { try Limiter(serialized: huge) }
    }

    static let magic: [UInt8] = [0x00, 0x4D, 0x4C, 0x01]
}
