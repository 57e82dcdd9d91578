import Foundation
import StrataConformance
import StrataCore
import StrataLMDB
import Testing

/// Every check gets a fresh directory, so checks run in parallel.
let lmdbSubject = ConformanceSubject(name: "lmdb", backend: LMDBBackend()) {
    try ConformanceSubject.temporaryURL(scheme: "lmdb", fileExtension: nil)
}

@Test(arguments: ConformanceKit.checks)
func lmdbStoreConforms(_ check: ConformanceCheck) throws {
    try check.run(on: lmdbSubject)
}
