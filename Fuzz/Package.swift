// swift-tools-version:6.1
// The libFuzzer harnesses for the recipe parser and for the JSON parser of every server answer: a package of its
// own, so the unsafe flags and the sanitizer build stay out of the main package. Build and run with `scripts/fuzz
// recipes|json` (docs/reliability.md, "Fuzzing").
import PackageDescription

let package = Package(
    name: "MoltipassFuzz",
    dependencies: [
        .package(name: "Moltipass", path: "..")
    ],
    targets: [
        // Declares LLVMFuzzerRunDriver; the symbol comes from the runtime linked by `-sanitize=fuzzer`.
        .systemLibrary(name: "CLibFuzzer"),
        // Defines LLVMFuzzerTestOneInput and the entry point SwiftPM links as `main` (which hands over to libFuzzer).
        .executableTarget(
            name: "RecipesFuzzer",
            dependencies: ["CLibFuzzer", .product(name: "Recipes", package: "Moltipass")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // The main package's JSONValue, JSONParser and JSONWriter, linked in by symlink (they need only Foundation;
        // MoltbookAPI as a product would bring libcurl and swift-crypto into the sanitizer build).
        .executableTarget(
            name: "JSONFuzzer",
            dependencies: ["CLibFuzzer"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
