#if canImport(Glibc)
    import Foundation
    import Glibc
    import Strata
    import StrataCore
    import Testing

    @_silgen_name("malloc_usable_size")
    private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int

    /// The size of a managed object: one object is made for every row a fetch returns, so a few
    /// bytes of it are megabytes of a large fetch. An object of an entity without a subclass is a
    /// 104-byte instance, which glibc serves from its 112-byte blocks (104 usable bytes).
    @Suite struct ObjectFootprintTests {
        @Test func anObjectFitsTheAllocatorsHundredAndTwelveByteBlock() throws {
            let model = try Model(
                versionIdentifier: "footprint",
                entities: [Entity("Item", attributes: [Attribute("name", .string), Attribute("n", .integer64)])])
            let coordinator = StoreCoordinator(model: model)
            try coordinator.addStore(
                BuiltInBackends.registry.open(StoreURL(scheme: "memory", location: ""), model: model))
            let context = ObjectContext(coordinator: coordinator)
            let object = try context.insert("Item")
            let usable = mallocUsableSize(Unmanaged.passUnretained(object).toOpaque())
            #expect(usable <= 104, "a managed object takes \(usable) usable bytes of its block")
            #expect(MemoryLayout<ObjectID>.size == 12, "an object ID leaves 4 bytes of its stride free")
        }

        @Test func aTypedObjectIsAsSmall() throws {
            let context = ObjectContext(coordinator: try makeTeamCoordinator())
            let player = context.insert(Player.self)
            let usable = mallocUsableSize(Unmanaged.passUnretained(player).toOpaque())
            #expect(usable <= 104, "a @Managed object takes \(usable) usable bytes of its block")
        }
    }
#endif
