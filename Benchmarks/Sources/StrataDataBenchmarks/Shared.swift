import BenchmarkSupport
import Foundation
import ObjectGraphWorkload

/// The workloads, in order.
let workloadNames = [
    "insert + save", "fetch all (default options)", "lookups by ID", "lookups by indexed key attribute",
    "update 10% (fetch by key + change, save)", "delete 10%",
]

/// The 1-, 5- and 15-minute load averages.
func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    _ = getloadavg(&loads, 3)
    return loads.map { format($0) }.joined(separator: ", ")
}
