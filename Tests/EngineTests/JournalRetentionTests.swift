import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Testing

/// `--journal-retention` values and the engine's daily cut-off.
@Suite struct JournalRetentionTests {
    @Test func parsesDurationsAndForever() {
        #expect(JournalRetention("forever") == .forever)
        #expect(JournalRetention("90d") == .keep(90 * 86_400))
        #expect(JournalRetention("12h30m") == .keep(45_000))
        #expect(JournalRetention("90d")?.seconds == 7_776_000)
        #expect(JournalRetention("forever")?.seconds == nil)
        for bad in ["", "90", "3x", "0d", "-1d", "Forever", "d90"] {
            #expect(JournalRetention(bad) == nil, "\(bad)")
        }
    }

    /// The cut-off is `now − retention` rounded down to a UTC midnight: it moves once a day, so
    /// the passes of one day all ask with the same instant.
    @Test func cutOffMovesOnceADay() throws {
        var configuration = Runner.Configuration(holder: "test")
        configuration.journalRetention = 86_400
        let morning = try #require(ISO8601DateFormatter().date(from: "2026-03-02T00:00:01Z"))
        let evening = try #require(ISO8601DateFormatter().date(from: "2026-03-02T23:59:59Z"))
        let midnight = try #require(ISO8601DateFormatter().date(from: "2026-03-01T00:00:00Z"))
        #expect(configuration.journalCutOff(at: morning) == midnight)
        #expect(configuration.journalCutOff(at: evening) == midnight)
        #expect(configuration.journalCutOff(at: evening.addingTimeInterval(1)) == midnight.addingTimeInterval(86_400))
        #expect(Runner.Configuration(holder: "test").journalRetention == TimeInterval(90 * 86_400))
        configuration.journalRetention = nil
        #expect(configuration.journalCutOff(at: evening) == nil)
    }
}
