/// The steps of a recipe whose text a generator writes (issue 21), for the commands that look at
/// generators without running one (`check`) or set them up (`plan --generate`).
extension Recipe {
    /// One `generate:` of the recipe: where it is and what it says.
    public struct GeneratedStep: Sendable, Equatable {
        /// The job's id.
        public var job: String
        /// The step's index in the job, from 0 (as in the context's `step`).
        public var step: Int
        public var spec: GeneratorSpec
    }

    /// Every step with `generate:`, in the order of the recipe.
    public var generatedSteps: [GeneratedStep] {
        jobs.flatMap { job in
            job.steps.enumerated().compactMap { index, step in
                let spec: GeneratorSpec?
                switch step.action {
                case .post(let action):
                    if case .generated(let generated) = action.body { spec = generated } else { spec = nil }
                case .comment(let action):
                    if case .generated(let generated) = action.content { spec = generated } else { spec = nil }
                case .reply(let action):
                    if case .generated(let generated) = action.content { spec = generated } else { spec = nil }
                case .dm(let action):
                    if case .generated(let generated) = action.content { spec = generated } else { spec = nil }
                case .vote, .follow, .unfollow, .subscribe, .unsubscribe:
                    spec = nil
                }
                return spec.map { GeneratedStep(job: job.id.value, step: index, spec: $0) }
            }
        }
    }

    /// The keychain model keys the recipe's `openai:` generators name (`key:`), without repeats.
    public var keychainModelKeys: [String] {
        var names: [String] = []
        for generated in generatedSteps {
            guard case .openAI(let endpoint) = generated.spec.source, case .keychain(let name)? = endpoint.key,
                !names.contains(name.value)
            else { continue }
            names.append(name.value)
        }
        return names
    }
}
