import Foundation
import Testing

@testable import RateLimiting

/// The `dm` class (issue 22): our own pacing of direct messages, one every 10 seconds and 100 a
/// day, in both profiles; state stored before the class existed still loads.
@Suite("Limiter: direct messages")
struct DirectMessageLimitTests {
    /// Both profiles give `dm` the same two rules (the engine, not the limiter, refuses DMs for
    /// an agent younger than 24 hours); a 429 on a DM waits a minute and learns at most a minute.
    @Test func rulesInEveryProfile() {
        let expected = ["dm.cooldown: 1 per 10s", "dm.daily: 100 per 24h"]
        #expect(LimitRules.rules(for: .standard)[.dm]?.map(\.description) == expected)
        #expect(LimitRules.rules(for: .newAgent)[.dm]?.map(\.description) == expected)
        #expect(LimitClass.dm.documentedMaxSpacing == 60)
        #expect(LimitClass.dm.defaultRetryWait == 60)
        #expect(LimitClass(rawValue: "dm") == .dm)
        #expect(LimitClass.allCases.last == .dm)
    }

    /// One DM per 10 seconds: a second at t+5 waits until t+10, bound by the cooldown.
    @Test func cooldown() {
        var limiter = Limiter(rules: LimitRules.rules(for: .standard))
        #expect(limiter.reserve([.write, .dm], at: t0) == .allowed)
        #expect(
            limiter.reserve([.write, .dm], at: at(5))
                == .deferred(
                    until: at(10),
                    because: Limiter.Binding(limitClass: .dm, source: .rule, detail: "dm.cooldown: 1 per 10s")))
        #expect(limiter.reserve([.write, .dm], at: at(10)) == .allowed)
    }

    /// 100 DMs a day: the 101st, even well spaced, waits until a day after the first.
    @Test func dailyCap() {
        var limiter = Limiter(rules: [.dm: LimitRules.dmRules])
        for index in 0..<100 {
            #expect(limiter.reserve([.dm], at: at(Double(index) * 60)) == .allowed, "DM \(index)")
        }
        #expect(limiter.tokens(.dm, at: at(6_000)) == 0)
        #expect(
            limiter.reserve([.dm], at: at(6_000))
                == .deferred(
                    until: at(86_400),
                    because: Limiter.Binding(limitClass: .dm, source: .rule, detail: "dm.daily: 100 per 24h")))
        #expect(limiter.reserve([.dm], at: at(86_400)) == .allowed)
    }

    /// Bytes a limiter of an earlier version stored (frozen: a post cooldown and one post at t0,
    /// no `dm` class anywhere) still load; with the current rules set, as the engine sets them
    /// each pass, the post still waits and a DM is admitted; the state, saved again, reads back
    /// with its `dm` admission.
    @Test func olderStateLoads() throws {
        let hex =
            "004d4c0101000000000000000400000000000000706f737401000000000000000d00000000000000706f73742e636f6f6c"
            + "646f776e01000000000000000000000000209c400001000000000000001200000000000000706f73742f706f73742e63"
            + "6f6f6c646f776e000100000000000000000000d022aac741000000000000000000000000000000000100000000000000"
            + "0400000000000000706f73740100000000000000000000d022aac741"
        let bytes = Data(
            stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            })
        var limiter = try Limiter(serialized: bytes)
        #expect(limiter.rules.keys.sorted() == [.post])
        #expect(limiter.serialized() == bytes)
        limiter.setRules(LimitRules.rules(for: .standard))
        #expect(limiter.earliest([.post], at: at(60)).date == at(1_800))
        #expect(limiter.reserve([.write, .dm], at: at(60)) == .allowed)
        let restored = try Limiter(serialized: limiter.serialized())
        #expect(restored == limiter)
        #expect(restored.tokens(.dm, at: at(61)) == 0)
        #expect(restored.tokens(.dm, at: at(70)) == 1)
    }
}
