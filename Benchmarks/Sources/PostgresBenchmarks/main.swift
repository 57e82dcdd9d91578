// Strata's PostgreSQL backend against what a server developer would write instead, in one process,
// each side on fresh PostgreSQL schemas of the same server (STRATA_BENCH_POSTGRES_URL, else
// STRATA_TEST_POSTGRES_URL, else the cluster scripts/postgres-test-server starts):
//
//   PostgresBenchmarks [runs] [count] [history=on|off] [previous] [--sides strata,raw]
//       W1-W5 of performance.md through the store protocol vs raw libpq (target <= 1.5x);
//       `history=off` opens the store without persistent history, `previous` gives each W4
//       update the state it is based on, as the engine does.
//   PostgresBenchmarks graph [--runs 3] [--count 100000] [--lookups 100000] [--updates 10000]
//       [--sides strata,fluent] [--delete context|batch] [--history on|off]
//       the object graph (typed objects) vs Fluent with fluent-postgres-driver (target: faster);
//       `--delete batch` makes Strata's delete one coordinator batch delete of the IDs;
//       `--history off` opens Strata's store without persistent history (Fluent keeps none).
//   PostgresBenchmarks concurrent [--runs 3] [--count 10000] [--workers 64] [--connections 8]
//       [--seconds 10] [--stack three|two] [--sides strata,fluent]
//       short read-modify-save transactions from concurrent contexts: saves/s, p50 and p99 latency.
//
// See Benchmarks/README.md ("PostgreSQL").

import BenchmarkSupport
import Foundation
import StrataCore

let arguments = CommandLine.arguments
let server = BenchmarkServer()
print("server: \(server.description)")

switch arguments.count > 1 ? arguments[1] : "" {
case "graph":
    let count = Int(option("count") ?? "") ?? 100_000
    let workload = Workload(count: count)
    let input = GraphInput(
        workload: workload, lookups: Int(option("lookups") ?? "") ?? workload.lookupKeys.count,
        updates: Int(option("updates") ?? "") ?? workload.updateKeys.count)
    let sides = Set((option("sides") ?? "strata,fluent").split(separator: ",").map(String.init))
    try await GraphRuns(
        server: server, runs: Int(option("runs") ?? "") ?? 3, input: input, sides: sides,
        batchDelete: option("delete") == "batch", history: option("history") != "off"
    ).run()
case "concurrent":
    let count = Int(option("count") ?? "") ?? 10_000
    let runs = ConcurrentRuns(
        server: server, records: Workload(count: count).records, workers: Int(option("workers") ?? "") ?? 64,
        connections: Int(option("connections") ?? "") ?? 8, seconds: Double(option("seconds") ?? "") ?? 10,
        stack: option("stack") == "two" ? .twoTier : .threeTier,
        sides: Set((option("sides") ?? "strata,fluent").split(separator: ",").map(String.init)))
    try await runs.run(runs: Int(option("runs") ?? "") ?? 3)
default:
    let runs = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    let sides = Set((option("sides") ?? "strata,raw").split(separator: ",").map(String.init))
    let history = arguments.dropFirst(3).first { $0.hasPrefix("history=") }.map {
        ["history": String($0.dropFirst("history=".count))]
    }
    try StoreProtocolRuns(
        server: server, runs: runs, count: count, sides: sides, storeOptions: StoreOptions(options: history ?? [:]),
        givesPrevious: arguments.dropFirst(3).contains("previous")
    ).run()
}
