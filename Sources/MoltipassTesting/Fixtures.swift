import Foundation

/// Locates files in the repository's `fixtures/` directory.
public enum Fixtures {
    /// The package root: the nearest ancestor of this source file holding `Package.swift`.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    public static var directory: URL { packageRoot.appendingPathComponent("fixtures", isDirectory: true) }

    /// The bytes of `fixtures/<relativePath>`.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }

    /// Every file name in `fixtures/<subdirectory>` with the given extension, sorted.
    public static func names(in subdirectory: String, withExtension ext: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(subdirectory).path)
            .filter { $0.hasSuffix("." + ext) }
            .sorted()
    }
}
