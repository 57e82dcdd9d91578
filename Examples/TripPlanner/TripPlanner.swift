// TripPlanner: a trip-planning program written against SwiftData's API, which runs on Linux on
// any Strata backend with `import StrataData` in place of `import SwiftData` (docs/StrataData.md).
//
//   swift run TripPlanner STORE        STORE: sqlite:PATH, lmdb:PATH, xml:PATH, memory: or a file path
//
// It plays two releases of an app on one new store: the first saves trips with its schema
// (TripsSchemaV1); the second opens the store with its own (TripsSchemaV2) and the migration plan,
// whose lightweight stage carries the trips over. Then an importer actor adds trips in the
// background, and the main context fetches, upserts, and deletes with cascades. Each step prints
// what it did and checks it; the program exits 1 when a check fails, 2 on a bad command line.

import StrataData

@main
struct TripPlanner {
    @MainActor static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let store: StoreArgument
        do {
            guard arguments.count == 1 else { throw UsageError("give one store URL") }
            store = try StoreArgument(arguments[0])
        } catch {
            printError("usage: TripPlanner STORE (sqlite:PATH, lmdb:PATH, xml:PATH, memory: or a path): \(error)")
            exit(2)
        }
        var tour = PlannerTour(store: store)
        do {
            try await tour.run()
        } catch {
            printError("TripPlanner: \(error)")
            exit(1)
        }
        guard tour.checks.failures.isEmpty else {
            printError(
                "TripPlanner: \(tour.checks.failures.count) checks failed on \(store.description): "
                    + tour.checks.failures.joined(separator: "; "))
            exit(1)
        }
        print("TripPlanner: all \(tour.checks.passed) checks passed on \(store.description)")
    }
}

/// Prints `message` to the standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
