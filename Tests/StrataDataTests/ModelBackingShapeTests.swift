import Foundation
import StrataData
import Testing

/// A model with declared initial values, for what its initializers allocate.
@Model final class Gadget {
    @Attribute(.unique) var name: String
    var status: TripStatus = .planned
    var note: String? = nil
    var rank: Int = 3

    init(name: String) { self.name = name }
}

/// A model with initial values that only the detached-object count test makes (tests run in
/// parallel, and the count is per model type).
@Model final class Lamp {
    var name: String
    var status: TripStatus = .planned
    var rank: Int = 3

    init(name: String) { self.name = name }
}

/// A model whose initializer sets nothing: every stored value comes from its declaration.
@Model final class Setting {
    var volume: Int = 5
    var label: String = "default"

    init() {}
}

/// The link between a model instance and its engine object: one model per object while it is
/// used, no object made for the declared initial values of a model read from a store, and the
/// object's pointer to its model cleared when the model goes.
@Suite struct ModelBackingShapeTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(
            for: Gadget.self, Setting.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    #if DEBUG
        @Test func aFetchedModelWithInitialValuesMakesNoDetachedObject() throws {
            let container = try ModelContainer(
                for: Lamp.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let made = Lamp._$layout.detachedObjectsMade
            let before = made.withLock { $0 }
            let context = ModelContext(container)
            let gadget = Lamp(name: "lamp")
            gadget.status = .done
            gadget.rank = 7
            context.insert(gadget)
            try context.save()
            #expect(made.withLock { $0 } == before + 1)

            let reader = ModelContext(container)
            let fetched = try reader.fetch(FetchDescriptor<Lamp>())
            #expect(fetched.map(\.status) == [.done])
            #expect(fetched.map(\.rank) == [7])
            #expect(made.withLock { $0 } == before + 1)
        }
    #endif

    @Test func initialValuesHoldInAModelMadeByItsInitializer() throws {
        let gadget = Gadget(name: "lamp")
        #expect(gadget.status == .planned)
        #expect(gadget.note == nil)
        #expect(gadget.rank == 3)
        let setting = Setting()
        #expect(setting.volume == 5)
        #expect(setting.label == "default")

        let context = ModelContext(try container())
        context.insert(setting)
        context.insert(gadget)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Setting>()).map(\.volume) == [5])
        #expect(try context.fetch(FetchDescriptor<Gadget>()).map(\.rank) == [3])
    }

    @Test func anObjectGivesOneModelWhileItIsUsed() throws {
        let container = try container()
        let context = ModelContext(container)
        context.insert(Gadget(name: "lamp"))
        try context.save()

        let reader = ModelContext(container)
        let first = try reader.fetch(FetchDescriptor<Gadget>())[0]
        let again = try reader.fetch(FetchDescriptor<Gadget>())[0]
        #expect(first === again)
        #expect(reader.model(for: first.persistentModelID) as? Gadget === first)
        #expect(first.persistentBackingData.backsAModel)
    }

    @Test func anObjectForgetsItsModelWhenTheModelGoes() throws {
        let container = try container()
        let context = ModelContext(container)
        context.insert(Gadget(name: "lamp"))
        try context.save()

        let reader = ModelContext(container)
        let identifier = try reader.fetchIdentifiers(FetchDescriptor<Gadget>())[0]
        let backing = try fetchedBacking(in: reader)
        #expect(!backing.backsAModel)

        let model = reader.model(for: identifier) as? Gadget
        #expect(model?.persistentBackingData === backing)
        #expect(backing.backsAModel)
        #expect(model?.name == "lamp")
    }

    @Test func anUpsertMovesTheModelToTheStoredObject() throws {
        let container = try container()
        let context = ModelContext(container)
        context.insert(Gadget(name: "lamp"))
        try context.save()

        let duplicate = Gadget(name: "lamp")
        duplicate.rank = 9
        context.insert(duplicate)
        let inserted = duplicate.persistentBackingData
        try context.save()
        #expect(duplicate.persistentBackingData !== inserted)
        #expect(!inserted.backsAModel)
        #expect(duplicate.persistentBackingData.backsAModel)
        #expect(try context.fetch(FetchDescriptor<Gadget>()).map(\.rank) == [9])
    }

    /// The object of the only gadget, fetched in `context`, once its model is gone.
    private func fetchedBacking(in context: ModelContext) throws -> BackingData<Gadget> {
        try context.fetch(FetchDescriptor<Gadget>())[0].persistentBackingData
    }
}
