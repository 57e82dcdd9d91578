import Foundation
import StrataConformance
import StrataCore
import StrataInMemory
import Testing

/// Every named in-memory store under test gets a fresh name, so checks run in parallel.
let inMemorySubject = ConformanceSubject(backend: InMemoryBackend()) {
    StoreURL(scheme: "memory", location: "conformance-\(UUID().uuidString)")
}

@Test(arguments: ConformanceKit.checks)
func inMemoryStoreConforms(_ check: ConformanceCheck) throws {
    try check.run(on: inMemorySubject)
}
