extension RecipeDecoder {
    /// `duplicates: {window: 30d}`.
    func decodeDuplicates(_ node: YAMLNode) -> DuplicateSettings? {
        guard let fields = mapping(node, allowed: ["window"], what: "duplicates") else { return nil }
        var settings = DuplicateSettings(mark: node.mark)
        if let node = fields["window"],
            let window = duration(
                node, what: "window", name: "duplicate window", in: DuplicateSettings.windowRange,
                expected: "from 1d to 365d (Moltbook suspends for repeats; the default is 30d)")
        {
            settings.window = window
        }
        return settings
    }
}
