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
//   moltipass-bench empty-passes COUNT RECIPE…
//       The engine's floor: COUNT passes of each recipe's agent (one `Runner` per agent, as `plan`
//       drives them) against `plan`'s in-memory state store, one simulated second apart, at
//       instants where nothing is due (give recipes due once a day, 12 h away:
//       `gen-recipes.py --daily-at-utc`). No request is made. Prints
//       `{"passes": N, "seconds": S, "microseconds_per_pass": U}` (median of 5 rounds).
//   moltipass-bench pass-cost DAYS RECIPE…
//       Where a pass's time goes: `plan` of the recipes over DAYS simulated days from
//       2026-03-02T00:00:00Z (plan's defaults), once plain and once with a `PassCostMeter`, which
//       times the machine's decisions (`AccountMachine.tick`/`handle`), the store (every read and
//       transaction) and the simulated server (the sandbox model's answers); the rest is the
//       driver (client encoding and decoding, reports). Prints one JSON object: plain and metered
//       wall seconds, passes, and seconds and calls per part.
import CryptoExtras
import Foundation
import Keychain
import Logging
import MoltbookAPI
import MoltipassEngine
import MoltipassPlan
import Recipes
import Storage

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
if arguments.count >= 4, arguments[1] == "pass-cost", let days = Double(arguments[2]), days > 0 {
    try await passCost(days: days, paths: Array(arguments[3...]))
    exit(0)
}
if arguments.count >= 4, arguments[1] == "empty-passes", let count = Int(arguments[2]), count > 0 {
    try await emptyPasses(count: count, paths: Array(arguments[3...]))
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

struct NoRequestExpected: Error {}

func emptyPasses(count: Int, paths: [String]) async throws {
    var recipes: [Recipe] = []
    for path in paths {
        guard case .success(let recipe) = RecipeLoader.load(path: path) else {
            FileHandle.standardError.write(Data("moltipass-bench: invalid recipe \(path)\n".utf8))
            exit(65)
        }
        recipes.append(recipe)
    }
    let store = MemoryStateStore()
    let agents = Array(Set(recipes.map(\.agent.value))).sorted()
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let runners = agents.map { agent in
        Runner(
            recipes: recipes.filter { $0.agent.value == agent }, store: store,
            configuration: Runner.Configuration(holder: "bench"), logger: logger
        ) { _, _ in throw NoRequestExpected() }
    }
    // 2026-03-02T00:00:00Z; the recipes are due at 12:00 UTC.
    let start = Date(timeIntervalSince1970: 1_772_409_600)
    var rounds: [Double] = []
    var instant = start
    for _ in 0..<5 {
        var passes = 0
        let began = clock.now
        while passes < count {
            for runner in runners where passes < count {
                let report = await runner.pass(now: instant)
                if !report.items.isEmpty {
                    FileHandle.standardError.write(Data("moltipass-bench: something was due at \(instant)\n".utf8))
                    exit(1)
                }
                passes += 1
            }
            instant = instant.addingTimeInterval(1)
        }
        rounds.append(seconds(clock.now - began))
    }
    let median = rounds.sorted()[2]
    print(
        "{\"passes\": \(count), \"seconds\": \(median), \"microseconds_per_pass\": \(median / Double(count) * 1e6)}")
}

func loadRecipes(_ paths: [String]) -> [Recipe] {
    paths.map { path in
        guard case .success(let recipe) = RecipeLoader.load(path: path) else {
            FileHandle.standardError.write(Data("moltipass-bench: invalid recipe \(path)\n".utf8))
            exit(65)
        }
        return recipe
    }
}

func passCost(days: Double, paths: [String]) async throws {
    let recipes = loadRecipes(paths)
    // 2026-03-02T00:00:00Z, as bench/run-all's plan-speed rows.
    let options = PlanOptions(start: Date(timeIntervalSince1970: 1_772_409_600), horizon: days * 86_400)
    let plain = PlanSimulation(recipes: recipes, options: options, statePath: nil)
    var began = clock.now
    let first = try await plain.run()
    let plainSeconds = seconds(clock.now - began)
    var metered = PlanSimulation(recipes: recipes, options: options, statePath: nil)
    let meter = PassCostMeter()
    metered.meter = meter
    began = clock.now
    let second = try await metered.run()
    let meteredSeconds = seconds(clock.now - began)
    guard first == second else {
        FileHandle.standardError.write(Data("moltipass-bench: the metered plan differs from the plain one\n".utf8))
        exit(1)
    }
    let parts = PassCostMeter.Part.allCases.map { part in
        "\"\(part.name)_seconds\": \(seconds(meter.total(part))), \"\(part.name)_calls\": \(meter.count(part))"
    }
    print(
        "{\"days\": \(days), \"recipes\": \(recipes.count), \"passes\": \(first.server.passes), "
            + "\"plain_seconds\": \(plainSeconds), \"metered_seconds\": \(meteredSeconds), "
            + parts.joined(separator: ", ") + "}")
}
