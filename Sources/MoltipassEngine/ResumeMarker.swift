import Foundation
import MoltbookAPI

/// When an operator last resumed an agent (`moltipass resume`): challenge failures before it no
/// longer count toward the streak that stops the agent. Stored with the limiter's state (key
/// `resumed-at`) as `{"at": seconds since 1970}`.
package enum ResumeMarker {
    package static let stateKey = "resumed-at"

    package static func stored(_ date: Date) -> Data {
        JSONValue.object(["at": .number(date.timeIntervalSince1970)]).encoded()
    }

    package static func date(stored: Data) -> Date? {
        (try? JSONValue.parse(stored))?["at"]?.double.map(Date.init(timeIntervalSince1970:))
    }
}
