extension RecipeDecoder {
    /// `duplicates: {window: 30d}`.
    func decodeDuplicates(_ node: YAMLNode) -> DuplicateSettings? {
        guard let fields = mapping(node, allowed: ["window"], what: "duplicates") else { return nil }
        var settings = DuplicateSettings(mark: node.mark)
        if let window = fields["window"], let seconds = duration(window, what: "window") {
            if DuplicateSettings.windowRange.contains(seconds) {
                settings.window = seconds
            } else {
                error(
                    window.mark, code: "value", "duplicate window \(DurationText.format(seconds)) is out of range",
                    expected: "from 1d to 365d (Moltbook suspends for repeats; the default is 30d)")
            }
        }
        return settings
    }
}
