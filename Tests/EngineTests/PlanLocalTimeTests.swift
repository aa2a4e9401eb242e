import Foundation
import Testing

@testable import MoltipassCommands
@testable import MoltipassEngine
@testable import MoltipassPlan

/// `PlanResult.local`, the times of the plan's table and page, by arithmetic: the same text as
/// `DateFormatter` with `yyyy-MM-dd HH:mm:ss xxx`, across zones, DST changes and fractions.
@Suite("Plan: local times")
struct PlanLocalTimeTests {
    static let zones = [
        "UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Asia/Kolkata", "Asia/Kathmandu",
        "Australia/Lord_Howe", "America/St_Johns", "Pacific/Chatham", "America/Sao_Paulo",
    ]

    @Test(arguments: zones)
    func matchesDateFormatter(zone identifier: String) throws {
        let zone = try #require(TimeZone(identifier: identifier))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
        // Every 7 h 13 min 17.37 s over two years (DST changes both ways), plus edges.
        var instants = stride(from: 1_767_225_600.0, to: 1_830_297_600.0, by: 26_000.37).map {
            Date(timeIntervalSince1970: $0)
        }
        instants += [0, 951_782_400, 1_772_409_599.999_9, 1_772_409_600, -86_400.5].map {
            Date(timeIntervalSince1970: $0)
        }
        for instant in instants {
            #expect(PlanResult.local(instant, zone) == formatter.string(from: instant), "\(instant)")
        }
    }
}
