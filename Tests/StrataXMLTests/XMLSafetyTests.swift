import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

@Suite struct XMLSafetyTests {
    static let root =
        "<strata-store format=\"1\" modelHash=\"\(TestModels.allTypes.versionHash)\" modelVersion=\"v1\" storeIdentifier=\"S1\">"

    /// Opens `text` as a store file and returns the error, checking the file is left as it was.
    func rejection(of text: String) throws -> StrataError? {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        write(text, to: dir.file("store.xml"))
        let error = strataError { _ = try openStore(dir.url()) }
        #expect(contents(dir.file("store.xml")) == Array(text.utf8))
        return error
    }

    @Test func anExternalEntityFileIsRejectedWithoutReadingTheFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let secret = dir.file("secret.txt")
        write("TOP-SECRET", to: secret)
        let error = try rejection(
            of: """
                <?xml version="1.0"?>
                <!DOCTYPE strata-store [<!ENTITY xxe SYSTEM "file://\(secret)">]>
                \(Self.root)
                <_meta key="stolen" value="&xxe;"/>
                </strata-store>
                """)
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains("DOCTYPE is not allowed") == true, "\(String(describing: error))")
        #expect(error?.location["line"] == "2")
        #expect(error?.description.contains("TOP-SECRET") == false)
    }

    @Test func anExternalDTDIsNeitherFetchedNorAccepted() throws {
        let error = try rejection(
            of: """
                <?xml version="1.0"?>
                <!DOCTYPE strata-store SYSTEM "http://127.0.0.1:9/strata.dtd">
                \(Self.root)
                </strata-store>
                """)
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains("DOCTYPE is not allowed") == true)
    }

    @Test func aBillionLaughsFileIsRejectedQuicklyInBoundedMemory() throws {
        var declarations = "<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        let text =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE strata-store [\n\(declarations)]>\n\(Self.root)\n<_meta key=\"k\" value=\"&lol9;\"/>\n</strata-store>\n"
        let before = residentHighWaterMiB()
        let start = Date()
        let error = try rejection(of: text)
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains("DOCTYPE is not allowed") == true)
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(residentHighWaterMiB() - before < 64, "expanding 10^9 laughs would take gigabytes")
    }

    @Test func anEntityReferenceWithoutADeclarationIsNotWellFormed() throws {
        let error = try rejection(
            of: "<?xml version=\"1.0\"?>\n\(Self.root)\n<_meta key=\"k\" value=\"&passwd;\"/>\n</strata-store>\n")
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["line"] == "3")
    }

    /// The process's peak resident set size, in MiB.
    func residentHighWaterMiB() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_maxrss) / 1024 // KiB on Linux
        #else
            getrusage(RUSAGE_SELF, &usage)
            return Double(usage.ru_maxrss) / 1024 / 1024 // bytes on Darwin
        #endif
    }
}
