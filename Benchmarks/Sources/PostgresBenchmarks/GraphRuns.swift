import BenchmarkSupport
import Foundation

/// The object graph (Strata's typed objects) against Fluent with fluent-postgres-driver on the
/// same model and workloads, alternating which goes first, each run on fresh schemas; prints
/// medians and the paired ratios (target: Strata faster, below 1).
struct GraphRuns {
    let server: BenchmarkServer
    let runs: Int
    let input: GraphInput
    /// The sides to run (`strata`, `fluent`): both but for debugging one.
    let sides: Set<String>
    /// Whether Strata's delete workload is one coordinator batch delete of the IDs (as Fluent's
    /// is one `DELETE`) instead of deleting the objects in a context and saving.
    var batchDelete = false
    /// Whether Strata's store records persistent history (the default; `--history off` makes
    /// the like-for-like comparison, as Fluent keeps none).
    var history = true

    func run() async throws {
        let strata = StrataGraphSide(server: server, batchDelete: batchDelete, history: history)
        let sides: [any GraphSide] = [strata, FluentGraphSide(server: server)].filter {
            self.sides.contains($0.name == "Fluent" ? "fluent" : "strata")
        }
        print(
            "PostgreSQL object graph: \(input.records.count) records, \(input.lookupIDs.count) lookups, "
                + "\(input.updateIDs.count) updates, \(input.deleteIDs.count) deletes, \(runs) runs, "
                + "Strata typed vs Fluent; Strata's delete \(batchDelete ? "a coordinator batch delete" : "through a context"), "
                + "history \(history ? "on" : "off"); "
                + "load average \(loadAverage())")
        /// times[side][run][workload]
        var times = [[[Double]]](repeating: [], count: sides.count)
        for run in 0..<runs {
            for offset in 0..<sides.count {
                let index = (offset + run) % sides.count
                let schema = server.schemaName("graph_\(run)_\(index)")
                defer { server.dropSchema(schema) }
                times[index].append(try await sides[index].run(input, schema: schema))
            }
            print("run \(run + 1):")
            for (index, side) in sides.enumerated() {
                print("  \(side.name): " + times[index][run].map { format($0) }.joined(separator: " / "))
            }
        }
        guard sides.count == 2 else { return }
        print("\n### PostgreSQL object graph: Strata typed vs Fluent (median of \(runs) runs, ms)\n")
        print("| workload | Strata typed | Fluent | x Fluent (paired median) | target | met |")
        print("|---|---:|---:|---:|---:|---|")
        for (w, name) in graphWorkloadNames.enumerated() {
            let strata = median(times[0].map { $0[w] })
            let fluent = median(times[1].map { $0[w] })
            let ratio = median((0..<runs).map { times[0][$0][w] / times[1][$0][w] })
            print(
                "| \(name) | \(format(strata)) | \(format(fluent)) | \(format(ratio))x | < 1.00x | "
                    + "\(ratio < 1 ? "yes" : "NO") |")
        }
        print("\nload average \(loadAverage()); peak RSS: \(format(peakResidentMiB())) MiB")
    }
}
