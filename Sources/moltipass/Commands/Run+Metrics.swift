import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import Recipes
import Telemetry

/// `run --listen` and `run --once --metrics-textfile` (docs/deploy.md, "Metrics").
extension Run {
    /// `--listen`, parsed; nil without it. Only the daemon listens: `--once` with it is a usage error.
    func listenAddress() throws -> ListenAddress? {
        if once, listen != nil {
            throw ValidationError(
                "--listen is for the daemon (run without --once); a cron run writes its metrics with --metrics-textfile PATH"
            )
        }
        if !once, metricsTextfile != nil {
            throw ValidationError(
                "--metrics-textfile is for run --once; the daemon serves /metrics with --listen ADDRESS")
        }
        guard let listen else { return nil }
        switch ListenAddress.parse(listen) {
        case .success(let address): return address
        case .failure(let problem): throw ValidationError(problem.description)
        }
    }

    /// The run's metrics when it exposes them (`--listen`, `--metrics-textfile`), installed as the
    /// process's swift-metrics backend; nil otherwise (nothing is recorded).
    func metrics(_ recipes: [Recipe]) -> RunTelemetry? {
        guard listen != nil || metricsTextfile != nil else { return nil }
        let telemetry = RunTelemetry(
            version: Moltipass.configuration.version, agents: recipes.map(\.agent.value))
        MetricsExport.bootstrapProcessBackend(telemetry.export)
        return telemetry
    }

    /// `--metrics-textfile`: the metrics written at the end of the run, whatever its outcome. A
    /// file that cannot be written is said on stderr; it fails a run that did not fail otherwise.
    func writeMetricsTextfile(_ session: RunSession, status: ExitStatus) async -> ExitStatus {
        guard let path = metricsTextfile, let telemetry = session.telemetry else { return status }
        do {
            // A cron run has released its leases by now: none is held.
            try await telemetry.writeTextfile(path, store: session.store, holder: "", now: session.clock())
            return status
        } catch {
            printError("moltipass: could not write the metrics text file \(path): \(error)")
            return status == .ok ? .failure : status
        }
    }
}
