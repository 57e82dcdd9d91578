import Foundation
import StrataCore
import StrataTortureKit
import Testing

/// SQLite's own I/O-error test, for any store with a fault seam: for k = 0, 1, 2, ... arm a
/// fault at the k-th call of one operation, attempt the next save, and check that either it
/// failed with a typed error and the store (the same object, then reopened) holds exactly the
/// previous state, or it succeeded and holds the new one; stop at the first k the save no
/// longer reaches.
struct FaultLoop {
    let url: StoreURL
    let options: StoreOptions
    let seed: UInt64
    /// Arms the fault at the `k`-th call (0: the next one).
    let arm: (Int) -> Void
    /// Disarms, returning the faults injected since arming.
    let disarm: () -> Int
    /// The error codes a failed save may report.
    let expectedCodes: Set<StrataError.Code>

    struct Outcome {
        var faults = 0
        var failedSaves = 0
        var absorbed = 0
    }

    func run(label: String) throws -> Outcome {
        var store = try TortureStores.open(url, options: options)
        defer { try? store.close() }
        var driver = try TortureDriver.create(in: store, seed: seed)
        for _ in 0..<3 { try driver.saveNext() }
        var outcome = Outcome()
        for k in 0..<500 {
            let before = driver.state
            arm(k)
            var failure: StrataError?
            do {
                try driver.saveNext()
            } catch let error as StrataError {
                failure = error
            } catch {
                _ = disarm()
                Issue.record("\(label), fault at call \(k): an untyped error \(error)")
                return outcome
            }
            let injected = disarm()
            outcome.faults += injected
            if failure == nil && injected == 0 { return outcome }
            if let failure {
                outcome.failedSaves += 1
                #expect(
                    injected == 1, "\(label), fault at call \(k): the save failed with no fault injected: \(failure)")
                #expect(expectedCodes.contains(failure.code), "\(label), fault at call \(k): \(failure)")
                #expect(
                    failure.location["path"] != nil, "\(label), fault at call \(k): the error names no path: \(failure)"
                )
                let same = try TortureDriver.load(from: store, seed: seed).state
                #expect(
                    same == before,
                    "\(label), fault at call \(k): after \(failure.code) the open store holds \(same), not \(before)")
            } else {
                outcome.absorbed += 1
            }
            try store.close()
            store = try TortureStores.open(url, options: options)
            #expect(try StoreIntegrity.check(url, store: store).isEmpty, "\(label), fault at call \(k)")
            let reopened = try TortureDriver.load(from: store, seed: seed)
            let expected = failure == nil ? driver.state : before
            #expect(
                reopened.state == expected,
                "\(label), fault at call \(k): reopened, the store holds \(reopened.state), not \(expected)")
            if reopened.state != expected { return outcome }
            driver = reopened
        }
        Issue.record("\(label): the save still reached the fault after 500 calls")
        return outcome
    }
}
