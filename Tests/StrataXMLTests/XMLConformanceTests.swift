import Foundation
import StrataConformance
import StrataCore
import StrataXML
import Testing

/// Every check gets a file in a fresh temporary directory, so checks run in parallel.
let xmlSubject = ConformanceSubject(backend: XMLBackend()) {
    try ConformanceSubject.temporaryURL(scheme: "xml", fileExtension: "xml")
}

@Test(arguments: ConformanceKit.checks)
func xmlStoreConforms(_ check: ConformanceCheck) throws {
    try check.run(on: xmlSubject)
}
