import Foundation
import Testing

@testable import RateLimiting

/// `record(_:at:)`: charging an action that happened while the limiter was not watching.
@Suite("Limiter: recording past actions")
struct LimiterRecordTests {
    /// A post sent at t+0 by a run that died before saving: recorded at t+240, the next post
    /// waits until t+1800 (30 min after the real send), not until t+240+1800 and not at once.
    @Test(arguments: [Rule.Algorithm.slidingWindow, .gcra])
    func pastSendCountsFromItsTime(_ algorithm: Rule.Algorithm) {
        var limiter = Limiter(rules: [.post: [Rule(id: "post.cooldown", limit: 1, period: 1_800, algorithm: algorithm)]]
        )
        limiter.record([.post], at: at(0))
        #expect(limiter.reserve([.post], at: at(240)) == .deferred(until: at(1_800), because: binding))
        #expect(limiter.reserve([.post], at: at(1_800)) == .allowed)
    }

    /// Recording the same instant twice (the dead run had saved its reservation after all)
    /// charges once.
    @Test func sameInstantChargedOnce() {
        var limiter = Limiter(rules: [.comment: [Rule(id: "comment.hour", limit: 2, period: 3_600)]])
        #expect(limiter.reserve([.comment], at: at(0)) == .allowed)
        limiter.record([.comment], at: at(0))
        #expect(limiter.tokens(.comment, at: at(10)) == 1)
        limiter.record([.comment], at: at(5))
        #expect(limiter.tokens(.comment, at: at(10)) == 0)
    }

    var binding: Limiter.Binding {
        Limiter.Binding(limitClass: .post, source: .rule, detail: "post.cooldown: 1 per 30m")
    }
}
