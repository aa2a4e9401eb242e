import Testing

@testable import Telemetry
