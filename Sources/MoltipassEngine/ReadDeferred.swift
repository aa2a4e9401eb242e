import Foundation

/// A read the limiter does not allow yet: the job is planned again on a later pass.
struct ReadDeferred: Error {
    var until: Date?
    var reason: String
}
