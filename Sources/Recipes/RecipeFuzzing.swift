/// Entry point for fuzzers: runs the whole recipe pipeline (compose, decode, lint) on arbitrary bytes.
///
/// It must never crash, hang or allocate without bound, whatever the input. A libFuzzer harness calls it from
/// `LLVMFuzzerTestOneInput`; see docs/recipes.md, "Fuzzing".
public enum RecipeFuzzing {
    /// Parses `bytes` as a recipe named `fuzz.yaml` (no other files readable) and lints it if valid.
    /// Returns the number of diagnostics, so the work cannot be optimised away.
    @discardableResult
    public static func parse(bytes: UnsafeRawBufferPointer) -> Int {
        let input = [UInt8](bytes)
        switch RecipeLoader.load(bytes: input, file: "fuzz.yaml") {
        case .failure(let diagnostics):
            return diagnostics.items.count
        case .success(let recipe):
            let from = Schedule.defaultOrigin(in: recipe.timeZone).addingTimeInterval(26 * 365 * 86_400)
            return Linter.lint(recipe, options: LintOptions(from: from, horizon: 86_400)).count
        }
    }
}
