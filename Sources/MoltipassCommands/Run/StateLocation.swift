import Foundation
import MoltipassEngine

/// Where the state database lives: `--state`, else `MOLTIPASS_STATE`, else
/// `$XDG_STATE_HOME/moltipass/state.sqlite`, else `~/.local/state/moltipass/state.sqlite`.
public enum StateLocation {
    public static func path(flag: String?, environment: [String: String]) -> String? {
        if let flag, !flag.isEmpty { return flag }
        if let value = environment["MOLTIPASS_STATE"], !value.isEmpty { return value }
        if let base = environment["XDG_STATE_HOME"], !base.isEmpty { return base + "/moltipass/state.sqlite" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/moltipass/state.sqlite" }
        return nil
    }
}
