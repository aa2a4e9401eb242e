// swift-tools-version:6.1
// Moltipass: a headless runner for Moltbook agents. Module map: docs/architecture.md.
import PackageDescription

let package = Package(
    name: "Moltipass",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "moltipass", targets: ["moltipass"]),
        .executable(name: "moltbook-sandbox", targets: ["moltbook-sandbox"]),
        .library(name: "MoltipassTesting", targets: ["MoltipassTesting"]),
        // For the libFuzzer harness package in Fuzz/ (depends on this package by path).
        .library(name: "Recipes", targets: ["Recipes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // C shim over libcurl: non-variadic setopt/getinfo wrappers, share-handle locking.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .target(
            name: "MoltbookAPI",
            dependencies: [
                "CCurl", "CivilDate", "KeyShapes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The one settable clock and the one seeded random source (SplitMix64), for the sandbox, plan and tests.
        .target(name: "Determinism"),
        // The in-memory Moltbook model. Clock injected; no sockets. Its challenges use the solver's operation enum.
        .target(name: "MoltbookSandbox", dependencies: ["MoltbookAPI", "ChallengeSolver", "Determinism"]),
        // One FlyingFox socket pool per process for every listener (the sandbox's, the model stub's,
        // the metrics and probes'): see SharedSocketPool.
        .target(name: "CEpoll"),
        .target(name: "HTTPServing", dependencies: ["CEpoll", .product(name: "FlyingSocks", package: "FlyingFox")]),
        // HTTP front for the model. Only the sandbox binary and test support link it.
        .target(
            name: "MoltbookSandboxServer",
            dependencies: [
                "MoltbookSandbox", "Determinism", "HTTPServing",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ]
        ),
        .executableTarget(
            name: "moltbook-sandbox",
            dependencies: [
                "MoltbookSandboxServer", "Determinism",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libyaml through pkg-config (Debian libyaml-dev). Not Yams: it bundles its own libyaml.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // Day numbers of the proleptic Gregorian calendar, shared by Recipes and MoltbookAPI.
        .target(name: "CivilDate"),
        // What a credential looks like: one definition for the redactor, the generated-text check and lint.
        .target(name: "KeyShapes"),
        .target(name: "Recipes", dependencies: ["CYAML", "CivilDate", "KeyShapes"]),
        // Lock files, crash-safe atomic writes and owner-only files, shared by Keychain and Storage.
        .target(name: "FileSafety"),
        // The encrypted key file.
        .target(
            name: "Keychain",
            dependencies: [
                "FileSafety", "MoltbookAPI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Text written by the agent's generators (issue 21): an OpenAI-compatible chat-completions client
        // on the project's libcurl transport, and a process runner for command generators.
        .target(name: "Generation", dependencies: ["MoltbookAPI"]),
        // The built-in verification-challenge solver (pure text in, answer and confidence out).
        .target(name: "ChallengeSolver"),
        // Limit classes and profiles, the sliding-window and GCRA limiter, hint absorption; pure, time passed in.
        .target(name: "RateLimiting", dependencies: ["MoltbookAPI", "Recipes"]),
        // The state store protocol and its SQLite implementation.
        .target(name: "Storage", dependencies: ["FileSafety", .product(name: "GRDB", package: "GRDB.swift")]),
        // The same protocol on a PostgreSQL server (issue 23): shared state for many runners.
        .target(
            name: "PostgresStorage",
            dependencies: [
                "Storage", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Prometheus metrics (swift-metrics with the swift-prometheus backend) and the daemon's
        // /metrics, /healthz and /readyz listener.
        .target(
            name: "Telemetry",
            dependencies: [
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "FlyingFox", package: "FlyingFox"), "HTTPServing",
            ]
        ),
        // The engine: AccountMachine (an account's pass as decisions) and its driver, the runner, run
        // reports, the challenge policy and command solver. No sandbox, no keychain, no command line.
        .target(
            name: "MoltipassEngine",
            dependencies: [
                "MoltbookAPI", "Recipes", "RateLimiting", "Storage", "ChallengeSolver", "Generation", "Determinism",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // `plan`'s simulation: the same engine on a virtual clock against the in-process sandbox model.
        .target(
            name: "MoltipassPlan",
            dependencies: [
                "MoltipassEngine", "MoltbookAPI", "Recipes", "RateLimiting", "Storage", "MoltbookSandbox",
                "Determinism",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What each command does behind its parser: the run session and daemon, status and health,
        // check, pause/cancel, keys, register, claim, demo, plan --live.
        .target(
            name: "MoltipassCommands",
            dependencies: [
                "MoltipassEngine", "MoltipassPlan", "MoltbookAPI", "Keychain", "FileSafety", "Generation", "Recipes",
                "RateLimiting",
                "Storage", "PostgresStorage", "Telemetry",
                "Determinism", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "moltipass",
            dependencies: [
                "MoltipassCommands", "MoltipassEngine", "MoltipassPlan", "Recipes", "Storage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // bench/run-all only: requests through MoltbookClient for the per-request overhead (not shipped).
        .executableTarget(
            name: "moltipass-bench",
            dependencies: [
                "MoltbookAPI", "Keychain", "MoltipassEngine", "MoltipassPlan", "Recipes", "Storage",
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "bench/Sources/moltipass-bench"),
        .target(
            name: "MoltipassTesting",
            dependencies: [
                "MoltbookAPI", "MoltbookSandbox", "MoltbookSandboxServer", "Determinism", "Generation",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "MoltbookAPITests", dependencies: ["MoltbookAPI", "KeyShapes", "MoltbookSandbox", "MoltipassTesting"]
        ),
        .testTarget(
            name: "MoltbookSandboxTests",
            dependencies: [
                "MoltbookSandbox", "MoltbookSandboxServer", "MoltipassTesting", "ChallengeSolver",
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ]
        ),
        .testTarget(
            name: "ClientIntegrationTests",
            dependencies: ["MoltbookAPI", "MoltbookSandbox", "MoltbookSandboxServer", "MoltipassTesting"]
        ),
        .testTarget(name: "MoltipassCLITests", dependencies: ["MoltbookSandbox", "MoltipassTesting"]),
        .testTarget(
            name: "GenerationTests",
            dependencies: ["Generation", "MoltbookAPI", "MoltbookSandboxServer", "MoltipassTesting"]
        ),
        .testTarget(name: "FileSafetyTests", dependencies: ["FileSafety", "MoltipassTesting"]),
        .testTarget(name: "KeychainTests", dependencies: ["Keychain", "FileSafety", "MoltipassTesting"]),
        .testTarget(name: "RecipesTests", dependencies: ["Recipes", "MoltipassTesting"]),
        .testTarget(name: "RateLimitingTests", dependencies: ["RateLimiting", "MoltipassTesting"]),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "PostgresStorage", "MoltbookSandbox", "MoltipassTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "EngineTests",
            dependencies: ["MoltipassEngine", "MoltipassPlan", "MoltipassCommands", "MoltipassTesting", "KeyShapes"]
        ),
        .testTarget(name: "ChallengeSolverTests", dependencies: ["ChallengeSolver", "MoltbookSandbox", "Determinism"]),
        .testTarget(
            name: "TelemetryTests",
            dependencies: [
                "Telemetry", "HTTPServing", "MoltipassTesting", .product(name: "FlyingSocks", package: "FlyingFox"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
