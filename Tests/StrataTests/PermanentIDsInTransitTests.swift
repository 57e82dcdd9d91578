import Testing

@testable import StrataEngine

/// The mappings a parent hands down stay until adopted; an adoption removes exactly those it
/// read, so one that runs inside or after another never removes a mapping that arrived later,
/// nor fails on mappings already gone.
@Suite struct PermanentIDsInTransitTests {
    static func mapping(_ key: Int64) -> [ObjectID: ObjectID] {
        let scope = ObjectID.Scope(entityName: "Item", storeIdentifier: "S")
        return [ObjectID.temporary(entityName: "Item"): scope.id(primaryKey: key)]
    }

    @Test func anAdoptionRemovesOnlyTheMappingsItRead() throws {
        let (first, second, third) = (Self.mapping(1), Self.mapping(2), Self.mapping(3))
        var transit = PermanentIDsInTransit()
        transit.append(first)
        transit.append(second)
        let read = try #require(transit.lastSerial)
        transit.append(third)
        transit.removeMappings(through: read)
        #expect(transit.mappings == [third])
        transit.removeMappings(through: read)
        #expect(transit.mappings == [third], "a second adoption of the same mappings removes nothing more")
        transit.removeMappings(through: try #require(transit.lastSerial))
        #expect(transit.mappings.isEmpty && transit.lastSerial == nil)
    }
}
