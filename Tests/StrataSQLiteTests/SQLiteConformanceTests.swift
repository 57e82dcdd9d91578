import Foundation
import StrataConformance
import StrataCore
import StrataSQLite
import Testing

/// Every check gets a store file in a fresh temporary directory, so checks run in parallel.
let sqliteSubject = ConformanceSubject(backend: SQLiteBackend()) {
    try ConformanceSubject.temporaryURL(scheme: "sqlite", fileExtension: "sqlite")
}

@Test(arguments: ConformanceKit.checks)
func sqliteStoreConforms(_ check: ConformanceCheck) throws {
    try check.run(on: sqliteSubject)
}
