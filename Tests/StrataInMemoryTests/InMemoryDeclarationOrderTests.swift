import Foundation
import StrataCore
import StrataInMemory
import Testing

/// A named in-memory store keeps its values by position, in the order of the model that made it:
/// a model with the same version hash that declares the properties in another order is refused,
/// instead of reading each value as another property.
@Suite struct InMemoryDeclarationOrderTests {
    static func model(reversed: Bool) throws -> Model {
        var attributes = [Attribute("title", .string), Attribute("author", .string)]
        if reversed { attributes.reverse() }
        return try Model(entities: [Entity("Book", attributes: attributes)])
    }

    @Test func aNamedStoreRefusesAModelThatDeclaresItsPropertiesInAnotherOrder() throws {
        let made = try Self.model(reversed: false)
        let reversed = try Self.model(reversed: true)
        #expect(made.versionHash == reversed.versionHash)
        let url = StoreURL(scheme: "memory", location: "order-\(UUID().uuidString)")
        let backend = InMemoryBackend()
        defer { try? backend.destroyStore(at: url) }
        let store = try backend.open(url, model: made, options: StoreOptions())
        let id = try store.obtainPermanentIDs(for: "Book", count: 1)[0]
        try store.save(
            SaveRequest(inserts: [
                Snapshot(objectID: id, version: 0, attributes: ["Dune", "Herbert"], relationships: [])
            ])
        )
        let error = #expect(throws: StrataError.self) {
            _ = try backend.open(url, model: reversed, options: StoreOptions())
        }
        #expect(error?.code == .modelMismatch && error?.location["entity"] == "Book")
        let again = try backend.open(url, model: made, options: StoreOptions())
        let book = try #require(try again.snapshots(of: "Book", among: [id]).first)
        #expect(book.attributes == ["Dune", "Herbert"])
    }
}
