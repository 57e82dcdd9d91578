import Foundation
import StrataTestSupport
import Testing

/// The trip-planning example (Examples/TripPlanner), a SwiftData program on StrataData, run as
/// users run it: its first release saves a store, its second migrates it by a lightweight stage,
/// a model actor imports trips, and the program checks fetches, an upsert and cascades itself,
/// exiting non-zero when a check fails.
@Suite struct TripPlannerExampleTests {
    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func theTripPlannerPassesItsOwnChecks(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = scheme == "memory" ? "memory:" : "\(scheme):\(directory.file("trips.\(scheme)"))"
        let run = try runBuilt("TripPlanner", [store])
        #expect(run.status == 0, "TripPlanner failed on \(store): \(run.errors)\n\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "v2: opened with schema 2.0.0 through the lightweight stage: "
                    + "Kyoto (planned, 2 items), Lofoten (planned, 2 items)"))
        #expect(!lines.contains { $0.contains("FAILED") }, "\(run.output)")
        #expect(lines.last?.hasPrefix("TripPlanner: all ") == true, "\(run.output)")
    }

    @Test func aStoreThatExistsIsRefusedWithUsage() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("trips.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let run = try runBuilt("TripPlanner", ["sqlite:\(path)"])
        #expect(run.status == 2)
        #expect(run.errors.contains("\(path) exists"), "\(run.errors)")
    }
}
