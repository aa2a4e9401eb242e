import Foundation

/// Loads and validates recipes: bytes → YAML tree → `Recipe`, or every diagnostic found.
public enum RecipeLoader {
    /// Reads the file at `path` and loads it; queue and content files resolve against its directory.
    public static func load(path: String, limits: YAMLLimits = .default) -> Result<Recipe, Diagnostics> {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size > limits.maxBytes {
            let failure = YAMLError.documentTooLarge(bytes: size, limit: limits.maxBytes)
            return .failure(
                Diagnostics([
                    Diagnostic(
                        file: path, mark: .start, code: "yaml", message: failure.message,
                        expected: failure.expected)
                ]))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(
                Diagnostics([
                    Diagnostic(
                        file: path, mark: .start, code: "file", message: "cannot read the file",
                        expected: "a readable recipe file")
                ]))
        }
        return load(bytes: [UInt8](data), file: path, limits: limits) {
            FileManager.default.contents(atPath: $0).map { [UInt8]($0) }
        }
    }

    /// Loads a recipe from memory. `file` names it in diagnostics and anchors relative paths; `readFile` returns
    /// the bytes of a queue or content file by resolved path (nil: cannot read).
    public static func load(
        bytes: [UInt8], file: String, limits: YAMLLimits = .default,
        readFile: @escaping (String) -> [UInt8]? = { _ in nil }
    ) -> Result<Recipe, Diagnostics> {
        let bytes = YAMLComposer.withoutByteOrderMark(bytes)
        let directory = (file as NSString).deletingLastPathComponent
        let decoder = RecipeDecoder(file: file, source: bytes, directory: directory, readFile: readFile)
        let root: YAMLNode?
        do {
            root = try YAMLComposer(limits: limits).compose(bytes)
        } catch {
            decoder.yamlError(error)
            return .failure(Diagnostics(decoder.diagnostics))
        }
        let recipe = decoder.decode(root)
        if let recipe, !decoder.diagnostics.contains(where: { $0.severity == .error }) { return .success(recipe) }
        return .failure(Diagnostics(decoder.diagnostics).sorted())
    }
}
