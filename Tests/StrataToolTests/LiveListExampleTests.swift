import Foundation
import StrataTestSupport
import Testing

/// The live-list example (Examples/LiveList), as users run it: a view context's live list
/// follows a background import chunk by chunk until it equals a fresh fetch of every employee.
@Suite struct LiveListExampleTests {
    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func theLiveListFollowsTheImportToTheEnd(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = scheme == "memory" ? "memory:" : "\(scheme):\(directory.file("live.\(scheme)"))"
        let run = try runBuilt("live-list", [store, "12000"])
        #expect(run.status == 0, "live-list failed on \(store): \(run.errors)\n\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.last?.hasPrefix("live-list: 12000 rows equal a fetch after ") == true, "\(run.output)")
        // The list grew chunk by chunk: more than the initial result and the final one.
        #expect(lines.count >= 4, "\(run.output)")
    }
}
