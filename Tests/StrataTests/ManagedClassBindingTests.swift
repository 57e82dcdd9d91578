import Foundation
import Strata
import Testing

/// A typed class for binding tests: two attributes and a relationship to a class of its own.
@Managed
final class Gauge: ManagedObject {
    var label: String
    @Attribute(default: 2.5) var reading: Double
    var serial: Int64?
    @Relationship(inverse: "gauges") var panel: Panel?
    @Transient var note = "not stored"
}

@Managed
final class Panel: ManagedObject {
    var name: String
    @Relationship(inverse: "panel") var gauges: Set<Gauge>
}

@Suite struct ManagedClassBindingTests {
    /// The Gauge/Panel model as a file would declare it: every property, in reverse order.
    static func reversedModel(
        reading: Attribute = Attribute("reading", .double, defaultValue: .double(2.5)),
        panel: Relationship = Relationship("panel", to: "Panel", inverse: "gauges")
    ) throws -> Model {
        try Model(
            versionIdentifier: "1",
            entities: [
                Entity(
                    "Gauge",
                    attributes: [
                        Attribute("serial", .integer64, isOptional: true), reading, Attribute("label", .string),
                    ],
                    relationships: [panel]),
                Entity(
                    "Panel", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("gauges", to: "Gauge", inverse: "panel", toMany: true)]),
            ])
    }

    static func coordinator(_ model: Model) throws -> StoreCoordinator {
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model))
        return coordinator
    }

    @Test func theMacroDeclaresTheStoredPropertiesInOrderAndNoTransientOne() throws {
        let model = try Model(versionIdentifier: "1", classes: [Gauge.self, Panel.self])
        let gauge = try #require(model.entity(named: "Gauge"))
        #expect(gauge.attributes.map(\.name) == ["label", "reading", "serial"])
        #expect(gauge.attributes.map(\.type) == [.string, .double, .integer64])
        #expect(gauge.attributes.map(\.isOptional) == [false, false, true])
        #expect(gauge.attributes[1].defaultValue == .double(2.5))
        #expect(gauge.relationships.map(\.name) == ["panel"])
        #expect(Gauge.declaredProperties.map(\.name) == ["label", "reading", "serial", "panel"])
    }

    @Test func typedObjectsStoreNothingPerProperty() throws {
        let context = ObjectContext(
            coordinator: try Self.coordinator(try Model(versionIdentifier: "1", classes: [Gauge.self, Panel.self])))
        try context.coordinator.registerClasses([Gauge.self, Panel.self])
        let gauge = context.insert(Gauge.self)
        // The only stored property of the subclass is the transient one.
        #expect(Mirror(reflecting: gauge).children.map(\.label) == ["note"])
        #expect(Mirror(reflecting: context.insert(Panel.self)).children.isEmpty)
    }

    @Test func aClassBindsToAModelWhosePropertiesAreInAnotherOrder() throws {
        let coordinator = try Self.coordinator(try Self.reversedModel())
        try coordinator.registerClasses([Gauge.self, Panel.self])
        let context = ObjectContext(coordinator: coordinator)
        let gauge = context.insert(Gauge.self)
        #expect(gauge.reading == 2.5)
        gauge.label = "oil"
        gauge.serial = 42
        gauge.reading = 3.25
        #expect(try gauge.value(for: "label", as: String.self) == "oil")
        #expect(try gauge.value(for: "serial", as: Int64?.self) == 42)
        #expect(try gauge.value(for: "reading", as: Double.self) == 3.25)
        try gauge.set("water", for: "label")
        #expect(gauge.label == "water")
        let panel = context.insert(Panel.self)
        panel.name = "front"
        gauge.panel = panel
        #expect(panel.gauges == [gauge])
        #expect(try gauge.object(for: "panel") === panel)
        try context.save()

        let reader = ObjectContext(coordinator: coordinator)
        let fetched = try reader.fetch(Gauge.self)
        #expect(fetched.count == 1)
        #expect(fetched[0].isFault)
        #expect(fetched[0].label == "water")
        #expect(!fetched[0].isFault)
        #expect(fetched[0].serial == 42)
        #expect(fetched[0].panel?.name == "front")
        #expect(fetched[0].slots != nil)
        #expect(fetched[0].slots === reader.insert(Gauge.self).slots)
    }

    @Test func aTypedWriteIsTrackedLikeAWriteByName() throws {
        let coordinator = try Self.coordinator(try Self.reversedModel())
        try coordinator.registerClasses([Gauge.self, Panel.self])
        let context = ObjectContext(coordinator: coordinator)
        let gauge = context.insert(Gauge.self)
        gauge.label = "oil"
        try context.save()
        #expect(!context.hasChanges)
        gauge.reading = 1
        #expect(context.hasChanges)
        #expect(gauge.isUpdated)
        #expect(context.updatedObjects.contains(gauge))
        context.rollback()
        #expect(gauge.reading == 2.5)
    }

    @Test func aPropertyTheEntityLacksIsAnErrorNamingClassPropertyAndEntity() throws {
        let model = try Model(
            versionIdentifier: "1",
            entities: [
                Entity("Gauge", attributes: [Attribute("label", .string)]),
                Entity("Panel", attributes: [Attribute("name", .string)]),
            ])
        let coordinator = try Self.coordinator(model)
        let error = try #require(throws: StrataError.self) { try coordinator.registerClasses([Gauge.self]) }
        #expect(error.code == .invalidModel)
        #expect(error.location == ["class": "Gauge", "property": "reading", "entity": "Gauge"])
        #expect(error.message.contains("has no attribute 'reading'"))
        #expect(coordinator.managedClass(for: "Gauge") == ManagedObject.self)
    }

    @Test func anAttributeOfAnotherTypeOrOptionalityIsAnError() throws {
        for reading in [Attribute("reading", .string), Attribute("reading", .double, isOptional: true)] {
            let coordinator = try Self.coordinator(try Self.reversedModel(reading: reading))
            let error = try #require(throws: StrataError.self) { try coordinator.registerClasses([Gauge.self]) }
            #expect(error.code == .invalidModel)
            #expect(error.location["property"] == "reading")
            #expect(error.message.contains("Gauge.reading is a non-optional double"))
        }
    }

    @Test func aRelationshipOfAnotherKindIsAnError() throws {
        let model = try Model(
            versionIdentifier: "1",
            entities: [
                Entity(
                    "Gauge",
                    attributes: [
                        Attribute("label", .string), Attribute("reading", .double),
                        Attribute("serial", .integer64, isOptional: true),
                    ],
                    relationships: [Relationship("panel", to: "Panel", inverse: "gauges", toMany: true)]),
                Entity(
                    "Panel", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("gauges", to: "Gauge", inverse: "panel", toMany: true)]),
            ])
        let coordinator = try Self.coordinator(model)
        let error = try #require(throws: StrataError.self) { try coordinator.registerClasses([Gauge.self]) }
        #expect(error.location == ["class": "Gauge", "property": "panel", "entity": "Gauge"])
        #expect(error.message.contains("is to-one to 'Panel'"))
    }

    @Test func anotherTypedAPIBindsPlainObjectsWithItsOwnDeclarations() throws {
        let coordinator = try Self.coordinator(try Self.reversedModel())
        try coordinator.register(
            forEntity: "Gauge",
            properties: [
                .attribute("label", String.self), .relationship("panel", Panel?.self, inverse: "gauges"),
            ])
        let context = ObjectContext(coordinator: coordinator)
        let gauge = try context.insert("Gauge")
        #expect(type(of: gauge) == ManagedObject.self)
        gauge.setAttributeValue("oil", atSlot: 0)
        #expect(gauge.attributeValue(atSlot: 0, as: String.self) == "oil")
        #expect(gauge.value(atSlot: 0) == .string("oil"))
        #expect(try gauge.value(for: "label", as: String.self) == "oil")
        let panel = try context.insert("Panel")
        gauge.setRelatedObjects([panel], atSlot: 0)
        #expect(gauge.relatedObjects(atSlot: 0) == [panel])
        #expect(gauge.relatedObjectIDs(atSlot: 0) == [panel.objectID])
        #expect(try panel.objects(for: "gauges") == [gauge])
    }
}
