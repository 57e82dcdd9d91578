import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// The import path under careless and hostile input: values the model's rules forbid, numbers
/// no `Double` holds, bytes that are not UTF-8, files read in batches, stores that fail midway.
@Suite struct ImportSafetyTests {
    static let head = """
        {"entity":"Company","ref":"c1","attributes":{"name":"Acme"}}
        {"entity":"Department","ref":"d1","attributes":{"name":"R&D"},"relationships":{"company":"c1"}}

        """

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var attributes: String
        var code: StrataError.Code
        var fragment: String
        var description: String { name }
    }

    /// Each of these was imported as it was (1e400 as Infinity) before import applied the
    /// model's rules, and `strata validate` then failed on the store.
    static let forbidden: [Case] = [
        Case(
            name: "empty name (minLength 1)", attributes: #"{"name":""}"#, code: .validationFailed,
            fragment: "Employee.name is 0 characters long, shorter than 1"),
        Case(
            name: "name too long (maxLength 100)", attributes: "{\"name\":\"\(String(repeating: "x", count: 101))\"}",
            code: .validationFailed, fragment: "longer than 100"),
        Case(
            name: "height above the maximum", attributes: #"{"name":"x","height":5.0}"#, code: .validationFailed,
            fragment: "Employee.height 5.0 is more than the maximum 3.0"),
        Case(
            name: "height NaN", attributes: #"{"name":"x","height":"NaN"}"#, code: .validationFailed,
            fragment: "Employee.height NaN is not a number within"),
        Case(
            name: "height Infinity", attributes: #"{"name":"x","height":"Infinity"}"#, code: .validationFailed,
            fragment: "more than the maximum"),
        Case(
            name: "level -0 (min 1)", attributes: #"{"name":"x","level":-0}"#, code: .validationFailed,
            fragment: "Employee.level 0 is less than the minimum 1"),
        Case(
            name: "height 1e400", attributes: #"{"name":"x","height":1e400}"#, code: .invalidRequest,
            fragment: "the number 1e400 is out of the range of a 64-bit floating-point number"),
        Case(
            name: "level -1e400", attributes: #"{"name":"x","level":-1e400}"#, code: .invalidRequest,
            fragment: "out of the range"),
    ]

    @Test(arguments: forbidden)
    func importRefusesWhatTheModelsRulesForbid(_ bad: Case) throws {
        for scheme in Fixture.schemes {
            let store = try Fixture.open(storeURL(scheme, in: TemporaryDirectory().url))
            defer { try? store.close() }
            let file =
                Self.head + #"{"entity":"Employee","ref":"e1","attributes":"# + bad.attributes
                + #","relationships":{"department":"d1"}}"# + "\n"
            let error = try #require(throws: StrataError.self, "\(bad.name) on \(scheme)") {
                try JSONLinesImporter().importLines(Data(file.utf8), source: "rules.jsonl", into: store)
            }
            #expect(error.code == bad.code, "\(bad.name): \(error)")
            #expect(error.message.hasPrefix("line 3: "), "\(bad.name): \(error.message)")
            #expect(error.location["line"] == "3")
            #expect(error.message.contains(bad.fragment), "\(bad.name): \(error.message)")
            #expect(error.message.hasSuffix("nothing was imported"))
            if bad.code == .validationFailed { #expect(!error.validationFailures.isEmpty) }
            #expect(try Fixture.count(store) == 0, "\(bad.name) on \(scheme)")
        }
    }

    @Test func aFloatOutOfItsRangeIsRefused() throws {
        let model = try Model(
            versionIdentifier: "f", entities: [Entity("Sample", attributes: [Attribute("f", .float)])])
        let store = try BuiltInBackends.registry.open(
            StoreURL(scheme: "memory", location: "float-\(UUID())"), model: model)
        let error = try #require(throws: StrataError.self) {
            try JSONLinesImporter().importLines(
                Data(#"{"entity":"Sample","ref":"s","attributes":{"f":1e300}}"#.utf8), into: store)
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("does not fit in a float"), "\(error.message)")
    }

    @Test func aRelationshipRuleIsCheckedOnTheCompletedRelationships() throws {
        let model = try Model(
            versionIdentifier: "r",
            entities: [
                Entity(
                    "Team", attributes: [Attribute("name", .string)],
                    relationships: [
                        Relationship("players", to: "Player", inverse: "team", toMany: true, maximumCount: 2)
                    ]),
                Entity(
                    "Player", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("team", to: "Team", inverse: "players", isOptional: false)]),
            ])
        // The team's line leaves `players` out: three players fill it from the inverse.
        let file = """
            {"entity":"Team","ref":"t","attributes":{"name":"T"}}
            {"entity":"Player","ref":"a","attributes":{"name":"a"},"relationships":{"team":"t"}}
            {"entity":"Player","ref":"b","attributes":{"name":"b"},"relationships":{"team":"t"}}
            {"entity":"Player","ref":"c","attributes":{"name":"c"},"relationships":{"team":"t"}}
            {"entity":"Player","ref":"d","attributes":{"name":"d"}}
            """
        let store = try BuiltInBackends.registry.open(
            StoreURL(scheme: "memory", location: "rules-\(UUID())"), model: model)
        let error = try #require(throws: StrataError.self) {
            try JSONLinesImporter().importLines(Data(file.utf8), into: store)
        }
        #expect(error.code == .validationFailed)
        #expect(
            error.message.hasPrefix(
                "line 1: 't' breaks the model's rules: Team.players has 3 targets, more than the maximum 2"),
            "\(error.message)")
        let fewer = file.split(separator: "\n").enumerated().filter { $0.offset != 3 }.map(\.element).joined(
            separator: "\n")
        let required = try #require(throws: StrataError.self) {
            try JSONLinesImporter().importLines(Data(fewer.utf8), into: store)
        }
        #expect(
            required.message.hasPrefix(
                "line 4: 'd' breaks the model's rules: Player.team is a required relationship but has no target"),
            "\(required.message)")
        #expect(try Fixture.count(store) == 0)
    }

    /// Invalid UTF-8 was decoded with U+FFFD in its place and imported.
    @Test func invalidUTF8IsRefusedWithItsLineAndByteOffset() throws {
        var bytes = Array(Self.head.utf8)
        let lineStart = bytes.count
        bytes += Array(#"{"entity":"Employee","ref":"e1","attributes":{"name":"ab"#.utf8)
        let badOffset = bytes.count
        bytes += [0xFF, 0x22] + Array(#"}}"#.utf8) + [0x0A]
        for sequence: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            var file = bytes
            file.replaceSubrange(badOffset..<(badOffset + 1), with: sequence)
            let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
            let error = try #require(throws: StrataError.self) {
                try JSONLinesImporter().importLines(Data(file), source: "bad.jsonl", into: store)
            }
            #expect(error.code == .invalidRequest)
            #expect(error.message.hasPrefix("line 3: not valid JSON"), "\(error.message)")
            #expect(error.message.contains("invalid UTF-8"), "\(error.message)")
            #expect(error.location["line"] == "3")
            #expect(error.location["offset"] == String(badOffset), "\(sequence): \(error.location)")
            #expect(error.location["column"] == String(badOffset - lineStart + 1))
            #expect(try Fixture.count(store) == 0)
        }
    }

    /// A store of every kind, filled in batches of 7 (so relationships span batches, forward
    /// and backward, and ordered ones need their order restored), exports the file it imported.
    @Test(arguments: Fixture.schemes)
    func aBatchedImportReproducesTheFileByteForByte(_ scheme: String) throws {
        let source = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try seedCompany(source, employees: 60)
        let file = try Fixture.export(source)
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("company.jsonl")
        try Data(file.utf8).write(to: path)
        let target = try Fixture.open(storeURL(scheme, in: directory))
        defer { try? target.close() }
        let report = try JSONLinesImporter(batchSize: 7).importLines(contentsOf: path, into: target)
        #expect(report.total == 2 + 6 + 60 + 12)
        #expect(try Fixture.export(target) == file, "\(scheme)")
        #expect(try StoreValidator().validate(target).violations.isEmpty)
    }

    @Test(arguments: Fixture.schemes)
    func aBatchedImportCompletesOneSidedAndForwardRelationships(_ scheme: String) throws {
        let file = """
            {"entity":"Employee","ref":"e1","attributes":{"name":"lxz","height":1.8},"relationships":{"department":"d1","projects":["p1"]}}
            {"entity":"Employee","ref":"e2","attributes":{"name":"Ана"},"relationships":{"department":"d1"}}
            {"entity":"Employee","ref":"e3","attributes":{"name":"x"},"relationships":{"projects":["p1"]}}
            {"entity":"Department","ref":"d1","attributes":{"name":"R&D"}}
            {"entity":"Project","ref":"p1","attributes":{"title":"Atlas"},"relationships":{"members":["e3","e2","e1"]}}
            {"entity":"Company","ref":"c1","attributes":{"name":"Acme"},"relationships":{"departments":["d1"]}}
            """
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Fixture.open(storeURL("memory", in: directory, name: "whole"))
        try JSONLinesImporter(batchSize: 1_000).importLines(Data(file.utf8), into: whole)
        let batched = try Fixture.open(storeURL(scheme, in: directory, name: "batched"))
        defer { try? batched.close() }
        try JSONLinesImporter(batchSize: 1).importLines(Data(file.utf8), into: batched)
        let exported = try Fixture.export(batched)
        #expect(exported == (try Fixture.export(whole)), "\(scheme)")
        #expect(exported.contains(#""members":["Employee/3","Employee/2","Employee/1"]"#), "\(exported)")
        #expect(try StoreValidator().validate(batched).violations.isEmpty)
    }

    /// A bad last line of a file imported in many batches: the checking pass refuses it before
    /// anything is written, on every backend.
    @Test(arguments: Fixture.schemes)
    func aBadLastLineLeavesTheStoreUnchanged(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Fixture.open(storeURL(scheme, in: directory))
        defer { try? store.close() }
        try JSONLinesImporter().importLines(
            Data(#"{"entity":"Company","ref":"x","attributes":{"name":"Kept"}}"#.utf8), into: store)
        let before = try Fixture.export(store)
        var text = #"{"entity":"Department","ref":"d","attributes":{"name":"D"}}"# + "\n"
        for i in 0..<2_000 {
            text +=
                #"{"entity":"Employee","ref":"e\#(i)","attributes":{"name":"n\#(i)"},"relationships":{"department":"d"}}"#
                + "\n"
        }
        text += #"{"entity":"Employee","ref":"last","attributes":{"name":"n","height":4.0}}"# + "\n"
        let path = directory.appendingPathComponent("big.jsonl")
        try Data(text.utf8).write(to: path)
        let error = try #require(throws: StrataError.self) {
            try JSONLinesImporter(batchSize: 100).importLines(contentsOf: path, into: store)
        }
        #expect(error.code == .validationFailed)
        #expect(error.location["line"] == "2002")
        #expect(try Fixture.export(store) == before, "\(scheme)")
    }

    /// A store that fails while the objects are written: those inserted before are deleted.
    @Test func aStoreFailingMidwayKeepsNothingOfTheImport() throws {
        let inner = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try JSONLinesImporter().importLines(
            Data(#"{"entity":"Company","ref":"x","attributes":{"name":"Kept"}}"#.utf8), into: inner)
        let before = try Fixture.export(inner)
        var text = ""
        for i in 0..<50 { text += #"{"entity":"Company","ref":"c\#(i)","attributes":{"name":"n\#(i)"}}"# + "\n" }
        let failing = FailingStore(inner: inner, failingInsertSave: 3)
        let error = try #require(throws: StrataError.self) {
            try JSONLinesImporter(batchSize: 10).importLines(Data(text.utf8), into: failing)
        }
        #expect(error.code == .io)
        #expect(error.message.hasSuffix("nothing was imported"), "\(error.message)")
        #expect(try Fixture.export(inner) == before)
    }
}

/// A store whose `failingInsertSave`-th save with inserts fails as a full disk would.
private final class FailingStore: WrappingStore, @unchecked Sendable {
    let inner: any PersistentStore
    let failingInsertSave: Int
    private var insertSaves = 0
    init(inner: any PersistentStore, failingInsertSave: Int) {
        self.inner = inner
        self.failingInsertSave = failingInsertSave
    }
    func save(_ request: SaveRequest) throws -> SaveResult {
        if !request.inserts.isEmpty {
            insertSaves += 1
            if insertSaves == failingInsertSave { throw StrataError(.io, "disk full") }
        }
        return try inner.save(request)
    }
}
