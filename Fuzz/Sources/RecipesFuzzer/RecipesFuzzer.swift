import CLibFuzzer
import Recipes

/// libFuzzer's per-input callback: compose, decode and lint, which must never crash, hang or run out of memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func recipesFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    RecipeFuzzing.parse(bytes: UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// The program's entry point. On Linux SwiftPM links an executable target with `--defsym main=RecipesFuzzer_main`
/// (and compiles it with `-entry-point-function-name RecipesFuzzer_main`); a `-parse-as-library` module defines no
/// such function, so it is defined here and runs libFuzzer's driver, exactly what libFuzzer's own `main` does.
@_cdecl("RecipesFuzzer_main")
public func recipesFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in recipesFuzzerTestOneInput(data, size) }
}
