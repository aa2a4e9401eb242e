// moltipass-bench: requests through the real client stack (MoltbookClient → CurlTransport →
// libcurl), for bench/run-all's per-request overhead. Benchmark only: not part of `moltipass`.
//
//   MOLTIPASS_BENCH_KEY=moltbook_sk_… moltipass-bench BASE_URL COUNT
//
// Sends COUNT sequential `GET /agents/me` on one client (connection reuse, as a run does) and
// prints `{"requests": COUNT, "seconds": S}` (monotonic clock, first request included).
import Foundation
import MoltbookAPI

let arguments = CommandLine.arguments
guard arguments.count == 3, let base = URL(string: arguments[1]), let count = Int(arguments[2]), count > 0,
    let key = ProcessInfo.processInfo.environment["MOLTIPASS_BENCH_KEY"]
else {
    FileHandle.standardError.write(Data("usage: MOLTIPASS_BENCH_KEY=KEY moltipass-bench BASE_URL COUNT\n".utf8))
    exit(64)
}
let client = try MoltbookClient(
    baseURL: base, apiKey: APIKey(key),
    transport: try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true))),
    allowLoopback: true)
let clock = ContinuousClock()
let started = clock.now
for _ in 0..<count {
    _ = try await client.me()
}
let elapsed = clock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("{\"requests\": \(count), \"seconds\": \(seconds)}")
