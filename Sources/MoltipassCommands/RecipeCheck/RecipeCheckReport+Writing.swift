import Foundation
import MoltipassEngine

extension RecipeCheckReport {
    /// Writes the report: the JSON form on stdout; or, file by file, its diagnostics on stderr and its `ok` line on
    /// stdout.
    public func write(json: Bool) {
        if json {
            FileHandle.standardOutput.write(jsonData() + Data("\n".utf8))
            return
        }
        for file in files {
            let single = RecipeCheckReport(command: command, files: [file])
            FileHandle.standardError.write(Data(single.standardError.utf8))
            FileHandle.standardOutput.write(Data(single.standardOutput.utf8))
        }
    }
}
