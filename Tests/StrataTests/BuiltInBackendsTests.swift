import Strata
import Testing

@Test func builtInSchemesWorkWithNoSetup() throws {
    let model = try Model(entities: [Entity("Note", attributes: [Attribute("text", .string)])])
    let store = try BuiltInBackends.registry.open("memory:", model: model)
    #expect(try store.metadata().storeType == "memory")
    for backend in BuiltInBackends.all {
        #expect(BuiltInBackends.registry.schemes.contains(backend.scheme))
    }
}

@Test func unknownSchemeErrorListsBuiltIns() throws {
    let model = try Model(entities: [Entity("Note", attributes: [Attribute("text", .string)])])
    let error = #expect(throws: StrataError.self) {
        _ = try BuiltInBackends.registry.open("cassandra:/db", model: model)
    }
    #expect(error?.code == .unknownStoreScheme)
    #expect(error?.message.contains("memory") == true)
}
