import Foundation
import StrataCore
import StrataData
import Testing

/// `@Attribute(.preserveValueOnDeletion)` marks the attribute in the model the container opens
/// stores with and in its JSON file, without changing the version hash.
@Suite struct PreservedValueSchemaTests {
    @Test func theOptionMarksTheAttributeInTheModel() throws {
        let entity = try #require(Schema([Notebook.self]).model.entity(named: "Notebook"))
        let preserved = entity.attributes.filter(\.preservesValueOnDeletion).map(\.name)
        #expect(preserved == ["title", "cover", "shelf"])
        let plain = try #require(Schema([NotebooksWithoutTombstones.Notebook.self]).model.entity(named: "Notebook"))
        #expect(plain.attributes.allSatisfy { !$0.preservesValueOnDeletion })
    }

    @Test func theModelJSONCarriesTheOptionAndReadsBack() throws {
        let schema = Schema([Notebook.self])
        let data = try schema.modelJSON()
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text.components(separatedBy: "\"preservesValueOnDeletion\"").count - 1 == 3, "\(text)")
        let read = try Model(jsonData: data)
        #expect(read.entities == schema.model.entities)
    }

    @Test func theOptionLeavesTheVersionHashAlone() throws {
        let preserving = Schema([Notebook.self]).model
        let plain = Schema([NotebooksWithoutTombstones.Notebook.self]).model
        #expect(preserving.entities != plain.entities, "the models differ in the option")
        #expect(preserving.versionHash == plain.versionHash)
    }
}
