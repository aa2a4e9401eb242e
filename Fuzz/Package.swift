// swift-tools-version:6.1
// The libFuzzer harness for the recipe parser: a package of its own, so the unsafe flags and the sanitizer build
// stay out of the main package. Build and run with `scripts/fuzz-recipes` (docs/recipes.md, "Fuzzing").
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
    ],
    swiftLanguageModes: [.v6]
)
