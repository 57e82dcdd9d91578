import Foundation
import StrataConformance
import StrataCore
import StrataInMemory
import Testing

private func subject(_ flaw: Flaw) -> ConformanceSubject {
    ConformanceSubject(name: "broken-\(flaw.rawValue)", backend: BrokenBackend(flaw: flaw)) {
        StoreURL(scheme: "broken", location: "kit-\(UUID().uuidString)")
    }
}

/// For each planted defect, checks the kit must fail (at least these; others may fail too).
private let expectedFailures: [Flaw: Set<String>] = [
    .dropsLastInsert: ["insertedObjectsAreFetchedBackAtVersionOne", "everyAttributeTypeRoundTripsExactly"],
    .ignoresOffset: ["limitAndOffsetSliceTheOrder", "predicatesWithSortsLimitsAndResultTypesGiveTheEvaluatorsAnswer"],
    .ignoresVersions: ["staleVersionIsRejectedAndNothingIsWritten", "everyConflictIsListed"],
    .roundsDoubles: ["everyAttributeTypeRoundTripsExactly", "insertedObjectsAreFetchedBackAtVersionOne"],
    .savesHalfway: ["failedSaveLeavesNoTrace"],
]

@Test(arguments: Flaw.allCases)
func kitFailsABrokenStore(_ flaw: Flaw) throws {
    let failures = ConformanceKit.failures(of: subject(flaw))
    let failed = Set(failures.map(\.check))
    let missing = expectedFailures[flaw, default: []].subtracting(failed)
    #expect(missing.isEmpty, "the kit did not catch \(flaw) in: \(missing.sorted()); it failed \(failed.sorted())")
    for failure in failures {
        #expect(
            failure.description.contains("[broken-\(flaw.rawValue)]"), "a failure must name the backend: \(failure)")
    }
}

@Test func kitPassesTheReferenceStoreThroughTheSameHarness() throws {
    let subject = ConformanceSubject(backend: InMemoryBackend()) {
        StoreURL(scheme: "memory", location: "kit-\(UUID().uuidString)")
    }
    #expect(ConformanceKit.failures(of: subject).map(\.description) == [])
}

@Test func kitChecksHaveUniqueNames() {
    let names = ConformanceKit.checks.map(\.name)
    #expect(Set(names).count == names.count)
    #expect(names.count >= 35)
}

@Test func failureNamesTheCheckAndTheDifference() throws {
    let failures = ConformanceKit.failures(of: subject(.ignoresOffset))
    let failure = try #require(failures.first { $0.check == "limitAndOffsetSliceTheOrder" })
    #expect(failure.message.contains("expected"))
    #expect(failure.message.contains("got"))
}
