import Foundation
import MoltipassEngine

/// Recipe arguments as files: a directory stands for the `*.yaml` and `*.yml` files directly
/// in it, sorted by name (not its subdirectories, where content queues live, nor hidden
/// entries such as a Kubernetes ConfigMap's `..data`). So a container runs `run /recipes` and
/// picks up every recipe mounted there, also on a SIGHUP reload.
public enum RecipePaths {
    /// An empty directory stays as it is, so loading it fails with a diagnostic naming it.
    public static func expand(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                let names = try? FileManager.default.contentsOfDirectory(atPath: path)
            else { return [path] }
            let directory = path.hasSuffix("/") ? String(path.dropLast()) : path
            let files = names.filter { !$0.hasPrefix(".") && ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) }.sorted()
                .map { directory + "/" + $0 }
                .filter { file in
                    var isSubdirectory: ObjCBool = false
                    return FileManager.default.fileExists(atPath: file, isDirectory: &isSubdirectory)
                        && !isSubdirectory.boolValue
                }
            return files.isEmpty ? [path] : files
        }
    }
}
