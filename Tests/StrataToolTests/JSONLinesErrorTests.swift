import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// Each kind of malformed input: the error names the line, and nothing of the run is imported.
@Suite struct JSONLinesErrorTests {
    static let good = """
        {"entity":"Company","ref":"c1","attributes":{"name":"Acme"}}
        {"entity":"Department","ref":"d1","attributes":{"name":"R&D"},"relationships":{"company":"c1"}}

        """

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var line: String
        var code: StrataError.Code
        var fragment: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "bad JSON", line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x"}"#,
            code: .invalidRequest, fragment: "not valid JSON"),
        Case(name: "not an object", line: #"["Employee"]"#, code: .invalidRequest, fragment: "expected a JSON object"),
        Case(
            name: "unknown entity", line: #"{"entity":"Robot","ref":"r1"}"#, code: .unknownEntity,
            fragment: "no entity 'Robot'"),
        Case(
            name: "unknown top-level key", line: #"{"entity":"Company","ref":"c2","attributes":{"name":"B"},"id":3}"#,
            code: .unknownKey, fragment: "unknown key 'id'"),
        Case(
            name: "unknown attribute", line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x","salary":3}}"#,
            code: .unknownKey, fragment: "no attribute 'salary'"),
        Case(
            name: "unknown relationship",
            line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x"},"relationships":{"boss":"e1"}}"#,
            code: .unknownKey, fragment: "no relationship 'boss'"),
        Case(
            name: "wrong attribute type",
            line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x","height":"tall"}}"#, code: .typeMismatch,
            fragment: "Employee.height"),
        Case(
            name: "integer out of range",
            line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x","level":70000}}"#, code: .typeMismatch,
            fragment: "integer16"),
        Case(
            name: "to-many given a string",
            line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x"},"relationships":{"projects":"p1"}}"#,
            code: .typeMismatch, fragment: "to-many"),
        Case(
            name: "missing required value", line: #"{"entity":"Employee","ref":"e1","attributes":{"height":1.2}}"#,
            code: .missingValue, fragment: "Employee.name"),
        Case(
            name: "missing ref", line: #"{"entity":"Employee","attributes":{"name":"x"}}"#, code: .invalidRequest,
            fragment: "\"ref\""),
        Case(
            name: "dangling ref",
            line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x"},"relationships":{"department":"d9"}}"#,
            code: .invalidObjectID, fragment: "'d9', which no line defines"),
        Case(
            name: "ref of the wrong entity",
            line: #"{"entity":"Employee","ref":"e1","attributes":{"name":"x"},"relationships":{"department":"c1"}}"#,
            code: .typeMismatch, fragment: "is a Company"),
        Case(
            name: "duplicate ref", line: #"{"entity":"Company","ref":"d1","attributes":{"name":"B"}}"#,
            code: .invalidRequest, fragment: "already defined on line 2"),
        Case(
            name: "sides that disagree",
            line: #"{"entity":"Company","ref":"c2","attributes":{"name":"B"},"relationships":{"departments":["d1"]}}"#,
            code: .invalidObjectID, fragment: "does not name 'c2'"),
    ]

    @Test(arguments: cases)
    func malformedLineIsReportedByNumberAndNothingIsImported(_ bad: Case) throws {
        let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try JSONLinesImporter().importLines(
            Data(#"{"entity":"Company","ref":"x","attributes":{"name":"Kept"}}"#.utf8), into: store)
        let before = try Fixture.export(store)
        let file =
            Self.good + bad.line + "\n" + #"{"entity":"Company","ref":"c9","attributes":{"name":"After"}}"# + "\n"
        do {
            try JSONLinesImporter().importLines(Data(file.utf8), source: "data.jsonl", into: store)
            Issue.record("\(bad.name): the import succeeded")
        } catch let error as StrataError {
            #expect(error.code == bad.code, "\(bad.name): \(error)")
            #expect(error.message.hasPrefix("line 3: "), "\(bad.name): \(error.message)")
            #expect(error.location["line"] == "3")
            #expect(error.location["file"] == "data.jsonl")
            #expect(error.message.contains(bad.fragment), "\(bad.name): \(error.message)")
            #expect(error.message.hasSuffix("nothing was imported"), "\(bad.name): \(error.message)")
        }
        #expect(try Fixture.export(store) == before)
    }

    @Test func aToOneNamedByTwoInversesIsRejected() throws {
        let file = """
            {"entity":"Department","ref":"d1","attributes":{"name":"A"}}
            {"entity":"Company","ref":"c1","attributes":{"name":"X"},"relationships":{"departments":["d1"]}}
            {"entity":"Company","ref":"c2","attributes":{"name":"Y"},"relationships":{"departments":["d1"]}}
            """
        let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        let error = try #require(throws: StrataError.self) {
            try JSONLinesImporter().importLines(Data(file.utf8), into: store)
        }
        #expect(error.message.hasPrefix("line 3: "))
        #expect(try Fixture.count(store) == 0)
    }

    @Test func aUniqueConstraintBrokenByTheFileImportsNothing() throws {
        let file = """
            {"entity":"Project","ref":"p1","attributes":{"title":"Atlas"}}
            {"entity":"Company","ref":"c1","attributes":{"name":"X"}}
            {"entity":"Project","ref":"p2","attributes":{"title":"Atlas"}}
            """
        for scheme in Fixture.schemes {
            let store = try Fixture.open(storeURL(scheme, in: TemporaryDirectory().url))
            defer { try? store.close() }
            let error = try #require(throws: StrataError.self) {
                try JSONLinesImporter().importLines(Data(file.utf8), into: store)
            }
            #expect(error.code == .uniqueConstraint, "\(scheme): \(error)")
            #expect(error.message.contains("nothing was imported"))
            #expect(try Fixture.count(store) == 0, "\(scheme)")
        }
    }

    /// Another writer saves a project's title after the first pass checked the file and before
    /// the import writes that project: the store refuses the batch, the import takes back what
    /// it wrote, and the error names the line and the value, as the first pass would have.
    @Test func aValueAnotherWriterSavedDuringTheImportIsNamedByItsLine() throws {
        let file = """
            {"entity":"Project","ref":"p1","attributes":{"title":"Atlas"}}
            {"entity":"Project","ref":"p2","attributes":{"title":"Borealis"}}
            {"entity":"Project","ref":"p3","attributes":{"title":"Cygnus"}}
            """
        let store = try Fixture.open(storeURL("sqlite", in: TemporaryDirectory().url))
        defer { try? store.close() }
        var otherWriterSaved = false
        let error = try #require(throws: StrataError.self) {
            try JSONLinesImporter(batchSize: 1).importLines(Data(file.utf8), source: "projects.jsonl", into: store) {
                progress in
                guard progress.phase == JSONLinesImporter.importingPhase, !otherWriterSaved else { return }
                otherWriterSaved = true
                _ = try? JSONLinesImporter().importLines(
                    Data(#"{"entity":"Project","ref":"x","attributes":{"title":"Cygnus"}}"#.utf8), into: store)
            }
        }
        #expect(otherWriterSaved)
        #expect(error.code == .uniqueConstraint)
        #expect(
            error.message.hasPrefix(#"line 3: "Cygnus" is already used by an object of the store"#), "\(error.message)")
        #expect(error.location["line"] == "3" && error.location["file"] == "projects.jsonl")
        #expect(error.message.hasSuffix("nothing was imported"))
        #expect(try Fixture.count(store) == 1, "only the other writer's project is left")
    }
}
