import CLibFuzzer
import Foundation

// The parser of every server answer (`JSONParser`, with `JSONValue` and `JSONWriter`), built from the main package's
// own files (the symlinks beside this one): they stand alone, so the fuzzer needs neither libcurl nor swift-crypto.

/// libFuzzer's per-input callback: parse, which must never crash, hang or run out of memory; and a document that
/// parses must write back to text that parses to the same value (a parser and writer that disagree would change
/// what the engine stores and compares). A disagreement stops the campaign like a crash, with the input kept.
@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else {
        _ = try? JSONValue.parse(Data())
        return 0
    }
    guard let value = try? JSONValue.parse(Data(bytes: data, count: size)) else { return 0 }
    let written = value.encoded()
    guard let again = try? JSONValue.parse(written), again == value else {
        fatalError("the written document does not parse back to the same value: \(String(decoding: written, as: UTF8.self))")
    }
    return 0
}

/// The program's entry point (see `RecipesFuzzer_main`: SwiftPM links an executable target's `main` to
/// `JSONFuzzer_main`), which runs libFuzzer's driver.
@_cdecl("JSONFuzzer_main")
public func jsonFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in jsonFuzzerTestOneInput(data, size) }
}
