import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

@Suite struct JSONLinesRoundTripTests {
    @Test func importThenExportReproducesACanonicalFileByteForByte() throws {
        let source = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try seedCompany(source)
        let file = try Fixture.export(source)
        #expect(file.split(separator: "\n").count == 2 + 6 + 250 + 12)

        let target = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        let report = try JSONLinesImporter().importLines(Data(file.utf8), into: target)
        #expect(report.total == 270)
        #expect(report.counts == ["Company": 2, "Department": 6, "Employee": 250, "Project": 12])
        #expect(try Fixture.export(target) == file)
    }

    @Test func exportIsCanonicalJSONInModelOrder() throws {
        let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try seedCompany(store, employees: 3)
        let lines = try Fixture.export(store).split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == #"{"entity":"Company","ref":"Company/1","attributes":{"name":"Acme","founded":"1990-01-01T00:00:00.125Z"},"relationships":{"departments":["Department/1","Department/3","Department/5"]}}"#
        )
        #expect(
            lines.contains(
                #"{"entity":"Department","ref":"Department/2","attributes":{"name":"Dept 1 部","budget":null},"relationships":{"company":"Company/2","employees":["Employee/2"]}}"#
            ))
        #expect(
            lines.contains(
                #"{"entity":"Employee","ref":"Employee/3","attributes":{"name":"Employee 2 \"q\"","dateOfBirth":"1980-01-03T00:00:01.000Z","height":1.52,"level":3},"relationships":{"department":"Department/3","projects":["Project/8"]}}"#
            ))
    }

    @Test func everyAttributeTypeRoundTripsExactly() throws {
        let entity = Entity(
            "Sample",
            attributes: [
                Attribute("i16", .integer16, isOptional: true), Attribute("i64", .integer64, isOptional: true),
                Attribute("dbl", .double, isOptional: true), Attribute("flt", .float, isOptional: true),
                Attribute("dec", .decimal, isOptional: true), Attribute("str", .string, isOptional: true),
                Attribute("flag", .boolean, isOptional: true), Attribute("date", .date, isOptional: true),
                Attribute("bin", .binary, isOptional: true), Attribute("uuid", .uuid, isOptional: true),
                Attribute("uri", .uri, isOptional: true),
            ])
        let model = try Model(versionIdentifier: "types", entities: [entity])
        let file = """
            {"entity":"Sample","ref":"Sample/1","attributes":{"i16":-32768,"i64":9223372036854775807,"dbl":0.1,"flt":1.5,"dec":"12345678901234567890.125","str":"tab\\t \\"q\\" \\u0001 ✓ 🎉","flag":true,"date":"2024-02-29T23:59:59.999Z","bin":"AAECAwT/","uuid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","uri":"https://example.com/a%20b?x=1#frag"},"relationships":{}}
            {"entity":"Sample","ref":"Sample/2","attributes":{"i16":null,"i64":-1,"dbl":"NaN","flt":"-Infinity","dec":"-0.5","str":"","flag":false,"date":1700000000.0001,"bin":"","uuid":null,"uri":null},"relationships":{}}
            {"entity":"Sample","ref":"Sample/3","attributes":{"i16":0,"i64":0,"dbl":-0.0,"flt":3.4028234663852886e+38,"dec":"0","str":null,"flag":null,"date":null,"bin":null,"uuid":null,"uri":null},"relationships":{}}

            """
        let store = try BuiltInBackends.registry.open(
            StoreURL(scheme: "memory", location: "types-\(UUID())"), model: model)
        try JSONLinesImporter().importLines(Data(file.utf8), into: store)
        let exported = try Fixture.export(store)
        #expect(exported.split(separator: "\n") == file.split(separator: "\n"))
        #expect(exported == file)
        let first = try store.fetch(FetchRequest(entityName: "Sample")).snapshots()[0]
        #expect(first.attributes[1] == .integer(Int64.max))
        #expect(first.attributes[4] == .decimal(Decimal(string: "12345678901234567890.125")!))
        #expect(first.attributes[9] == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
    }

    @Test func forwardReferencesAndOneSidedRelationshipsAreCompletedFromTheInverse() throws {
        let file = """
            {"entity":"Employee","ref":"e1","attributes":{"name":"lxz","height":1.8},"relationships":{"department":"d1","projects":["p1"]}}
            {"entity":"Employee","ref":"e2","attributes":{"name":"Ана"},"relationships":{"department":"d1"}}
            {"entity":"Department","ref":"d1","attributes":{"name":"R&D"}}
            {"entity":"Project","ref":"p1","attributes":{"title":"Atlas"},"relationships":{"members":["e2","e1"]}}
            """
        let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try JSONLinesImporter().importLines(Data(file.utf8), into: store)
        let department = try store.fetch(FetchRequest(entityName: "Department")).snapshots()[0]
        let employees = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        let entity = Fixture.model.entity(named: "Department")!
        #expect(department.relationship("employees", in: entity) == .toMany(employees.map(\.objectID)))
        #expect(
            employees.map { $0.value(of: "height", in: Fixture.model.entity(named: "Employee")!) } == [
                .double(1.8), .double(1.7),
            ])
        let project = try store.fetch(FetchRequest(entityName: "Project")).snapshots()[0]
        #expect(
            project.relationship("members", in: Fixture.model.entity(named: "Project")!)
                == .toMany([employees[1].objectID, employees[0].objectID]))
        #expect(
            employees[1].relationship("projects", in: Fixture.model.entity(named: "Employee")!)
                == .toMany([project.objectID]))
    }

    @Test func filteredExportKeepsOnlyRelationshipsBetweenExportedObjectsAndImportsOnItsOwn() throws {
        let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try seedCompany(store, employees: 40)
        let tall = try ObjectPredicate(format: "height > 1.8")
        let text = try Fixture.export(store, entities: ["Employee"], predicate: tall)
        let lines = text.split(separator: "\n")
        let expected = try store.fetch(FetchRequest(entityName: "Employee", predicate: tall, resultType: .count))
            .count()
        #expect(lines.count == expected && expected > 0)
        #expect(
            lines.allSatisfy {
                $0.hasPrefix(#"{"entity":"Employee""#)
                    && $0.contains(#""relationships":{"department":null,"projects":[]}"#)
            })
        let target = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try JSONLinesImporter().importLines(Data(text.utf8), into: target)
        #expect(try Fixture.export(target) == text)
    }
}
