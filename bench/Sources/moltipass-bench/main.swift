// moltipass-bench: measurements bench/run-all cannot make from outside `moltipass`. Benchmark only:
// not part of the shipped binary.
//
//   MOLTIPASS_BENCH_KEY=moltbook_sk_… moltipass-bench BASE_URL COUNT
//       COUNT sequential `GET /agents/me` through the real client stack (MoltbookClient →
//       CurlTransport → libcurl) on one client, as a run sends them; prints
//       `{"requests": COUNT, "seconds": S}` (monotonic clock, first request included).
//   moltipass-bench kdf
//       One scrypt derivation with the keychain's default cost (`ScryptParameters.strong`), in a
//       fresh process as `run --once` does it; prints `{"kdf_seconds": S}`.
import CryptoExtras
import Foundation
import Keychain
import MoltbookAPI

let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "kdf" {
    let scrypt = ScryptParameters.strong
    let started = clock.now
    _ = try KDF.Scrypt.deriveKey(
        from: Data("benchmark passphrase".utf8), salt: Data(repeating: 7, count: 16), outputByteCount: 32,
        rounds: scrypt.n, blockSize: Int(scrypt.r), parallelism: Int(scrypt.p))
    print("{\"kdf_seconds\": \(seconds(clock.now - started))}")
    exit(0)
}
guard arguments.count == 3, let base = URL(string: arguments[1]), let count = Int(arguments[2]), count > 0,
    let key = ProcessInfo.processInfo.environment["MOLTIPASS_BENCH_KEY"]
else {
    FileHandle.standardError.write(
        Data("usage: MOLTIPASS_BENCH_KEY=KEY moltipass-bench BASE_URL COUNT | moltipass-bench kdf\n".utf8))
    exit(64)
}
let client = try MoltbookClient(
    baseURL: base, apiKey: APIKey(key),
    transport: try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true))),
    allowLoopback: true)
let started = clock.now
for _ in 0..<count {
    _ = try await client.me()
}
print("{\"requests\": \(count), \"seconds\": \(seconds(clock.now - started))}")
